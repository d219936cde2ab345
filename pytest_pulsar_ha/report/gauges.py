"""An expectation's measured figure drawn against its bound or window: a small scaled bar (a :class:`Gauge`), from
the verdict's data (its ``window`` and the figure it bounds, :data:`BOUNDED`), never from its words:

* a window (``seconds``): the window as a band on a seconds axis;
* a floor (``ratio``, e.g. ``>= 99%`` of sends acknowledged in time): the share on a percent axis, the band from the
  floor up;
* a ceiling (``duplicates``, ``lost``, ``reorders``, the slowest topic's ``slowest_s``, ...): the count or seconds
  measured, the band from 0 to the bound.

The band is what passes; the measured figure is a tick, green inside the band and red outside; the axis is
labelled at its ends and at the band's edges, so the distance to the bound is seen, not read. An expectation of
another shape (a placement, a metadata value) has no gauge: its row shows its text.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from pytest_pulsar_ha.checks.result import CheckResult

WIDTH, HEIGHT = 168, 30
PAD = 14
"""Room at each end of the axis for the end labels."""


@dataclass(frozen=True)
class Gauge:
    """What passes (``low``..``high``) and what was measured, on an axis from ``start`` to ``end``."""

    low: float
    high: float
    measured: float
    start: float
    end: float
    unit: str
    """``s``, ``%`` or ``""`` (a count)"""
    figure: str
    """the measured figure as the row shows it: ``2.35s``, ``96.0%``, ``duplicates 3``"""

    @property
    def inside(self) -> bool:
        return self.low <= self.measured <= self.high


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least ``value`` (1 for 0 or less)."""
    if value <= 0:
        return 1.0
    power = 10.0 ** int(f"{value:e}".split("e")[1])
    return next(step * power for step in (1, 2, 2.5, 5, 10) if step * power >= value * (1 - 1e-9))


def _unit(value: float, unit: str) -> str:
    return f"{value:g}{unit}"


BOUNDED = ("seconds", "ratio", "lost", "reorders", "duplicates", "slowest_s", "divergences", "acks_elsewhere")
"""The figures a verdict's ``window`` bounds, by the name the checks give them, the first one present counting."""


def _from_data(check: CheckResult) -> Gauge | None:
    """The gauge from the verdict's data (its ``window`` and ``figures``), where the verdict carries them."""
    window, figures = check.window, check.figures
    if window is None or not check.evidence:
        return None
    name = next((n for n in BOUNDED if isinstance(figures.get(n), int | float)), None)
    if name is None:
        return None
    low, high, measured = float(window[0]), float(window[1]), float(figures[name])
    if name == "ratio":
        low, high, measured = low * 100, high * 100, measured * 100
        lowest = min(low, measured)
        start = max(s for s in (0, 50, 80, 90, 95, 98, 99) if s <= lowest - (100 - s) * 0.1 or s == 0)
        return Gauge(low, high, measured, float(start), 100.0, "%", f"{measured:.1f}%")
    top = nice_ceiling(max(high, measured, 1 if name not in ("seconds", "slowest_s") else 0.1) * 1.2)
    if name in ("seconds", "slowest_s"):
        return Gauge(low, high, measured, 0.0, top, "s", f"{measured:.2f}s")
    return Gauge(low, high, measured, 0.0, top, "", f"{name.replace('_', ' ')} {measured:g}")


def gauge_of(check: CheckResult) -> Gauge | None:
    """The check's gauge from its data (its ``window`` and the figure it bounds), or None for a verdict that
    carries no bound or rests on no evidence."""
    return _from_data(check)


def _text_width(text: str) -> float:
    return len(text) * 5.2  # at font-size 9


def _labels(gauge: Gauge, x: Callable[[float], float]) -> str:
    """The band's label over its middle (``4.2-4.7s``, ``>= 99%``, ``<= 10``), kept inside the gauge; the axis's
    ends labelled where they leave it room."""
    low, high = _unit(gauge.low, gauge.unit), _unit(gauge.high, gauge.unit)
    if gauge.low <= gauge.start:
        band = f"≤ {high}"
    elif gauge.high >= gauge.end:
        band = f"≥ {low}"
    else:
        band = f"{gauge.low:g}\u2013{high}"
    half = _text_width(band) / 2
    middle = min(max((x(gauge.low) + x(gauge.high)) / 2, half), WIDTH - half)
    texts = [
        (
            middle - half,
            middle + half,
            f"<text class='tick band' x='{middle:.1f}' y='{HEIGHT - 2}' "
            f"text-anchor='middle' font-weight='bold'>{band}</text>",
        )
    ]
    first, last = _unit(gauge.start, gauge.unit), _unit(gauge.end, gauge.unit)
    for left, right, anchor, text in (
        (0, _text_width(first), "start", first),
        (WIDTH - _text_width(last), WIDTH, "end", last),
    ):
        if all(right < a - 3 or left > b + 3 for a, b, _ in texts):
            at = 0 if anchor == "start" else WIDTH
            texts.append(
                (left, right, f"<text class='tick' x='{at}' y='{HEIGHT - 2}' text-anchor='{anchor}'>{text}</text>")
            )
    return "".join(t for *_, t in texts)


def gauge_svg(gauge: Gauge) -> str:
    """A :data:`WIDTH` x :data:`HEIGHT` inline SVG: the axis with its end labels, the band with its edges
    labelled, the measured tick (green inside, red outside); its title says the same in words."""
    span = max(gauge.end - gauge.start, 1e-9)
    inner = WIDTH - 2 * PAD

    def x(value: float) -> float:
        return round(PAD + (max(gauge.start, min(value, gauge.end)) - gauge.start) / span * inner, 1)

    inside = gauge.inside
    colour = "#1a7f37" if inside else "#c62828"
    band = f"[{_unit(gauge.low, gauge.unit)}, {_unit(gauge.high, gauge.unit)}]"
    said = f"{gauge.figure} {'inside' if inside else 'outside'} {band}"
    texts = _labels(gauge, x)
    return (
        f"<svg class='gauge' width='{WIDTH}' height='{HEIGHT}' viewBox='0 0 {WIDTH} {HEIGHT}' role='img' "
        f"aria-label='{html.escape(said)}' font-size='9' fill='#555'><title>{html.escape(said)}</title>"
        f"<line x1='{PAD}' y1='15' x2='{WIDTH - PAD}' y2='15' stroke='#999'/>"
        f"<rect class='band' x='{x(gauge.low)}' y='5' width='{max(2.0, x(gauge.high) - x(gauge.low))}' "
        "height='10' fill='#b7dfc0'/>"
        f"<line class='measured' x1='{x(gauge.measured)}' y1='2' x2='{x(gauge.measured)}' y2='18' "
        f"stroke='{colour}' stroke-width='3'/>{texts}</svg>"
    )
