"""A run at a glance on the index page: its acknowledged sends per second as a sparkline, the faults shaded,
send errors in red, its scale written on it (the peak rate, the run's length) — an inline SVG instead of a
thumbnail too small to read. :func:`activity_of` reads it from the history when the evidence is written."""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, SEND_ERROR, Event

BINS_MAX = 120
WIDTH, HEIGHT = 170, 46
TOP, BOTTOM = 12, 34
"""The plot's top and bottom (y); the peak label sits above, the time labels below."""


@dataclass(frozen=True)
class Activity:
    bin_s: float
    acks: tuple[int, ...]
    """acknowledged sends per bin, from the first event"""
    errors: tuple[int, ...]
    faults: tuple[tuple[float, float], ...]
    """(start, end) of each fault in seconds from the first event (the end of the run when it never ended)"""
    span_s: float


def activity_of(events: Sequence[Event]) -> Activity | None:
    """The run's acks and errors in at most :data:`BINS_MAX` bins, and its faults; None for an empty history."""
    if not events:
        return None
    t0 = min(e.ts_ns for e in events)
    span = (max(e.ts_ns for e in events) - t0) / 1e9
    bin_s = max(1.0, math.ceil(span / BINS_MAX))
    acks: Counter[int] = Counter()
    errors: Counter[int] = Counter()
    opened: dict[str, float] = {}
    faults = []
    for event in sorted(events, key=lambda e: e.ts_ns):
        at = (event.ts_ns - t0) / 1e9
        if event.type == ACK:
            acks[int(at / bin_s)] += 1
        elif event.type == SEND_ERROR:
            errors[int(at / bin_s)] += 1
        elif event.type == FAULT_START:
            opened.setdefault(event.detail or "fault", at)
        elif event.type == FAULT_END and (event.detail or "fault") in opened:
            faults.append((opened.pop(event.detail or "fault"), at))
    faults += [(start, span) for start in opened.values()]
    bins = int(span / bin_s) + 1
    return Activity(
        bin_s,
        tuple(acks.get(i, 0) for i in range(bins)),
        tuple(errors.get(i, 0) for i in range(bins)),
        tuple(sorted(faults)),
        span,
    )


def sparkline_svg(activity: Activity) -> str:
    """The sparkline: acks per second (blue), send errors per second (red, when any), faults shaded; the peak
    rate written at its top, 0 and the run's length under it."""
    peak = max((*activity.acks, *activity.errors, 1)) / activity.bin_s
    span = max(activity.span_s, activity.bin_s)

    def x(seconds: float) -> float:
        return round(seconds / span * WIDTH, 1)

    def y(count: int) -> float:
        return round(BOTTOM - count / activity.bin_s / peak * (BOTTOM - TOP), 1)

    def line(counts: tuple[int, ...], colour: str, kind: str) -> str:
        points = " ".join(f"{x((i + 0.5) * activity.bin_s)},{y(n)}" for i, n in enumerate(counts))
        return f"<polyline class='{kind}' points='{points}' fill='none' stroke='{colour}' stroke-width='1.3'/>"

    shades = "".join(
        f"<rect class='fault' x='{x(a)}' y='{TOP}' width='{max(1.0, x(b) - x(a))}' height='{BOTTOM - TOP}' "
        "fill='#f4c7c3'/>"
        for a, b in activity.faults
    )
    errors = line(activity.errors, "#c62828", "errors") if any(activity.errors) else ""
    said = (
        f"acknowledged sends per second over {activity.span_s:.0f}s, peak {peak:g}/s"
        + (f", {sum(activity.errors)} send errors" if any(activity.errors) else "")
        + (f"; {len(activity.faults)} fault(s) shaded" if activity.faults else "")
    )
    return (
        f"<svg class='sparkline' width='{WIDTH}' height='{HEIGHT}' viewBox='0 0 {WIDTH} {HEIGHT}' role='img' "
        f"aria-label='{html.escape(said)}' font-size='9' fill='#555'><title>{html.escape(said)}</title>{shades}"
        f"<line x1='0' y1='{BOTTOM}' x2='{WIDTH}' y2='{BOTTOM}' stroke='#bbb'/>"
        f"{line(activity.acks, '#1565c0', 'acks')}{errors}"
        f"<text x='0' y='9'>acks/s, peak {peak:g}</text>"
        f"<text x='0' y='{HEIGHT - 2}'>0</text>"
        f"<text x='{WIDTH}' y='{HEIGHT - 2}' text-anchor='end'>+{activity.span_s:.0f}s</text></svg>"
    )
