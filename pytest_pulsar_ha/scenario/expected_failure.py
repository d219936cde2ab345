"""An expected failure names the expectation that must fail: which verdicts make a scenario's XFAIL.

A scenario with ``expect_failure`` reports XFAIL only when the expectations it names fail (with the figure
``measured`` asks for, when it asks) and every other expectation holds. A pass, another failing expectation or a
different figure is a failure of the test: the scenario no longer shows what it was written to show (the verdicts
are compared in :mod:`pytest_pulsar_ha.checks.expected_failure`).

Names are expectation kinds (``converged``); where a kind appears more than once, ``kind#n`` names the n-th of
them (1-based, in the order of ``expect``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

REF_PATTERN = r"[a-z_]+(#[1-9][0-9]{0,2})?"


def resolve(name: str, kinds: Sequence[str]) -> int | str:
    """The index in ``expect`` of the expectation ``name`` names (kinds: the kinds of ``expect`` in order), or
    why it names none."""
    kind, _, ordinal = name.partition("#")
    places = [index for index, each in enumerate(kinds) if each == kind]
    if not places:
        present = ", ".join(dict.fromkeys(kinds))
        return f"no {kind} expectation in this scenario (its expectations: {present})"
    if not ordinal:
        if len(places) > 1:
            choices = " or ".join(f"{kind}#{n}" for n in range(1, len(places) + 1))
            return f"{kind} appears {len(places)} times in expect; name one: {choices}"
        return places[0]
    number = int(ordinal)
    if number > len(places):
        return f"{name}: there are {len(places)} {kind} expectation(s)"
    return places[number - 1]


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable regular expression, or None."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"not a regular expression: {exc}"
    return None


FIGURE_NAME_PATTERN = r"[a-z_]+"
SECONDS = "seconds"
"""The figure name of a measured duration (``29.99s``, as ``producers_redirected`` and ``switch`` measure)."""
