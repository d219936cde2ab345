"""Every shipped switch window is the one its settings derive, and every one fails a provider one check
interval late (or early), whatever moment of the provider's check interval the YAML's fault time falls on.

How (README, "How the tests measure a switch"): the nemesis pins the fault a window is measured from half an
interval before a provider check (:mod:`pytest_pulsar_ha.nemesis.tick_grid`). The on-time provider's switch,
S after the fault, then follows from its rules tick by tick (modelled below from each provider's source; ours
run their real decision code). The window is [S - EPS, S + R_BUDGET + EPS]: R, the client's reconnect time from
the switch to the first send acknowledged by the new cluster, was 0.10-0.35 s over 50 clean runs
(`benchmarks/switch_windows.py`); a Java producer also waits out its reconnect backoff (`max_backoff`). A
provider one interval late lands at S + I + R, outside the window for every R in [0, R_BUDGET] when
I > R_BUDGET + 2 EPS.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from pulsar_ha_providers.failover_policy import DEFAULT_TOLERANCE_S, FailoverPolicy
from pulsar_ha_providers.probes import default_probe_timeout
from pytest_pulsar_ha.checks import evaluate
from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, Event
from pytest_pulsar_ha.nemesis.kinds import QUIET_END_KINDS, fault_offsets, pinned_faults
from pytest_pulsar_ha.nemesis.scheduler import Nemesis, ScheduledFault
from pytest_pulsar_ha.nemesis.tick_grid import TickGrid
from pytest_pulsar_ha.spec.expectations import MaxDuplicatesExpectation, SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.spec.faults import fault_label
from pytest_pulsar_ha.spec.loader import ScenarioCase, load_scenarios
from pytest_pulsar_ha.spec.providers import AutoProvider, ControlledProvider, CustomProvider, JavaClient, NativeProvider

ROOT = Path(__file__).resolve().parents[2]
R_BUDGET = 0.4
EPS = 0.05
"""How far the pinned moment and the provider's grid may be off: the nemesis wakes and applies a fault within
milliseconds; the native provider's checks drift by each check's duration (it schedules the next one after)."""
SLOW_TO_FAIL = ("timeout", "pause")  # probes fail only by timing out
WindowExpectation = SwitchExpectation | SwitchBackExpectation


def _cases() -> list[ScenarioCase]:
    return [case for path in sorted((ROOT / "scenarios").glob("*.pulsar-ha.yaml")) for case in load_scenarios(path)]


def _spec(expectation: WindowExpectation) -> tuple[int, bool]:
    """(the fault's index, whether the window is measured from its end)."""
    if isinstance(expectation, SwitchBackExpectation):
        return expectation.switch_back.fault, True
    return expectation.switch.fault, expectation.switch.of == "fault_end"


def interval_of(case: ScenarioCase) -> float:
    provider = case.scenario.provider
    if isinstance(provider, CustomProvider):  # examples/sticky_failover.py says when it checks (tick_grid)
        assert provider.factory == "examples.sticky_failover:build", f"{case.id}: no model of {provider.factory}"
        return float(str(provider.args["interval_s"]))
    assert isinstance(provider, AutoProvider | ControlledProvider | NativeProvider), case.id
    return provider.check_interval.seconds


def _ticks(grid: TickGrid, after: float) -> Iterator[float]:
    tick = grid.next_tick(after)
    while True:
        yield tick
        tick += grid.interval_s


def _policy_switch(provider: AutoProvider, grid: TickGrid, ref: float, back: bool) -> float:
    """Our AutoClusterFailover's own decision code, ticked on the grid (the primary fails from ``ref``, or is
    healthy again from ``ref`` after a switch)."""
    interval = provider.check_interval.seconds
    policy = FailoverPolicy(
        2,
        provider.failover_delay.seconds,
        provider.switch_back_delay.seconds,
        tolerance=min(DEFAULT_TOLERANCE_S, interval / 4),
    )
    if back:  # on the secondary, the primary failing until ref
        first = grid.next_tick(ref) - interval
        policy.tick(first - provider.failover_delay.seconds - interval, {0: False, 1: True})
        decision = policy.tick(first, {0: False, 1: True})
        assert decision is not None
        policy.commit(decision)
    for tick in _ticks(grid, ref):
        decision = policy.tick(tick, {0: back, 1: True})
        if decision is not None:
            return tick
    raise AssertionError("unreachable")


def on_time_switch(case: ScenarioCase, expectation: WindowExpectation, ref: float, grid: TickGrid) -> float:
    """When the on-time provider hands clients the new cluster, the fault starting (or ending) at ``ref``."""
    scenario, provider = case.scenario, case.scenario.provider
    index, of_end = _spec(expectation)
    back = isinstance(expectation, SwitchBackExpectation)
    fault = scenario.faults[index]
    interval = grid.interval_s
    first = grid.next_tick(ref)  # the first check that sees the fault (or its end)
    if isinstance(provider, ControlledProvider):
        if fault.kind == "operator_switch":  # the next poll after the operator's switch
            return first
        assert fault.kind == "url_provider" and not of_end, f"{case.id}: no model for {fault.kind}"
        assert fault.for_ is not None
        return grid.next_tick(ref + fault.for_.seconds)  # the first poll after the bad answers end
    if isinstance(provider, CustomProvider):  # StickyFailover: N failed health checks in a row
        assert not back, f"{case.id}: StickyFailover never switches back"
        return first + (int(str(provider.args["failures"])) - 1) * interval
    if isinstance(provider, NativeProvider):  # probe counts: threshold = ceil(delay / I) checks in a row
        delay = provider.switch_back_delay.seconds if back else provider.failover_delay.seconds
        return first + (max(1, math.ceil(delay / interval)) - 1) * interval
    assert isinstance(provider, AutoProvider), f"{case.id}: no model for provider {provider.kind}"
    if isinstance(scenario.client, JavaClient):  # Java's: nanoTime readings D apart, the first at a failed check
        delay = provider.switch_back_delay.seconds if back else provider.failover_delay.seconds
        ticks = delay / interval
        assert abs(ticks - round(ticks)) > 0.1, (
            f"{case.id}: Java compares two System.nanoTime() readings; with a delay of a whole number of checks "
            "one a hair short waits a check more (seen 5 of 5 times), so the switch moment is not fixed"
        )
        return first + math.ceil(ticks) * interval
    timeout = default_probe_timeout(interval)
    late = timeout if fault.kind in SLOW_TO_FAIL and not back else 0.0  # decided when the probe times out
    return _policy_switch(provider, grid, ref, back) + late


def budget_of(case: ScenarioCase) -> float:
    """R: the switch to the first ack by the new cluster (a Java producer first waits out its backoff)."""
    client = case.scenario.client
    if isinstance(client, JavaClient):
        assert client.max_backoff is not None, f"{case.id}: a Java window needs client.max_backoff"
        return R_BUDGET + client.max_backoff.seconds
    return R_BUDGET


def derived(case: ScenarioCase, expectation: WindowExpectation) -> tuple[float, float]:
    """The window its settings give: [S - EPS, S + R + EPS] with S from a fault pinned on the grid."""
    grid = TickGrid(0.0, interval_of(case))
    ref = grid.pin(10.0)
    switch = on_time_switch(case, expectation, ref, grid) - ref
    return round(switch - EPS, 3), round(switch + budget_of(case) + EPS, 3)


WINDOWS = [
    pytest.param(case, index, id=f"{case.id}-{expectation.kind}#{index}")
    for case in _cases()
    for index, expectation in enumerate(case.scenario.expect)
    if isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
]


def test_there_are_windows_to_check() -> None:
    assert len(WINDOWS) >= 20


@pytest.mark.parametrize(("case", "index"), WINDOWS)
def test_the_shipped_window_is_the_derived_one(case: ScenarioCase, index: int) -> None:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    low, high = (bound.seconds for bound in spec.within)
    want_low, want_high = derived(case, expectation)
    assert (low, high) == pytest.approx((want_low, want_high), abs=0.001), (
        f"{case.id} ({case.path.name}:{case.line}) declares [{low}s, {high}s]; its settings derive "
        f"[{want_low:.3f}s, {want_high:.3f}s]"
    )


@pytest.mark.parametrize(("case", "index"), WINDOWS)
def test_the_windows_fault_is_pinned_to_the_providers_checks(case: ScenarioCase, index: int) -> None:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    fault, of_end = _spec(expectation)
    starts, ends = pinned_faults(case.scenario)
    assert fault in (ends if of_end else starts)


# -- a whole interval of fault phases --------------------------------------------------------------------------

PHASES = 24
SETTLE_S = 7.3  # a quiet end: how long the cluster took to recover before clients may reach it again


def _scheduled(case: ScenarioCase) -> list[ScheduledFault]:
    starts, ends = pinned_faults(case.scenario)
    out = []
    for i, fault in enumerate(case.scenario.faults):
        start, end = fault_offsets(fault)
        quiet = (lambda: contextlib.nullcontext()) if i in ends and fault.kind in QUIET_END_KINDS else None
        out.append(
            ScheduledFault(
                i, fault_label(i, fault), None, start, end, contextlib.nullcontext, i in starts, i in ends, quiet
            )
        )
    return out


def reference_moment(case: ScenarioCase, index: int, t0: float, grid: TickGrid) -> float:
    """When the fault the window is measured from starts (or ends), as the nemesis schedules it."""
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    fault, of_end = _spec(expectation)
    faults = _scheduled(case)
    moments = Nemesis(faults, log=None, grid=lambda: grid).moments(t0, grid)  # type: ignore[arg-type]
    when = next(m for m, is_start, f in moments if f.index == fault and is_start == (0 if of_end else 1))
    if of_end and faults[fault].quiet is not None:  # reopened at the first pinned moment once recovered
        return grid.pin(when + SETTLE_S)
    return when


def _verdict(case: ScenarioCase, index: int, ref: float, of_end: bool, ack_after_s: float) -> bool:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    fault, _ = _spec(expectation)
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    scenario = case.scenario.model_copy(update={"expect": [expectation]})
    label = fault_label(fault, scenario.faults[fault])
    ns = lambda s: int(s * 1e9)  # noqa: E731
    events = [
        Event(ns(ref - 3.0), FAULT_START, "nemesis", detail=label),
        Event(ns(ref), FAULT_END if of_end else FAULT_START, "nemesis", detail=label),
        Event(ns(ref + ack_after_s), ACK, "p", cluster=spec.to, producer="p", seq=1),
    ]
    if not of_end:
        events = events[1:]
    (result,) = evaluate(scenario, sorted(events, key=lambda e: e.ts_ns), Path("-"), _no, primary="cluster-a")
    return result.ok


def _no() -> object:
    raise AssertionError("a switch window needs no Spark")


@pytest.mark.parametrize(("case", "index"), WINDOWS)
def test_the_window_fails_a_provider_one_interval_late_at_every_fault_phase(case: ScenarioCase, index: int) -> None:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    _, of_end = _spec(expectation)
    interval, budget = interval_of(case), budget_of(case)
    grid = TickGrid(1000.0 + 0.137, interval)  # a client built at some moment
    for step in range(PHASES):  # the YAML's times land anywhere in a check interval
        t0 = 1000.0 + step * interval / PHASES
        ref = reference_moment(case, index, t0, grid)
        switch = on_time_switch(case, expectation, ref, grid) - ref
        for reconnect in (0.0, budget / 2, budget):
            where = f"{case.id}: fault phase {step}/{PHASES}, R={reconnect:.2f}s"
            assert _verdict(case, index, ref, of_end, switch + reconnect), f"{where}: the on-time provider fails"
            assert not _verdict(case, index, ref, of_end, switch + interval + reconnect), f"{where}: late passes"
            assert not _verdict(case, index, ref, of_end, switch - interval + reconnect), f"{where}: early passes"


def test_without_pinning_a_provider_one_interval_late_passes_at_some_phase() -> None:
    """Why the faults are pinned: measured from an unpinned fault, the on-time switch moves over a whole
    interval with the phase, and any window wide enough for that lets a late provider through."""
    (case,) = [c for c in load_scenarios(ROOT / "scenarios" / "primary-outage.pulsar-ha.yaml") if "[" not in c.id]
    expectation = case.scenario.expect[0]
    assert isinstance(expectation, SwitchExpectation)
    interval = interval_of(case)
    grid = TickGrid(0.0, interval)
    switches = []
    for step in range(PHASES):
        ref = 10.0 + step * interval / PHASES  # the fault where the YAML put it
        switches.append(on_time_switch(case, expectation, ref, grid) - ref)
    low, high = min(switches), max(switches) + R_BUDGET  # the narrowest window every on-time run passes
    late = [s + interval for s in switches]
    assert any(low <= moment <= high for moment in late)


@pytest.mark.parametrize("case", _cases(), ids=lambda case: case.id)
def test_every_shipped_scenario_states_a_duplicates_bound_no_larger_than_its_sends(case: ScenarioCase) -> None:
    """A bound above the number of sends could never fail (each shipped file gives the bound's reason)."""
    workload = case.scenario.workload
    sends = (
        workload.rate.per_second
        * workload.duration.seconds
        * workload.producers
        * len(workload.topics)
        * workload.namespaces
    )
    bounds = [e.max_duplicates for e in case.scenario.expect if isinstance(e, MaxDuplicatesExpectation)]
    assert len(bounds) == 1, f"{case.id}: expected one max_duplicates expectation, found {bounds}"
    assert bounds[0] <= sends, f"{case.id}: bound {bounds[0]} is above the {sends:.0f} sends"
