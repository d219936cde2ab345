"""How a run's verdicts differ from a scenario's announced failure (``expect_failure``): XFAIL only when exactly
the named expectations failed, with the figure ``measured`` asks for."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.spec.expected_failure import resolve


def mismatches(
    names: Sequence[str], measured: str | None, kinds: Sequence[str], checks: Sequence[CheckResult]
) -> list[str]:
    """How the verdicts ``checks`` (one per expectation, in order) differ from the announced failure: empty when
    exactly the named expectations failed (the first with a measured figure matching ``measured``)."""
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
        elif announced is None and not check.ok:
            found.append(f"{check.name} (expect item {index}) failed, and only {', '.join(names)} may fail")
    if measured is not None and not found and first is not None:
        check = checks[first]
        if re.search(measured, check.measured) is None:
            found.append(f"{names[0]} failed with {check.measured!r}, which does not match measured: {measured!r}")
    return found
