"""Every shipped switch window is the one its settings derive (:mod:`pytest_pulsar_ha.checks.windows`, the
derivation the runner and the benchmark use too), and every one fails a provider one check interval late (or
early), whatever moment of the provider's check interval the YAML's fault time falls on. Every scenario file is
swept, at any depth of scenarios/, with its drawn faults (`generate:`) drawn from its seed; a window left out says
why (:data:`NOT_DERIVED`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path

import pytest

from pytest_pulsar_ha.checks import evaluate
from pytest_pulsar_ha.checks.windows import (
    RECONNECT_BUDGET_S,
    DerivedWindow,
    check_interval,
    derive_window,
    on_time_switch,
    reconnect_budget,
    window_reference,
)
from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, Event
from pytest_pulsar_ha.nemesis.schedule import fault_offsets, pinned_faults
from pytest_pulsar_ha.nemesis.scheduler import Nemesis, ScheduledFault
from pytest_pulsar_ha.scenario.expectations import MaxDuplicatesExpectation, SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.generate import with_drawn_faults
from pytest_pulsar_ha.scenario.loader import ScenarioCase, load_scenarios
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.tick_grid import TickGrid

ROOT = Path(__file__).resolve().parents[2]
WindowExpectation = SwitchExpectation | SwitchBackExpectation
NOT_DERIVED = {
    "flaky-on-purpose": "flaky by design (mark nightly_demo): its drawn outage of 1-6 s is shorter than the "
    "failover delay in some seeds, so its window is wider than derived and no on-time switch exists then",
}
"""Windows the sweep leaves out, each with its reason (a case named here must exist)."""


def _cases() -> list[ScenarioCase]:
    """Every shipped case, at any depth, with its drawn faults drawn from its own seed."""
    paths = sorted((ROOT / "scenarios").rglob("*.pulsar-ha.yaml"))
    cases = [case for path in paths for case in load_scenarios(path)]
    return [
        dataclasses.replace(case, scenario=with_drawn_faults(case.scenario, case.seed))
        if case.scenario.generate is not None
        else case
        for case in cases
    ]


def _interval(scenario: Scenario) -> float:
    interval = check_interval(scenario)
    assert not isinstance(interval, str), interval
    return interval


def _derived(case: ScenarioCase, expectation: WindowExpectation) -> DerivedWindow:
    window = derive_window(case.scenario, expectation)
    assert isinstance(window, DerivedWindow), f"{case.id}: {window}"
    return window


ALL_WINDOWS = [
    (case, index)
    for case in _cases()
    for index, expectation in enumerate(case.scenario.expect)
    if isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
]


def _cold(case: ScenarioCase, index: int) -> bool:
    expectation = case.scenario.expect[index]
    return isinstance(expectation, SwitchBackExpectation) and expectation.switch_back.cold


WINDOWS = [
    pytest.param(case, index, id=f"{case.id}-{case.scenario.expect[index].kind}#{index}")
    for case, index in ALL_WINDOWS
    if case.id not in NOT_DERIVED and not _cold(case, index)
]
COLD_WINDOWS = [(case, index) for case, index in ALL_WINDOWS if _cold(case, index)]


def test_a_cold_switch_back_is_written_not_derived_and_ends_its_fault_without_a_quiet_end() -> None:
    """A kill, a pause and a hang each have a case whose switch-back meets the cold cluster: its window holds
    Pulsar's recovery, so none is derived, and the nemesis keeps no client off the cluster at its end."""
    from pytest_pulsar_ha.checks.windows import COLD
    from pytest_pulsar_ha.nemesis.schedule import cold_ends

    kinds = set()
    for case, index in COLD_WINDOWS:
        expectation = case.scenario.expect[index]
        assert isinstance(expectation, SwitchBackExpectation)
        assert derive_window(case.scenario, expectation) == COLD
        fault = case.scenario.faults[expectation.switch_back.fault]
        assert fault.facts.quiet_end and expectation.switch_back.fault in cold_ends(case.scenario)
        kinds.add(fault.kind)
    assert kinds == {"kill", "pause", "timeout"}


def test_every_window_left_out_is_a_shipped_one_and_says_why() -> None:
    windowed = {case.id for case, _ in ALL_WINDOWS}
    assert set(NOT_DERIVED) <= windowed
    assert any("/" in str(case.path.relative_to(ROOT / "scenarios")) for case, _ in ALL_WINDOWS), "subdirectories"


def test_there_are_windows_to_check() -> None:
    assert len(WINDOWS) >= 20


@pytest.mark.parametrize(("case", "index"), WINDOWS)
def test_the_shipped_window_is_the_derived_one(case: ScenarioCase, index: int) -> None:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    low, high = (bound.seconds for bound in spec.within)
    window = _derived(case, expectation)
    want_low, want_high = window.low_s, window.high_s
    assert (low, high) == pytest.approx((want_low, want_high), abs=0.001), (
        f"{case.id} ({case.path.name}:{case.line}) declares [{low}s, {high}s]; its settings derive "
        f"[{want_low:.3f}s, {want_high:.3f}s]"
    )


@pytest.mark.parametrize(("case", "index"), WINDOWS)
def test_the_windows_fault_is_pinned_to_the_providers_checks(case: ScenarioCase, index: int) -> None:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    fault, of_end = window_reference(expectation)
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
        quiet = (lambda: contextlib.nullcontext()) if i in ends and fault.facts.quiet_end else None
        out.append(
            ScheduledFault(i, fault.label(i), None, start, end, contextlib.nullcontext, i in starts, i in ends, quiet)
        )
    return out


def reference_moment(case: ScenarioCase, index: int, t0: float, grid: TickGrid) -> float:
    """When the fault the window is measured from starts (or ends), as the nemesis schedules it."""
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    fault, of_end = window_reference(expectation)
    faults = _scheduled(case)
    moments = Nemesis(faults, log=None, grid=lambda: grid).moments(t0, grid)  # type: ignore[arg-type]
    when = next(m for m, is_start, f in moments if f.index == fault and is_start == (0 if of_end else 1))
    if of_end and faults[fault].quiet is not None:  # reopened at the first pinned moment once recovered
        return grid.pin(when + SETTLE_S)
    return when


def _verdict(case: ScenarioCase, index: int, ref: float, of_end: bool, ack_after_s: float) -> bool:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    fault, _ = window_reference(expectation)
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    scenario = case.scenario.model_copy(update={"expect": [expectation]})
    label = scenario.faults[fault].label(fault)
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
    _, of_end = window_reference(expectation)
    interval, budget = _interval(case.scenario), reconnect_budget(case.scenario, expectation)
    grid = TickGrid(1000.0 + 0.137, interval)  # a client built at some moment
    for step in range(PHASES):  # the YAML's times land anywhere in a check interval
        t0 = 1000.0 + step * interval / PHASES
        ref = reference_moment(case, index, t0, grid)
        switch = on_time_switch(case.scenario, expectation, ref, grid) - ref
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
    interval = _interval(case.scenario)
    grid = TickGrid(0.0, interval)
    switches = []
    for step in range(PHASES):
        ref = 10.0 + step * interval / PHASES  # the fault where the YAML put it
        switches.append(on_time_switch(case.scenario, expectation, ref, grid) - ref)
    low, high = min(switches), max(switches) + RECONNECT_BUDGET_S  # the narrowest window every on-time run passes
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
    top_level = case.path.parent == ROOT / "scenarios"  # the failover scenarios; below: PIP-7's, soaks, nightly
    assert len(bounds) == 1 or (not top_level and not bounds), f"{case.id}: one max_duplicates, found {bounds}"
    assert all(bound <= sends for bound in bounds), f"{case.id}: bound {bounds} is above the {sends:.0f} sends"
