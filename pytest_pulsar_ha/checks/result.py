"""The verdict of one expectation of a scenario: its words (``expected``, ``measured``) and its data (``figures``,
``window``, whether it rests on ``evidence``), which is what an outcome is decided from
(:mod:`pytest_pulsar_ha.checks.outcome`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

SECONDS = "seconds"
"""The figure of a window: the seconds from the reference moment to the first ack by the target (the slowest
producer's)."""
FASTEST = "fastest_s"
"""The figure of a window: the fastest producer's seconds to its first ack by the target."""
TARGET_ACKS = "target_acks"
"""The figure of a window: how many sends the target acknowledged after the reference moment (0: never reached)."""
PRODUCERS = "producers"
"""The figure of a window: how many producers sent after the reference moment."""
PRODUCERS_REACHED = "producers_reached"
"""The figure of a window: how many of them had a send acknowledged by the target after it."""

Side = Literal["late", "early"]


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    expected: str
    measured: str
    details: str = ""
    figures: Mapping[str, float] = field(default_factory=dict)
    """What was measured, by name (``lost``, ``reorders``, ``seconds``, ...): the numbers ``measured`` says in
    words; an expected failure's ``figure`` is read from here, never from the text."""
    window: tuple[float, float] | None = None
    """The bound the figure was judged against, in the figure's unit (a window's seconds, a bound's count)."""
    evidence: bool = True
    """False when the verdict is a lack of evidence (nothing to judge, the history not usable): such a failure
    shows nothing, so it never matches an expected failure and never kills a mutant."""
    measured_from: tuple[str, int, str] | None = None
    """A window's target cluster and reference moment: (cluster, fault index, ``start`` or ``end``); the run page
    draws the window on that cluster's lane from that moment."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "expected": self.expected,
            "measured": self.measured,
            "details": self.details,
            "figures": dict(self.figures),
            "window": None if self.window is None else list(self.window),
            "evidence": self.evidence,
            "measured_from": None if self.measured_from is None else list(self.measured_from),
        }


def no_evidence(name: str, expected: str, measured: str) -> CheckResult:
    """A failed verdict that rests on no evidence (``measured`` says what is missing)."""
    return CheckResult(name, False, expected, measured, evidence=False)


def missed_sides(check: CheckResult) -> frozenset[Side]:
    """On which side a failed window verdict missed its window, from its figures: ``late`` (a producer after the
    window's end, or one that never reached the target), ``early`` (a producer before its start); empty for a
    verdict that held, rests on no evidence or is not a window's."""
    figures = check.figures
    if check.ok or not check.evidence or check.window is None or not {SECONDS, TARGET_ACKS} & set(figures):
        return frozenset()
    lo, hi = check.window
    sides: set[Side] = set()
    seconds = figures.get(SECONDS)
    never = figures.get(TARGET_ACKS) == 0 or figures.get(PRODUCERS_REACHED, 1) < figures.get(PRODUCERS, 1)
    if never or (seconds is not None and seconds > hi):
        sides.add("late")
    if figures.get(FASTEST, seconds if seconds is not None else lo) < lo:
        sides.add("early")
    return frozenset(sides)
