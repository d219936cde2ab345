"""How a run's verdicts differ from a scenario's announced failure (``expect_failure``): XFAIL only when exactly
the named expectations failed, on evidence, with the figure the entry names (read from the verdict's figures,
never from its text)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.scenario.expected_failure import resolve

if TYPE_CHECKING:
    from pytest_pulsar_ha.checks.deadlocks import Deadlock
    from pytest_pulsar_ha.scenario.modes import ExpectFailure

DEADLOCK_PROBLEM_PREFIX = "steady state after the faults: "
"""how the conductor reports a cluster the steady-state check found deadlocked after the faults"""


def mismatches(
    names: Sequence[str],
    measured: str | None,
    kinds: Sequence[str],
    checks: Sequence[CheckResult],
    figure: Mapping[str, tuple[float, float]] | None = None,
) -> list[str]:
    """How the verdicts ``checks`` (one per expectation, in order) differ from the announced failure: empty when
    exactly the named expectations failed, each on evidence (a verdict that is a lack of evidence shows nothing),
    the first with a measured text matching ``measured`` and a figure in the range ``figure`` gives."""
    if len(checks) != len(kinds):  # no verdict is no evidence of the announced failure
        return [f"{len(checks)} verdict(s) for {len(kinds)} expectation(s): the run did not judge every expectation"]
    named: dict[int, str] = {}
    for name in names:
        place = resolve(name, kinds)
        if isinstance(place, str):
            return [place]
        named[place] = name
    first = next(index for index, name in named.items() if name == names[0]) if names else None
    found: list[str] = []
    for index, check in enumerate(checks):
        announced = named.get(index)
        if announced is not None and check.ok:
            found.append(f"{announced} was expected to fail and held (measured {check.measured})")
        elif announced is not None and not check.evidence:
            found.append(f"{announced} failed on no evidence ({check.measured}): it shows nothing")
        elif announced is None and not check.ok:
            found.append(f"{check.name} (expect item {index}) failed, and only {', '.join(names)} may fail")
    if measured is not None and not found and first is not None:
        check = checks[first]
        if re.search(measured, check.measured) is None:
            found.append(f"{names[0]} failed with {check.measured!r}, which does not match measured: {measured!r}")
    for name, (low, high) in (figure or {}).items():
        if found or first is None:
            break
        value = checks[first].figures.get(name)
        if value is None:
            known = ", ".join(checks[first].figures) or "none"
            found.append(
                f"{names[0]} failed with {checks[first].measured!r}, which has no {name} figure (its: {known})"
            )
        elif not low <= value <= high:
            found.append(f"{names[0]} failed with {name}={value:g}, outside the expected range [{low:g}, {high:g}]")
    return found


def deadlock_differences(
    entry: ExpectFailure,
    deadlocks: Sequence[Deadlock],
    problems: Sequence[str],
    checks: Sequence[CheckResult],
    kinds: Sequence[str],
) -> list[str]:
    """What a deadlocked run (its ``deadlocks``, ``problems`` and verdicts ``checks``) shows that ``entry`` (an
    expected failure naming a known deadlock) does not explain: a deadlock that is not the declared one, a failed
    expectation it does not name, any problem other than the deadlock itself; empty when the deadlock explains
    the whole failure."""
    found: list[str] = []
    for deadlock in deadlocks:
        name = deadlock.known.name if deadlock.known is not None else None
        if name != entry.deadlock:
            what = f"the known deadlock {name}" if name else "a deadlock this harness does not know (no block matched)"
            found.append(f"{deadlock.cluster} deadlocked with {what}, not {entry.deadlock}")
    if len(checks) != len(kinds):
        judged = f"{len(checks)} verdict(s) for {len(kinds)} expectation(s)"
        found.append(f"{judged}: not every expectation was judged")
    explained: set[int] = set()
    for name in entry.names:
        place = resolve(name, kinds)
        if isinstance(place, str):
            return [place]
        explained.add(place)
    for index, check in enumerate(checks):
        if not check.ok and index not in explained:
            found.append(
                f"{check.name} (expect item {index}) failed ({check.measured}), which the deadlock does not explain "
                f"(it may explain: {', '.join(entry.names)})"
            )
    deadlock_lines = {DEADLOCK_PROBLEM_PREFIX + d.describe() for d in deadlocks}
    found += [f"a problem the deadlock does not explain: {p}" for p in problems if p not in deadlock_lines]
    return found
