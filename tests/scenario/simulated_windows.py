"""Shipped windows on a simulated clock: the (case, expectation) pairs a test sweeps, and each fault's start and
end with the measured one pinned on the provider's tick grid (as the nemesis pins it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.checks.windows import window_reference
from pytest_pulsar_ha.nemesis.schedule import fault_offsets
from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.loader import ScenarioCase, load_scenarios
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.tick_grid import TickGrid

ROOT = Path(__file__).resolve().parents[2]


def shipped_windows(match: Callable[[Scenario], bool]) -> list[Any]:
    cases = [c for p in sorted((ROOT / "scenarios").rglob("*.pulsar-ha.yaml")) for c in load_scenarios(p)]
    return [
        pytest.param(case, index, id=f"{case.id}-{expectation.kind}#{index}")
        for case in cases
        if match(case.scenario)
        for index, expectation in enumerate(case.scenario.expect)
        if isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
        and not (isinstance(expectation, SwitchBackExpectation) and expectation.switch_back.cold)  # not derived
    ]


def timeline(case: ScenarioCase, index: int, grid: TickGrid) -> tuple[float, list[tuple[Any, float, float]]]:
    """(the pinned moment the window is measured from, each fault with its start and end on the simulated
    clock): the measured fault pinned on the grid, the others at their distance from it in the YAML."""
    expectation = case.scenario.expect[index]
    assert isinstance(expectation, SwitchExpectation | SwitchBackExpectation)
    measured, of_end = window_reference(expectation)
    start, end = fault_offsets(case.scenario.faults[measured])
    ref = grid.pin(100.0 + (end if of_end else start))
    shift = ref - 100.0 - (end if of_end else start)
    faults = []
    for fault in case.scenario.faults:
        at, until = fault_offsets(fault)
        faults.append((fault, 100.0 + at + shift, 100.0 + until + shift))
    return ref, faults
