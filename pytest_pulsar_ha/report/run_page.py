"""A run's interactive page (``run.html``): the history as a timeline, one lane per cluster, self-contained and
offline (inline SVG, a few lines of JavaScript, no library, no network).

* each lane draws its cluster's acks and receipts per second (and send errors, on the client lane) on its own
  scale, read on the y-axis beside the timeline (:mod:`~pytest_pulsar_ha.report.run_axes`); a small run
  (:data:`~pytest_pulsar_ha.report.run_events.SINGLE_EVENTS_MAX` message events at most) also draws each send,
  ack, failed send and receipt as a tick that names its message, cluster and latency;
* faults are shaded bands on every lane they name (all lanes for a fault of no one cluster), a quiet end (the
  fault undone, clients kept off until the cluster settled) a dashed band after its fault's, switches and failed
  switches vertical lines, probes that failed small marks; each timing verdict's window is drawn on the lane of
  its target cluster with the measured point (green inside, red outside);
* a legend above names every kind of mark drawn; the time axis below counts seconds since the first event;
* hovering any mark shows what it is (its ``<title>``, also written under the timeline); the wheel zooms the
  time axis, dragging pans it, a double click resets it, and the time axis follows;
* under it each expectation is a row (failures first), its figure drawn against its bound or window and its
  full text on demand (:mod:`~pytest_pulsar_ha.report.expectation_rows`), then the facts; the history itself
  (every event) is a link away.

Rates are counted in :data:`BIN_S` bins, so a history of a million events draws in a few thousand points.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.history import (
    ACK,
    FAULT_END,
    FAULT_START,
    PROBE,
    RECEIVE,
    SEND_ERROR,
    SWITCH,
    SWITCH_FAILED,
    UNDO_START,
    Event,
)
from pytest_pulsar_ha.report.expectation_rows import STYLE as EXPECTATION_STYLE
from pytest_pulsar_ha.report.expectation_rows import expectation_rows
from pytest_pulsar_ha.report.gauges import nice_ceiling
from pytest_pulsar_ha.report.run_axes import (
    AXIS_W,
    RATE_COLOURS,
    RECEIPT_DASH,
    SCRIPT,
    SERIES,
    LaneAxis,
    axis_svg,
    gridlines,
    lane_value_y,
    legend_html,
    time_axis_svg,
)
from pytest_pulsar_ha.report.run_events import message_events, single_event_marks
from pytest_pulsar_ha.report.window_bar import window_of

BIN_S = 0.5
WIDTH = 1100
"""The timeline's width in its own units (it is drawn to the page's width)."""
LANE_H = 90
PAD = 8
"""Units left free at each end of the time axis."""
FAULT_NUMBER = re.compile(r"^#(\d+)\b")
STYLE = (
    "body{font-family:sans-serif;margin:1.5em} td,th{border:1px solid #ccc;padding:4px;text-align:left;"
    "vertical-align:top;overflow-wrap:anywhere} .chart{display:grid;grid-template-columns:%(axis)dpx minmax(0,1fr)}"
    " #timeline{outline:1px solid #ddd;cursor:grab;width:100%%;display:block} #time-axis{overflow:visible}"
    " #timeline line{vector-effect:non-scaling-stroke}"
    " .time-unit{font-size:10px;color:#555;text-align:right;padding-right:8px}"
    " #legend{list-style:none;padding:0;margin:.5em 0;display:flex;flex-wrap:wrap;gap:.3em 1.4em;font-size:90%%}"
    " #legend svg{vertical-align:middle} #legend .means{color:#555} .headline.failed{color:#c62828}"
    " .headline.ok{color:#1a7f37} #expectations{max-width:1100px} .facts th{font-weight:normal;color:#555}"
)


def _lanes(events: Sequence[Event]) -> list[str]:
    named = sorted({e.cluster for e in events if e.cluster and e.type in (ACK, RECEIVE, FAULT_START, PROBE)})
    return [*named, "clients"]


def _all_bins(events: Sequence[Event], t0: int) -> dict[tuple[str, str | None], Counter[int]]:
    """Events per :data:`BIN_S` bin, by (type, cluster), for the rated types, in one pass over the history."""
    bins: dict[tuple[str, str | None], Counter[int]] = {}
    for e in events:
        if e.type in (ACK, RECEIVE, SEND_ERROR):
            bins.setdefault((e.type, e.cluster), Counter())[int((e.ts_ns - t0) / 1e9 / BIN_S)] += 1
    return bins


def _errors(bins: dict[tuple[str, str | None], Counter[int]]) -> Counter[int]:
    total: Counter[int] = Counter()
    for (kind, _), counts in bins.items():
        if kind == SEND_ERROR:
            total.update(counts)
    return total


def _lane_axes(lanes: list[str], rated: dict[tuple[str, str | None], Counter[int]]) -> list[LaneAxis]:
    """Each lane's scale: its peak rate over the lines it draws, rounded up to a nice number."""
    axes = []
    for name in lanes:
        if name == "clients":
            drawn, what = [_errors(rated)], "send errors per second"
        else:
            drawn, what = [rated.get((kind, name), Counter()) for kind in (ACK, RECEIVE)], "acks, receipts per second"
        peak = max((max(b.values(), default=0) for b in drawn), default=0) / BIN_S
        axes.append(LaneAxis(name, nice_ceiling(peak), what if peak else what + " (none)"))
    return axes


def _numbered(events: Sequence[Event], kind: str) -> dict[int, Event]:
    """The event of ``kind`` of each fault, by the fault's number (its ``#N`` label); the first where several."""
    found: dict[int, Event] = {}
    for e in events:
        if e.type == kind and (m := FAULT_NUMBER.match(e.detail or "")) is not None:
            found.setdefault(int(m.group(1)), e)
    return found


def _quiet_end(
    start: Event, undo: Event, end: Event | None, lanes: Sequence[str | None], x: Any, lane_y: Any, t0: int
) -> list[str]:
    """A fault's quiet end, a dashed band from its ``undo_start`` to its ``fault_end``: the fault undone, the clients
    kept off until the cluster settled (the switch back is timed from its end)."""
    left = x(undo.ts_ns)
    right = x(end.ts_ns) if end is not None else left + 2
    until = "the end" if end is None else f"+{(end.ts_ns - t0) / 1e9:.2f}s"
    title = (
        f"{html.escape(start.detail or '')}: quiet end, undo began at +{(undo.ts_ns - t0) / 1e9:.2f}s, clients "
        f"kept off until {until}"
    )
    return [
        f"<rect class='quiet-end' x='{left}' y='{lane_y(name or 'clients') + 4}' width='{max(2.0, right - left)}' "
        f"height='{LANE_H - 8}' fill='#fbe9e7' stroke='#e57373' stroke-dasharray='4 3'><title>{title}</title></rect>"
        for name in lanes
    ]


def render_run_page(
    events: Sequence[Event],
    checks: Sequence[Any],
    facts: dict[str, str],
    title: str,
    path: Path,
    history_link: str = "history.jsonl",
) -> Path:
    """Write the run's page to ``path`` and return it."""
    t0 = min(e.ts_ns for e in events)
    span = max(1e-9, (max(e.ts_ns for e in events) - t0) / 1e9)
    lanes = _lanes(events)
    height = LANE_H * len(lanes)
    scale = (WIDTH - 2 * PAD) / span
    drawn: set[str] = set()

    def x(ts_ns: int | float) -> float:
        return round(PAD + (ts_ns - t0) / 1e9 * scale, 1)

    def lane_y(name: str) -> int:
        return lanes.index(name) * LANE_H if name in lanes else (len(lanes) - 1) * LANE_H

    rated = _all_bins(events, t0)
    axes = _lane_axes(lanes, rated)
    parts: list[str] = [
        f"<rect class='lane' x='0' y='{lane_y(name) + 4}' width='{WIDTH}' height='{LANE_H - 8}' fill='#fafafa'/>"
        for name in lanes
    ]
    parts += gridlines(axes, LANE_H, WIDTH)
    # faults: shaded from start to end (to the undo, then the quiet end) on the lane they name (every lane when none)
    starts, ends, undos = (_numbered(events, kind) for kind in (FAULT_START, FAULT_END, UNDO_START))
    for index, start in starts.items():
        end, undo = ends.get(index), undos.get(index)
        right = x(end.ts_ns) if end is not None else x(start.ts_ns) + 2
        targets = [start.cluster] if start.cluster in lanes else lanes
        if undo is not None and start.ts_ns <= undo.ts_ns and (end is None or undo.ts_ns <= end.ts_ns):
            parts += _quiet_end(start, undo, end, targets, x, lane_y, t0)
            drawn.add("quiet-end")
            right = x(undo.ts_ns)
        drawn.add("fault")
        for name in targets:
            y = lane_y(name or "clients")
            parts.append(
                f"<rect class='fault' x='{x(start.ts_ns)}' y='{y + 4}' width='{max(2.0, right - x(start.ts_ns))}' "
                f"height='{LANE_H - 8}' fill='#f4c7c3' opacity='0.6'><title>{html.escape(start.detail or '')}: "
                f"+{(start.ts_ns - t0) / 1e9:.2f}s to "
                f"{'+' + format((end.ts_ns - t0) / 1e9, '.2f') + 's' if end else 'the end'}"
                f"{'' if undo is None else ', its undo began at +' + format((undo.ts_ns - t0) / 1e9, '.2f') + 's'}"
                "</title></rect>"
            )
    for name, axis in zip(lanes, axes, strict=True):  # rates per second, per lane, on the lane's scale
        y = lane_y(name)
        kinds = [SEND_ERROR] if name == "clients" else [ACK, RECEIVE]
        for kind in kinds:
            bins = _errors(rated) if kind == SEND_ERROR else rated.get((kind, name), Counter())
            if not bins:
                continue
            points = " ".join(
                f"{x(t0 + (i + 0.5) * BIN_S * 1e9)},{lane_value_y(y, LANE_H, axis.top, bins.get(i, 0) / BIN_S)}"
                for i in range(int(span / BIN_S) + 1)  # to the run's end: no count after the last is a zero
            )
            dash = f" stroke-dasharray='{RECEIPT_DASH}'" if kind == RECEIVE else ""
            drawn.add(f"rate-{kind}")
            parts.append(
                f"<polyline class='rate {kind}' points='{points}' fill='none' stroke='{RATE_COLOURS[kind]}' "
                f"stroke-width='1.5' vector-effect='non-scaling-stroke'{dash}><title>{SERIES[f'rate-{kind}'].name} "
                f"on {html.escape(name)} (peak {max(bins.values()) / BIN_S:g})</title></polyline>"
            )
    singles = single_event_marks(events, t0, x, lane_y, LANE_H)
    parts += singles
    drawn |= {f"event-{e.type}" for e in message_events(events)} if singles else set()
    for event in events:  # switches and failed probes
        if event.type in (SWITCH, SWITCH_FAILED):
            colour = "#6a1b9a" if event.type == SWITCH else "#ef6c00"
            what = "switch" if event.type == SWITCH else "failed switch"
            drawn.add(event.type)
            parts.append(
                f"<line class='{event.type}' x1='{x(event.ts_ns)}' y1='0' x2='{x(event.ts_ns)}' y2='{height}' "
                f"stroke='{colour}' stroke-width='2' vector-effect='non-scaling-stroke'><title>{what} to "
                f"{html.escape(event.cluster or '?')} at +{(event.ts_ns - t0) / 1e9:.2f}s: "
                f"{html.escape(event.detail or '')}</title></line>"
            )
        elif event.type == PROBE and event.cluster in lanes and '"ok": false' in (event.detail or ""):
            y = lane_y(event.cluster or "")
            drawn.add("probe-failed")
            parts.append(
                f"<circle class='probe-failed' cx='{x(event.ts_ns)}' cy='{y + 10}' r='2.5' fill='#c62828'>"
                f"<title>probe of {html.escape(event.cluster or '')} failed at +{(event.ts_ns - t0) / 1e9:.2f}s: "
                f"{html.escape((event.detail or '')[:200])}</title></circle>"
            )
    for check in checks:  # each timing verdict's window, on its target's lane, with the measured point
        window = window_of(check)
        if window is None or check.measured_from is None:
            continue
        target, fault_index, of = check.measured_from
        moment = (starts if of == "start" else ends).get(fault_index)
        if moment is None:
            continue
        low, high, measured = window
        y = lane_y(target)
        colour = "#1a7f37" if check.ok else "#c62828"
        left, right, point = (x(moment.ts_ns + s * 1e9) for s in (low, high, measured))
        drawn |= {"window", "measured"}
        parts.append(
            f"<rect class='window' x='{left}' y='{y + LANE_H - 14}' width='{max(1.0, right - left)}' height='8' "
            f"fill='#a5d6a7'><title>{html.escape(check.name)} window {html.escape(check.expected)}</title></rect>"
            f"<circle class='measured' cx='{point}' cy='{y + LANE_H - 10}' r='4' fill='{colour}'><title>"
            f"{html.escape(check.name)} measured {html.escape(check.measured)}</title></circle>"
        )
    failed = [c.name for c in checks if not c.ok]
    headline = (
        f"<p class='headline failed'>✗ {len(failed)} of {len(checks)} expectations failed: "
        f"{html.escape(', '.join(failed))}</p>"
        if failed
        else f"<p class='headline ok'>✓ {len(checks)} of {len(checks)} expectations held</p>"
        if checks
        else ""
    )
    fact_rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in facts.items())
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
        + STYLE % {"axis": AXIS_W}
        + EXPECTATION_STYLE
        + f"</style></head><body><h1>{html.escape(title)}</h1>{headline}"
        "<p>Wheel: zoom; drag: pan; double click: reset; hover anything for what it is. Every event: "
        f"<a href='{html.escape(history_link)}'>{html.escape(history_link)}</a>.</p>"
        + legend_html(drawn)
        + "<div class='chart'>"
        + axis_svg(axes, LANE_H, height)
        + f"<svg id='timeline' xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{height}' "
        f"viewBox='0 0 {WIDTH} {height}' preserveAspectRatio='none' style='height:{height}px'>{''.join(parts)}"
        "</svg><div class='time-unit'>seconds since the first event</div>"
        + time_axis_svg(span, PAD, scale, WIDTH)
        + "</div><p id='hover' aria-live='polite'>Hover a mark to see what it is.</p>"
        f"<h2>Expectations</h2><div id='expectations'>{expectation_rows(checks)}</div>"
        f"<h2>Facts</h2><table class='facts'>{fact_rows}</table>"
        + SCRIPT % {"w": WIDTH, "left": PAD, "scale": repr(scale)}
        + "</body></html>\n"
    )
    path.write_text(page)
    return path
