"""Every shipped switch window is the one its settings derive (the derivation written next to it, as code).

The rule (README, "How the tests measure a switch"): R, the client's reconnect time from the provider's switch
to the first send acknowledged by the new cluster, gets a budget of 0.4 s (0.10-0.35 s measured over 50 clean
runs with `benchmarks/switch_windows.py`); a fault is first seen by a probe tick within one check interval I of
its start. A window wider than this rule lets a late provider pass; a narrower one fails clean runs.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from pytest_pulsar_ha.scenario.loader import ScenarioCase, load_scenarios
from pytest_pulsar_ha.scenario.model import (
    AutoProvider,
    ControlledProvider,
    CustomProvider,
    JavaClient,
    MaxDuplicatesExpectation,
    NativeProvider,
    SwitchBackExpectation,
    SwitchExpectation,
)

ROOT = Path(__file__).resolve().parents[2]
R_BUDGET = 0.4
R_AFTER_RESTART = 5.0
"""The client's reconnect time after switching back to a cluster that was killed and restarted: the restarted
broker answers lookups before it has recovered the topic's ledger, so the first ack waits for Pulsar's recovery
(measured 0.10-4.54 s in 10 rounds, and 5.58 s - 2.27 s = 3.3 s in a clean-clone CI run)."""
SLOW_TO_FAIL = ("timeout", "pause")  # probes fail only by timing out


def _cases() -> list[ScenarioCase]:
    return [case for path in sorted((ROOT / "scenarios").glob("*.pulsar-ha.yaml")) for case in load_scenarios(path)]


def derived(case: ScenarioCase, expectation: SwitchExpectation | SwitchBackExpectation) -> tuple[float, float]:
    scenario = case.scenario
    provider = scenario.provider
    back = isinstance(expectation, SwitchBackExpectation)
    spec = expectation.switch_back if back else expectation.switch
    fault = scenario.faults[spec.fault]
    if isinstance(provider, ControlledProvider):
        interval = provider.check_interval.seconds
        deadline = min(0.8 * interval, 10.0)
        if fault.kind == "operator_switch":  # the next poll after the operator's switch
            return 0.0, interval + R_BUDGET
        if fault.kind == "url_provider":  # nothing before the bad answers end; then the next good poll
            length = fault.for_.seconds
            return length, length + interval + deadline + R_BUDGET
    if isinstance(provider, CustomProvider):  # examples/sticky_failover.py: N failed health checks in a row
        assert provider.factory == "examples.sticky_failover:build", f"{case.id}: no derivation for {provider.factory}"
        assert not back, f"{case.id}: StickyFailover never switches back"
        interval, count = float(str(provider.args["interval_s"])), int(str(provider.args["failures"]))
        return (count - 1) * interval, count * interval + R_BUDGET
    interval = provider.check_interval.seconds
    if isinstance(scenario.client, JavaClient):
        return java_auto_window(case, provider, back, fault.kind)
    if isinstance(provider, NativeProvider):  # probe counts: N failed (good) probes in a row, N = ceil(delay / I)
        delay = provider.switch_back_delay.seconds if back else provider.failover_delay.seconds
        count = math.ceil(delay / interval)
        return (count - 1) * interval, count * interval + R_BUDGET
    assert isinstance(provider, AutoProvider), f"{case.id}: no derivation for provider {provider.kind}"
    timeout = min(0.8 * interval, 5.0)
    if back:
        delay = provider.switch_back_delay.seconds
        if fault.kind == "kill":  # the restarted cluster serves lookups before the recorded end (readiness)
            return 0.0, delay + interval + R_AFTER_RESTART
        early = timeout if fault.kind in SLOW_TO_FAIL else 0.0  # a probe in flight at the end counts from its tick
        return delay - early, delay + interval + R_BUDGET
    delay = provider.failover_delay.seconds
    late = timeout if fault.kind in SLOW_TO_FAIL else 0.0
    return delay + late, delay + interval + late + R_BUDGET


JAVA_INITIAL_BACKOFF = 0.1
"""The Java client's first reconnect backoff (ClientBuilder.startingBackoffInterval, 100 ms); it doubles after
each failed attempt."""


def java_auto_window(case: ScenarioCase, provider: object, back: bool, fault_kind: str) -> tuple[float, float]:
    """Java's AutoClusterFailover (pulsar-client 4.0.8): it notes System.nanoTime() at its first failed probe (a
    tick within I of the fault's start) and switches on the first later tick whose reading is at least D after
    it: N = ceil(D / I) ticks later, at the earliest N x I after the fault began. When D is a whole number of
    ticks the two readings are D apart give or take how long each probe took, and one a hair short waits a tick
    more (5 of 5 rounds here: "down for 2497-2500 ms"): the switch comes by I + (N + 1) I.

    The switch does not make Java's producer reconnect: while the primary refused it, its reconnect backoff
    doubled from 100 ms (attempts 0.1, 0.3, 0.7, 1.5, 3.1 s ... after the fault), and its first send to the
    backup waits for the end of the sleep in progress, at most the next doubling after the switch. Switching
    back, clients are connected to the secondary and follow at once (R). Windows: switch [N I, S + b(S) + R]
    with S = I + (N + extra) I and b(S) the first backoff sleep longer than S; switch back [N I, S + R]."""
    assert isinstance(provider, AutoProvider), f"{case.id}: the Java client runs Java's AutoClusterFailover here"
    assert fault_kind not in SLOW_TO_FAIL, f"{case.id}: no derivation for Java's 30 s TCP probe timing out"
    interval = provider.check_interval.seconds
    delay = provider.switch_back_delay.seconds if back else provider.failover_delay.seconds
    ticks = math.ceil(delay / interval - 1e-9)
    extra = 1 if math.isclose(ticks * interval, delay) else 0
    latest = interval + (ticks + extra) * interval
    if back:
        return ticks * interval, latest + R_BUDGET
    backoff = JAVA_INITIAL_BACKOFF * 2 ** math.ceil(math.log2(latest / JAVA_INITIAL_BACKOFF + 1))
    return ticks * interval, latest + backoff + R_BUDGET


WINDOWS = [
    pytest.param(case, index, id=f"{case.id}-{expectation.kind}#{index}")
    for case in _cases()
    for index, expectation in enumerate(case.scenario.expect)
    if isinstance(expectation, (SwitchExpectation, SwitchBackExpectation))
]


def test_there_are_windows_to_check() -> None:
    assert len(WINDOWS) >= 15


@pytest.mark.parametrize(("case", "index"), WINDOWS)
def test_the_shipped_window_is_the_derived_one(case: ScenarioCase, index: int) -> None:
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, (SwitchExpectation, SwitchBackExpectation))
    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    low, high = (bound.seconds for bound in spec.within)
    want_low, want_high = derived(case, expectation)
    assert (low, high) == pytest.approx((want_low, want_high), abs=0.001), (
        f"{case.id} ({case.path.name}:{case.line}) declares [{low}s, {high}s]; its settings derive "
        f"[{want_low:.3f}s, {want_high:.3f}s]"
    )


# -- the shipped primary-outage window against a late provider -------------------------------------------------
#
# In the 10 clean runs of `benchmarks/switch_windows.py` the outage began 0.33-0.45 s before the next probe tick
# (phase) and the client reconnected in R = 0.10-0.15 s. A provider that switches on time lands at
# phase + D + R; one that is a check interval late at phase + D + I + R.


def _primary_outage() -> ScenarioCase:
    (case,) = [c for c in load_scenarios(ROOT / "scenarios" / "primary-outage.pulsar-ha.yaml") if "[" not in c.id]
    return case


def _switch_verdict(first_ack_after_fault_s: float) -> bool:
    from pytest_pulsar_ha.checks import evaluate
    from pytest_pulsar_ha.history import ACK, FAULT_START, Event

    scenario = _primary_outage().scenario
    scenario = scenario.model_copy(update={"expect": [e for e in scenario.expect if e.kind == "switch"]})
    label = "#0 outage cluster-a"
    t0 = 1_700_000_000 * 1_000_000_000
    events = [
        Event(t0, FAULT_START, "nemesis", cluster="cluster-a", detail=label),
        Event(t0 + int(first_ack_after_fault_s * 1e9), ACK, "p", cluster="cluster-b", producer="p", seq=1),
    ]
    (result,) = evaluate(scenario, events, Path("-"), _no, primary="cluster-a")
    return result.ok


def _no() -> object:
    raise AssertionError("the switch window needs no Spark")


@pytest.mark.parametrize("phase", [0.33, 0.39, 0.45, 0.5])
@pytest.mark.parametrize("reconnect", [0.10, 0.15, 0.35])
def test_an_on_time_switch_passes_the_shipped_window(phase: float, reconnect: float) -> None:
    assert _switch_verdict(phase + 2.0 + reconnect)


@pytest.mark.parametrize("phase", [0.33, 0.39, 0.45, 0.5])
@pytest.mark.parametrize("reconnect", [0.10, 0.15])
def test_a_switch_one_check_interval_late_fails_the_shipped_window(phase: float, reconnect: float) -> None:
    assert not _switch_verdict(phase + 2.0 + 0.5 + reconnect)


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
