"""AutoClusterFailover's probe loop with scripted probes (no network): commit after the client took the switch,
and switch at the first tick at or after the failover delay even when a probe is slow."""

from __future__ import annotations

import threading
import time
from typing import Any

from pulsar_ha_providers import AutoClusterFailover, ClusterEndpoint
from pulsar_ha_providers.events import SwitchFailedEvent
from pulsar_ha_providers.probes import Probe

A = ClusterEndpoint("pulsar://127.0.0.1:6650", name="a")
B = ClusterEndpoint("pulsar://127.0.0.1:6651", name="b")


class ScriptedProbe(Probe):
    """Primary ``a`` healthy for ``healthy_ticks`` rounds, then down; its first failing probe takes ``slow_s``."""

    kind = "scripted"

    def __init__(self, healthy_ticks: int = 0, slow_s: float = 0.0) -> None:
        self.healthy_ticks = healthy_ticks
        self.slow_s = slow_s
        self.rounds = 0
        self.lock = threading.Lock()

    def check(self, endpoint: ClusterEndpoint, timeout: float) -> None:
        if endpoint.name != "a":
            return
        with self.lock:
            self.rounds += 1
            round_ = self.rounds
        if round_ <= self.healthy_ticks:
            return
        if round_ == self.healthy_ticks + 1 and self.slow_s:
            time.sleep(self.slow_s)  # a probe that runs into its timeout
        raise ConnectionError("primary down")


class Client:
    def __init__(self, refuse: int = 0) -> None:
        self.refuse = refuse
        self.updates: list[Any] = []

    def __call__(self, info: Any) -> None:
        if self.refuse:
            self.refuse -= 1
            raise RuntimeError("the client refused the update")
        self.updates.append(info)


def test_a_switch_the_client_refuses_is_not_recorded_and_is_retried_on_the_next_check() -> None:
    provider = AutoClusterFailover(
        A, [B], check_interval="500ms", failover_delay=0, switch_back_delay="10s", probe=ScriptedProbe()
    )
    client = Client(refuse=1)
    provider._update = client
    try:
        provider.tick()
        assert provider.current.name == "a", "the provider believes in a switch the client refused"
        failed = [e for e in provider.events.recent if isinstance(e, SwitchFailedEvent)]
        assert len(failed) == 1 and "refused the update" in failed[0].error
        assert (failed[0].from_cluster, failed[0].to_cluster) == ("a", "b")
        assert provider.events.switches() == []
        provider.tick()
        assert provider.current.name == "b"
        assert [u.service_url for u in client.updates] == [B.service_url]
        assert [(s.from_cluster, s.to_cluster) for s in provider.events.switches()] == [("a", "b")]
    finally:
        provider.close()


def test_the_switch_comes_on_the_first_tick_at_the_failover_delay_even_after_a_slow_probe() -> None:
    """check 0.2 s, delay 0.8 s: the 5th failing tick is exactly 0.8 s after the first one was scheduled.

    The first failing probe takes 0.15 s (a timeout): if ``now`` were read after the probes, the failure
    would seem to start 0.15 s late and the switch would slip to the 6th failing tick.
    """
    probe = ScriptedProbe(healthy_ticks=2, slow_s=0.15)
    provider = AutoClusterFailover(
        A,
        [B],
        check_interval="200ms",
        failover_delay="800ms",
        switch_back_delay="10s",
        probe=probe,
        probe_timeout="190ms",
    )
    client = Client()
    provider.initialize(client)
    try:
        deadline = time.monotonic() + 5
        while not client.updates and time.monotonic() < deadline:
            time.sleep(0.02)
        assert client.updates, "no switch within 5 s"
        failing_ticks = probe.rounds - probe.healthy_ticks
        assert failing_ticks == 5, f"switched on failing tick {failing_ticks}, expected the 5th"
    finally:
        provider.close()
