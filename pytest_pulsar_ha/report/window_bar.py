"""A timing verdict drawn as a bar: the expectation's window as a band on a seconds axis, the measured figure as a
tick inside it (green) or outside it (red), so how close a run came to its bounds is seen, not read."""

from __future__ import annotations

import re

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.scenario.quantities import Duration

WITHIN = re.compile(r"within \[([^,\]]+), ([^\]]+)\]")
SECONDS = re.compile(r"^(-?\d+(?:\.\d+)?)s$")
WIDTH, HEIGHT = 240, 18


def window_of(check: CheckResult) -> tuple[float, float, float] | None:
    """(low, high, measured) in seconds for a window verdict with a measured time; None for any other verdict."""
    window, measured = WITHIN.search(check.expected), SECONDS.match(check.measured.strip())
    if window is None or measured is None:
        return None
    try:
        low, high = Duration(window.group(1).strip()).seconds, Duration(window.group(2).strip()).seconds
    except ValueError:
        return None
    return low, high, float(measured.group(1))


def bar_svg(low: float, high: float, measured: float) -> str:
    """An inline SVG: the axis from 0 to a bit past the larger of the window's end and the measured figure."""
    end = max(high, measured, 0.001) * 1.25

    def x(seconds: float) -> float:
        return round(max(0.0, min(seconds, end)) / end * WIDTH, 1)

    inside = low <= measured <= high
    colour = "#1a7f37" if inside else "#c62828"
    label = f"{measured:.2f}s in [{low:g}s, {high:g}s]" if inside else f"{measured:.2f}s outside [{low:g}s, {high:g}s]"
    return (
        f"<svg class='bar' width='{WIDTH}' height='{HEIGHT}' role='img' aria-label='{label}'><title>{label}</title>"
        f"<line x1='0' y1='{HEIGHT - 4}' x2='{WIDTH}' y2='{HEIGHT - 4}' stroke='#999'/>"
        f"<rect x='{x(low)}' y='3' width='{max(1.0, x(high) - x(low))}' height='{HEIGHT - 8}' fill='#cfe8d4'/>"
        f"<line class='measured' x1='{x(measured)}' y1='0' x2='{x(measured)}' y2='{HEIGHT}' stroke='{colour}' "
        "stroke-width='3'/></svg>"
    )
