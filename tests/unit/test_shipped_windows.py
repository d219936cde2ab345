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
    NativeProvider,
    SwitchBackExpectation,
    SwitchExpectation,
)

ROOT = Path(__file__).resolve().parents[2]
R_BUDGET = 0.4
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
    interval = provider.check_interval.seconds
    if isinstance(provider, NativeProvider):  # probe counts: N failed (good) probes in a row, N = ceil(delay / I)
        delay = provider.switch_back_delay.seconds if back else provider.failover_delay.seconds
        count = math.ceil(delay / interval)
        return (count - 1) * interval, count * interval + R_BUDGET
    assert isinstance(provider, AutoProvider), f"{case.id}: no derivation for provider {provider.kind}"
    timeout = min(0.8 * interval, 5.0)
    if back:
        delay = provider.switch_back_delay.seconds
        if fault.kind == "kill":  # the restarted cluster serves lookups before the recorded end (readiness)
            return 0.0, delay + interval + R_BUDGET
        early = timeout if fault.kind in SLOW_TO_FAIL else 0.0  # a probe in flight at the end counts from its tick
        return delay - early, delay + interval + R_BUDGET
    delay = provider.failover_delay.seconds
    late = timeout if fault.kind in SLOW_TO_FAIL else 0.0
    return delay + late, delay + interval + late + R_BUDGET


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
