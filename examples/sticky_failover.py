"""A custom failover provider, as a user would write one: a `pulsar.ServiceInfoProvider` that moves clients to
the secondary after the primary failed its health check a few times in a row, and never moves them back (an
operator does that). A scenario runs it with::

    provider:
      kind: custom
      factory: examples.sticky_failover:build
      primary: cluster-a
      args: {secondary: cluster-b, failures: 3, interval_s: 1}
"""

from __future__ import annotations

import math
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pulsar

from pytest_pulsar_ha.scenario.factories import ClusterInfo, ProviderContext


def _info(cluster: ClusterInfo) -> pulsar.ServiceInfo:
    auth = pulsar.AuthenticationToken(cluster.token) if cluster.token else None
    return pulsar.ServiceInfo(cluster.service_url, auth)


def healthy(cluster: ClusterInfo, timeout_s: float = 2.0) -> bool:
    request = urllib.request.Request(f"{cluster.admin_url.rstrip('/')}/admin/v2/brokers/health")
    if cluster.token:
        request.add_header("Authorization", f"Bearer {cluster.token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return int(response.status) == 200
    except Exception:
        return False


class StickyFailover(pulsar.ServiceInfoProvider):
    def __init__(
        self,
        primary: ClusterInfo,
        secondary: ClusterInfo,
        failures: int,
        interval_s: float,
        on_switch: Callable[[str, str], None],
    ) -> None:
        self.primary, self.secondary = primary, secondary
        self.failures, self.interval_s = failures, interval_s
        self.on_switch = on_switch
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def initial_service_info(self) -> pulsar.ServiceInfo:
        return _info(self.primary)

    def initialize(self, on_service_info_update: Callable[[pulsar.ServiceInfo], None]) -> None:
        def watch() -> None:
            failed = 0
            while not self._stop.wait(max(0.0, self._next_check() - time.monotonic())):
                failed = 0 if healthy(self.primary) else failed + 1
                if failed >= self.failures:
                    on_service_info_update(_info(self.secondary))
                    self.on_switch(self.secondary.name, f"{failed} failed health checks of {self.primary.name}")
                    return  # sticky: an operator moves clients back

        self._thread = threading.Thread(target=watch, name="sticky-failover", daemon=True)
        self._thread.start()

    @property
    def tick_grid(self) -> tuple[float, float]:
        """When it checks: on the multiples of its interval of time.monotonic(). A provider that says so gets
        switch windows a harness can pin (a fault starts half an interval before a check)."""
        return 0.0, self.interval_s

    def _next_check(self) -> float:
        return (math.floor(time.monotonic() / self.interval_s) + 1) * self.interval_s

    def close(self) -> None:
        self._stop.set()


def build(context: ProviderContext) -> StickyFailover:
    args: dict[str, Any] = dict(context.args)
    secondary = str(args.get("secondary", next(n for n in context.clusters if n != context.primary)))
    return StickyFailover(
        context.clusters[context.primary],
        context.clusters[secondary],
        failures=int(args.get("failures", 3)),
        interval_s=float(args.get("interval_s", 1.0)),
        on_switch=context.switched,
    )
