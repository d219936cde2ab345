"""Why a mutant survived: the expectations that should have caught it, what they measured, and, for a window,
how much wider than its settings derive the scenario wrote it (the slack that let the mutant through)."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_pulsar_ha.checks.outcome import Mutant
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.mutants.catalogue import FIGURE, SEEN_BY, SIDE
from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.model import Scenario

CATCHERS = SEEN_BY
"""The expectation kinds that should kill each mutant."""


def _slack(scenario: Scenario, expectation: SwitchExpectation | SwitchBackExpectation) -> str:
    from pytest_pulsar_ha.checks.windows import EPS, DerivedWindow, derive_window

    spec = expectation.switch_back if isinstance(expectation, SwitchBackExpectation) else expectation.switch
    low, high = (bound.seconds for bound in spec.within)
    derived = derive_window(scenario, expectation)
    if not isinstance(derived, DerivedWindow):
        return f"; no window derives from its settings ({derived})"
    wider = (high - low) - (derived.high_s - derived.low_s)
    if wider <= EPS:
        return f"; the window is the one its settings derive, [{derived.low_s:.2f}s, {derived.high_s:.2f}s]"
    return (
        f"; its settings derive [{derived.low_s:.2f}s, {derived.high_s:.2f}s]: the scenario's window is {wider:.2f}s "
        "wider, which let the mutant through"
    )


def explain_survivor(scenario: Scenario, mutant: str, checks: Sequence[CheckResult]) -> list[str]:
    """One line per expectation of ``scenario`` that should have killed ``mutant`` (with its figure), or the one
    line saying the scenario has none."""
    kinds = CATCHERS[mutant]
    by_kind: dict[str, list[CheckResult]] = {}
    for result in checks:
        by_kind.setdefault(result.name, []).append(result)
    seen: dict[str, int] = {}
    lines = []
    for expectation in scenario.expect:
        kind = expectation.kind
        index = seen[kind] = seen.get(kind, -1) + 1
        if kind not in kinds:
            continue
        found = by_kind.get(kind, [])
        check = found[index] if index < len(found) else None
        line = f"{kind}: held" + ("" if check is None else f", measured {check.measured} (expected {check.expected})")
        if isinstance(expectation, SwitchExpectation | SwitchBackExpectation):
            line += _slack(scenario, expectation)
        elif kind == "max_duplicates":
            line += "; a bound this loose allows the mutant's extra delivery"
        lines.append(line)
    if not lines:
        lines.append(f"the scenario has no {' or '.join(kinds)} expectation, which is what would catch it")
    return lines


def judged_as(mutant: str) -> Mutant:
    """What the outcome is decided with for a run made with ``mutant``: the expectations able to see it, and
    :func:`explain_survivor` for when it survives."""
    return Mutant(
        mutant,
        SEEN_BY[mutant],
        lambda scenario, checks: explain_survivor(scenario, mutant, checks),
        side=SIDE.get(mutant),
        figure=FIGURE.get(mutant),
    )
