"""A custom provider that lives in this test directory, not in the package: it moves clients to the secondary
after ``failures`` failed health checks of the primary in a row, and back after ``recoveries`` good ones. With
``recoveries: 0`` it is deliberately broken: it never moves them back (the scenario's switch_back fails)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pulsar

from examples.sticky_failover import healthy
from pytest_pulsar_ha.scenario.factories import ClusterInfo, ProviderContext


def _info(cluster: ClusterInfo) -> pulsar.ServiceInfo:
    auth = pulsar.AuthenticationToken(cluster.token) if cluster.token else None
    return pulsar.ServiceInfo(cluster.service_url, auth)


class RoundTripFailover(pulsar.ServiceInfoProvider):
    def __init__(
        self,
        primary: ClusterInfo,
        secondary: ClusterInfo,
        failures: int,
        recoveries: int,
        interval_s: float,
        on_switch: Callable[[str, str], None],
    ) -> None:
        self.primary, self.secondary = primary, secondary
        self.failures, self.recoveries, self.interval_s = failures, recoveries, interval_s
        self.on_switch = on_switch
        self._stop = threading.Event()

    def initial_service_info(self) -> pulsar.ServiceInfo:
        return _info(self.primary)

    def initialize(self, on_service_info_update: Callable[[pulsar.ServiceInfo], None]) -> None:
        def watch() -> None:
            on_primary, streak = True, 0
            while not self._stop.wait(self.interval_s):
                up = healthy(self.primary, timeout_s=self.interval_s)
                streak = streak + 1 if up != on_primary else 0  # checks in a row against where clients are
                if on_primary and streak >= self.failures:
                    on_service_info_update(_info(self.secondary))
                    self.on_switch(self.secondary.name, f"{streak} failed health checks of {self.primary.name}")
                    on_primary, streak = False, 0
                elif not on_primary and self.recoveries and streak >= self.recoveries:
                    on_service_info_update(_info(self.primary))
                    self.on_switch(self.primary.name, f"{streak} good health checks of {self.primary.name}")
                    on_primary, streak = True, 0

        threading.Thread(target=watch, name="round-trip-failover", daemon=True).start()

    def close(self) -> None:
        self._stop.set()


def build(context: ProviderContext) -> RoundTripFailover:
    args: dict[str, Any] = dict(context.args)
    return RoundTripFailover(
        context.clusters[context.primary],
        context.clusters[str(args["secondary"])],
        failures=int(args.get("failures", 3)),
        recoveries=int(args.get("recoveries", 3)),
        interval_s=float(args.get("interval_s", 0.5)),
        on_switch=context.switched,
    )
