"""The provider mutants against every shipped window of our AutoClusterFailover, on a simulated clock: the real
provider's probe loop and decision code, mutated as ``pulsar-ha mutate`` mutates it; only the network is
simulated (a cluster answers its probe unless an outage or a kill of it holds). The unmutated provider lands in
each window; a mutant is killed by a window when its first switch, plus any reconnect time within the budget R,
cannot land in it."""

from __future__ import annotations

from typing import Any

import pytest

from pulsar_ha_providers.auto_failover import AutoClusterFailover
from pulsar_ha_providers.endpoints import ClusterEndpoint
from pulsar_ha_providers.events import SwitchEvent
from pulsar_ha_providers.probes import Probe
from pytest_pulsar_ha.checks.windows import check_interval, on_time_switch, reconnect_budget
from pytest_pulsar_ha.mutants.providers import PROVIDER_MUTANTS, DelayedPolicy
from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.loader import ScenarioCase
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import AutoProvider, JavaClient
from pytest_pulsar_ha.scenario.tick_grid import TickGrid
from tests.scenario.simulated_windows import shipped_windows, timeline

REFUSED_AT_ONCE = ("outage", "kill")
"""Faults a probe sees at once (the simulated probe fails at its tick; a timeout or a pause would fail it later)."""


def _simulable(scenario: Scenario) -> bool:
    return (
        isinstance(scenario.provider, AutoProvider)
        and not isinstance(scenario.client, JavaClient)
        and bool(scenario.faults)  # not a generated schedule (the nightly demo's)
        and all(f.kind in REFUSED_AT_ONCE for f in scenario.faults)
    )


AUTO = shipped_windows(_simulable)


class SimulatedProbe(Probe):
    kind = "lookup"

    def __init__(self, down: Any) -> None:
        self.down = down

    def check(self, endpoint: ClusterEndpoint, timeout: float) -> None:
        if self.down(endpoint.name):
            raise ConnectionRefusedError(f"{endpoint.name} is down (simulated)")


def first_switch(case: ScenarioCase, index: int, mutant: str | None) -> tuple[float | None, float, TickGrid]:
    """(the first switch to the window's cluster after the pinned moment, that moment, the provider's grid)."""
    scenario = case.scenario
    provider_spec = scenario.provider
    assert isinstance(provider_spec, AutoProvider)
    interval = check_interval(scenario)
    assert isinstance(interval, float)
    grid = TickGrid(0.0, interval)
    ref, faults = timeline(case, index, grid)
    now = [0.0]
    names = [provider_spec.primary, *provider_spec.secondaries]
    endpoints = [ClusterEndpoint(f"pulsar://127.0.0.1:{6650 + i}", name=n) for i, n in enumerate(names)]
    provider = AutoClusterFailover(
        endpoints[0],
        endpoints[1:],
        check_interval=interval,
        failover_delay=provider_spec.failover_delay.seconds,
        switch_back_delay=provider_spec.switch_back_delay.seconds,
    )
    provider.probe = SimulatedProbe(
        lambda name: any(getattr(f, "cluster", None) == name and s <= now[0] < e for f, s, e in faults)
    )
    provider.switch = lambda service_info: None  # type: ignore[method-assign]  # no client: the switch is recorded
    if mutant is not None:
        PROVIDER_MUTANTS[mutant].apply(provider)
    switches: list[tuple[float, str]] = []
    provider.events.subscribe(lambda e: switches.append((now[0], e.to_cluster)) if isinstance(e, SwitchEvent) else None)
    expectation = scenario.expect[index]
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    try:
        tick = grid.next_tick(ref - 40 * interval)
        while tick < ref + 60:
            now[0] = tick
            provider.tick(scheduled_at=tick)
            tick += interval
    finally:
        provider.close()
    at = next((at for at, cluster in switches if at > ref and cluster == spec.to), None)
    return at, ref, grid


def killed(case: ScenarioCase, index: int, mutant: str | None) -> bool:
    at, ref, _ = first_switch(case, index, mutant)
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    lo, hi = (bound.seconds for bound in spec.within)
    if at is None:
        return True  # no switch to the window's cluster: no ack there in the window
    earliest, latest = at - ref, at - ref + reconnect_budget(case.scenario, expectation)
    return latest < lo or earliest > hi


@pytest.mark.parametrize(("case", "index"), AUTO)
def test_the_shipped_provider_survives_and_a_switch_one_interval_off_is_killed(case: ScenarioCase, index: int) -> None:
    at, ref, grid = first_switch(case, index, None)
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    assert at == pytest.approx(on_time_switch(case.scenario, expectation, ref, grid), abs=1e-6)
    assert not killed(case, index, None), f"{case.id}: the shipped provider misses its own window"
    assert killed(case, index, "late"), f"{case.id}: a provider one interval late lands in the window"
    assert killed(case, index, "early"), f"{case.id}: a provider one interval early lands in the window"


BACK = [p for p in AUTO if isinstance(p.values[0].scenario.expect[p.values[1]], SwitchBackExpectation)]


@pytest.mark.parametrize(("case", "index"), BACK)
def test_a_switch_back_window_kills_the_mutants_that_switch_back_wrongly(case: ScenarioCase, index: int) -> None:
    assert killed(case, index, "never_back")
    assert killed(case, index, "back_at_once")


def test_there_are_windows_to_sweep_and_every_mutant_has_a_description() -> None:
    assert len(AUTO) >= 4 and len(BACK) >= 2
    assert all(m.models for m in PROVIDER_MUTANTS.values())


def test_a_delayed_decision_starts_over_when_the_decision_goes_away() -> None:
    from pulsar_ha_providers.failover_policy import FailoverPolicy

    policy = DelayedPolicy(FailoverPolicy(2, failover_delay=1.0, switch_back_delay=1.0), delay=0.5)
    down, up = {0: False, 1: True}, {0: True, 1: True}
    assert [policy.tick(t, down) for t in (0.0, 0.5, 1.0)] == [None, None, None]  # decided at 1.0, held
    assert policy.tick(1.2, up) is None  # the primary is back: the held decision is gone
    assert [policy.tick(t, down) for t in (1.5, 2.0, 2.5)] == [None, None, None]
    decision = policy.tick(3.0, down)  # decided at 2.5 again, handed on 0.5 s later
    assert decision is not None and decision.target == 1


def test_a_survivor_is_explained_by_the_window_that_let_it_through(tmp_path: Any) -> None:
    from pytest_pulsar_ha.checks.result import CheckResult
    from pytest_pulsar_ha.mutants.survivors import explain_survivor
    from pytest_pulsar_ha.scenario.loader import load_scenarios

    path = tmp_path / "loose.pulsar-ha.yaml"
    path.write_text(
        """
scenarios:
  - name: loose
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 500ms,
               failover_delay: 2s, switch_back_delay: 4s}
    workload: {topics: [{name: t}], rate: 10/s, duration: 30s}
    faults:
      - {kind: outage, cluster: cluster-a, at: 5s, for: 12s}
    expect:
      - switch: {to: cluster-b, within: [2200ms, 3700ms], of: fault_start}  # two intervals too wide
      - switch_back: {to: cluster-a, within: [4200ms, 4700ms]}
"""
    )
    scenario = load_scenarios(path)[0].scenario
    checks = [
        CheckResult("switch", True, "first ack within [2.2s, 3.7s]", "2.86s"),
        CheckResult("switch_back", True, "first ack within [4.2s, 4.7s]", "4.36s"),
    ]
    lines = explain_survivor(scenario, "late", checks)
    assert lines[0] == (
        "switch: held, measured 2.86s (expected first ack within [2.2s, 3.7s]); its settings derive "
        "[2.20s, 2.70s]: the scenario's window is 1.00s wider, which let the mutant through"
    )
    assert lines[1].endswith("the window is the one its settings derive, [4.20s, 4.70s]")
    assert explain_survivor(scenario, "swap_two", checks) == [
        "the scenario has no ordering expectation, which is what would catch it"
    ]


@pytest.mark.parametrize("mutant", ["late", "early", "never_back", "back_at_once"])
def test_a_provider_mutant_acts_only_once_a_check_fails(mutant: str) -> None:
    endpoints = [ClusterEndpoint(f"pulsar://127.0.0.1:{6650 + i}", name=n) for i, n in enumerate("ab")]
    provider = AutoClusterFailover(
        endpoints[0], endpoints[1:], check_interval=1.0, failover_delay=2.0, switch_back_delay=2.0
    )
    provider.switch = lambda service_info: None  # type: ignore[method-assign]
    down: set[str] = set()
    provider.probe = SimulatedProbe(lambda name: name in down)
    never_acted = PROVIDER_MUTANTS[mutant].apply(provider)
    try:
        for t in range(3):
            provider.tick(scheduled_at=float(t))
        assert never_acted() == "no check of the provider failed in this run"
        down.add("a")
        provider.tick(scheduled_at=3.0)
        assert never_acted() is None
    finally:
        provider.close()


def test_tcp_only_acts_when_its_probe_disagrees_with_the_shipped_one_not_when_its_own_probe_fails() -> None:
    """A hung broker accepts connections: the TCP probe says healthy while the shipped probe times out. The mutant
    acted there, though its own probe never failed; an outage that both probes see is not the mutant acting."""
    endpoints = [ClusterEndpoint(f"pulsar://127.0.0.1:{6650 + i}", name=n) for i, n in enumerate("ab")]
    provider = AutoClusterFailover(
        endpoints[0], endpoints[1:], check_interval=1.0, failover_delay=2.0, switch_back_delay=2.0
    )
    provider.switch = lambda service_info: None  # type: ignore[method-assign]
    hung: set[str] = set()
    refused: set[str] = set()
    provider.probe = SimulatedProbe(lambda name: name in hung or name in refused)  # the shipped probe
    acted = PROVIDER_MUTANTS["tcp_only"].apply(provider)
    tcp = SimulatedProbe(lambda name: name in refused)  # connects unless the port is closed
    tcp.kind = "tcp"
    provider.probe.answer = tcp  # type: ignore[attr-defined]
    try:
        provider.tick(scheduled_at=0.0)
        refused.add("a")  # both probes fail: the shipped code would have done the same
        provider.tick(scheduled_at=1.0)
        assert acted() == "the TCP probe and the shipped probe never disagreed in this run"
        refused.clear()
        hung.add("a")  # accepts connections, answers nothing
        provider.tick(scheduled_at=2.0)
        assert acted() is None
        assert provider.probe.disagreed == "a: the tcp probe said healthy, the shipped lookup not"  # type: ignore[attr-defined]
    finally:
        provider.close()
