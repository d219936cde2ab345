"""AutoClusterFailover (PIP-121) as a ``pulsar.ServiceInfoProvider`` for the Python client (>= 3.11)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .durations import Duration, seconds
from .endpoints import ClusterEndpoint
from .events import EventHub, SwitchEvent, SwitchFailedEvent
from .failover_policy import DEFAULT_TOLERANCE_S, FailoverPolicy
from .periodic import PeriodicProvider
from .probes import Probe, default_probe_timeout, make_probe
from .reasons import one_line

log = logging.getLogger("pulsar_ha_providers.auto")


class AutoClusterFailover(PeriodicProvider):
    """Probe the primary and the secondaries every ``check_interval``; switch as PIP-121 describes.

    Pass the instance as ``pulsar.Client(provider, ...)``. Durations are seconds, ``timedelta`` or strings such
    as ``"500ms"``. Every probe result and every switch is published on :attr:`events`.
    """

    def __init__(
        self,
        primary: ClusterEndpoint,
        secondaries: Sequence[ClusterEndpoint],
        *,
        check_interval: Duration = "1s",
        failover_delay: Duration,
        switch_back_delay: Duration,
        probe: str | Probe = "lookup",
        probe_timeout: Duration | None = None,
    ) -> None:
        super().__init__()
        if not secondaries:
            raise ValueError("AutoClusterFailover needs at least one secondary")
        self.endpoints = [primary, *secondaries]
        names = [e.name for e in self.endpoints]
        if len(set(names)) != len(names):
            raise ValueError(f"endpoint names must differ: {names}")
        self.check_interval = seconds(check_interval, "check_interval")
        if self.check_interval <= 0:
            raise ValueError("check_interval must be positive")
        self.failover_delay = seconds(failover_delay, "failover_delay")
        self.switch_back_delay = seconds(switch_back_delay, "switch_back_delay")
        default_timeout = default_probe_timeout(self.check_interval)
        self.probe_timeout = seconds(probe_timeout, "probe_timeout") if probe_timeout is not None else default_timeout
        if not 0 < self.probe_timeout < self.check_interval:
            raise ValueError(
                f"probe_timeout ({self.probe_timeout}s) must be positive and below check_interval "
                f"({self.check_interval}s), or a blackholed endpoint would stall the probe loop"
            )
        self.probe = make_probe(probe)
        self.policy = FailoverPolicy(
            len(self.endpoints),
            self.failover_delay,
            self.switch_back_delay,
            tolerance=min(DEFAULT_TOLERANCE_S, self.check_interval / 4),
        )
        self.events = EventHub()
        self.interval = self.check_interval
        self.thread_name = "pulsar-ha-auto-failover"
        self._pool = ThreadPoolExecutor(max_workers=len(self.endpoints), thread_name_prefix="pulsar-ha-probe")

    def __repr__(self) -> str:
        return (
            f"AutoClusterFailover(primary={self.endpoints[0].name}, "
            f"secondaries={[e.name for e in self.endpoints[1:]]}, "
            f"check_interval={self.check_interval}s, failover_delay={self.failover_delay}s, "
            f"switch_back_delay={self.switch_back_delay}s, probe={self.probe.kind})"
        )

    @property
    def current(self) -> ClusterEndpoint:
        return self.endpoints[self.policy.current]

    # -- pulsar.ServiceInfoProvider --------------------------------------------------------------------

    def initial_service_info(self) -> Any:
        return self.endpoints[0].service_info()

    def close(self) -> None:
        super().close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- the probe loop --------------------------------------------------------------------------------

    def tick(self, scheduled_at: float | None = None) -> None:
        """Probe every endpoint at once (each within ``probe_timeout``) and apply the policy's decision.

        ``scheduled_at`` (``time.monotonic()``) is the time the tick stands for; the policy measures its
        delays from it, so a probe that runs into its timeout does not delay the switch by a whole interval.
        The switch is recorded only once the client took it; if the client's update raises, the failure is
        published as a :class:`SwitchFailedEvent` and the next tick decides (and tries) again.
        """
        now = time.monotonic() if scheduled_at is None else scheduled_at
        results = list(self._pool.map(lambda e: self.probe.run(e, self.probe_timeout), self.endpoints))
        for result in results:
            self.events.publish(result)
        before = self.endpoints[self.policy.current]
        decision = self.policy.tick(now, {i: r.ok for i, r in enumerate(results)})
        if decision is None:
            return
        target = self.endpoints[decision.target]
        try:
            self.switch(target.service_info())
        except Exception as exc:
            error = one_line(exc)
            log.warning(
                "could not switch from %s to %s (%s): the client refused the update: %s; retrying on the next check",
                before.name,
                target.name,
                decision.reason,
                error,
            )
            self.events.publish(SwitchFailedEvent(before.name, target.name, decision.reason, error))
            return
        self.policy.commit(decision)
        log.warning("switched from %s to %s: %s", before.name, target.name, decision.reason)
        self.events.publish(SwitchEvent(before.name, target.name, decision.reason))
