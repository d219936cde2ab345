"""A run's interactive page (``run.html``): the history as a timeline, one lane per cluster, self-contained and
offline (inline SVG, a few lines of JavaScript, no library, no network).

* each lane draws its cluster's acks and receipts per second (and send errors, on the client lane); a small run
  (:data:`~pytest_pulsar_ha.report.run_events.SINGLE_EVENTS_MAX` message events at most) also draws each send,
  ack, failed send and receipt as a tick that names its message, cluster and latency;
* faults are shaded bands on every lane they name (all lanes for a fault of no one cluster), switches and failed
  switches vertical lines, probes that failed small marks; each timing verdict's window is drawn on the lane of
  its target cluster with the measured point (green inside, red outside);
* hovering any of them shows what it is (its ``<title>``, also written under the timeline); the wheel zooms the
  time axis, dragging pans it, and a double click resets it;
* the verdict (failures first) and the facts are beside the timeline; the history itself (every event) is a link
  away.

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
    Event,
)
from pytest_pulsar_ha.report.run_events import single_event_marks
from pytest_pulsar_ha.report.window_bar import window_of

BIN_S = 0.5
WIDTH = 1100
LANE_H = 90
LEFT = 110
FAULT_NUMBER = re.compile(r"^#(\d+)\b")
OF_FAULT = re.compile(r"of fault #(\d+) (start|end)")
SCRIPT = """<script>(function(){var s=document.getElementById('timeline'),w=%(w)d,v=[0,w];
function show(){s.setAttribute('viewBox',v[0]+' 0 '+(v[1]-v[0])+' '+s.getAttribute('height'));}
s.addEventListener('wheel',function(e){e.preventDefault();var r=s.getBoundingClientRect(),
x=v[0]+(e.clientX-r.left)/r.width*(v[1]-v[0]),k=e.deltaY<0?0.8:1.25;
v=[Math.max(0,x-(x-v[0])*k),Math.min(w,x+(v[1]-x)*k)];show();},{passive:false});
var d=null;s.addEventListener('mousedown',function(e){d=[e.clientX,v[0],v[1]];});
window.addEventListener('mouseup',function(){d=null;});
s.addEventListener('mousemove',function(e){if(!d)return;var r=s.getBoundingClientRect(),
dx=(e.clientX-d[0])/r.width*(d[2]-d[1]),a=Math.max(0,Math.min(w-(d[2]-d[1]),d[1]-dx));v=[a,a+(d[2]-d[1])];show();});
s.addEventListener('dblclick',function(){v=[0,w];show();});
var h=document.getElementById('hover');s.addEventListener('mouseover',function(e){var t=e.target.querySelector?
e.target.querySelector(':scope>title'):null;if(t)h.textContent=t.textContent;});})();</script>"""


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
    height = LANE_H * len(lanes) + 30
    scale = (WIDTH - LEFT) / span

    def x(ts_ns: int | float) -> float:
        return round(LEFT + (ts_ns - t0) / 1e9 * scale, 1)

    def lane_y(name: str) -> int:
        return lanes.index(name) * LANE_H if name in lanes else (len(lanes) - 1) * LANE_H

    parts: list[str] = []
    for name in lanes:  # lane frames and labels
        y = lane_y(name)
        parts.append(f"<rect x='{LEFT}' y='{y + 4}' width='{WIDTH - LEFT}' height='{LANE_H - 8}' fill='#fafafa'/>")
        parts.append(f"<text x='4' y='{y + LANE_H // 2}' font-size='12'>{html.escape(name)}</text>")
    starts: dict[int, Event] = {}
    for event in events:  # faults: shaded from start to end on the lane they name (every lane when none)
        number = FAULT_NUMBER.match(event.detail or "")
        if event.type == FAULT_START and number:
            starts[int(number.group(1))] = event
    ends = {int(m.group(1)): e for e in events if e.type == FAULT_END and (m := FAULT_NUMBER.match(e.detail or ""))}
    for index, start in starts.items():
        end = ends.get(index)
        right = x(end.ts_ns) if end is not None else x(start.ts_ns) + 2
        targets = [start.cluster] if start.cluster in lanes else lanes
        for name in targets:
            y = lane_y(name or "clients")
            parts.append(
                f"<rect class='fault' x='{x(start.ts_ns)}' y='{y + 4}' width='{max(2.0, right - x(start.ts_ns))}' "
                f"height='{LANE_H - 8}' fill='#f4c7c3' opacity='0.6'><title>{html.escape(start.detail or '')}: "
                f"+{(start.ts_ns - t0) / 1e9:.2f}s to "
                f"{'+' + format((end.ts_ns - t0) / 1e9, '.2f') + 's' if end else 'the end'}</title></rect>"
            )
    series = [(ACK, "#1565c0", "acks/s"), (RECEIVE, "#2e7d32", "receipts/s")]
    rated = _all_bins(events, t0)
    for name in lanes:  # rates per second, per lane
        y = lane_y(name)
        drawn = [(kind, colour, label, rated.get((kind, name), Counter())) for kind, colour, label in series]
        if name == "clients":
            drawn = [(SEND_ERROR, "#c62828", "send errors/s", _errors(rated))]
        peak = max((max(b.values(), default=0) for *_, b in drawn), default=0) or 1
        for kind, colour, label, bins in drawn:
            if not bins:
                continue
            points = " ".join(
                f"{x(t0 + (i + 0.5) * BIN_S * 1e9)},{y + LANE_H - 6 - bins.get(i, 0) / peak * (LANE_H - 16):.1f}"
                for i in range(max(bins) + 1)
            )
            parts.append(
                f"<polyline class='rate {kind}' points='{points}' fill='none' stroke='{colour}' stroke-width='1.2'>"
                f"<title>{label} on {html.escape(name)} (peak {max(bins.values()) / BIN_S:g})</title></polyline>"
            )
    parts += single_event_marks(events, t0, x, lane_y, LANE_H)
    for event in events:  # switches and failed probes
        if event.type in (SWITCH, SWITCH_FAILED):
            colour = "#6a1b9a" if event.type == SWITCH else "#ef6c00"
            what = "switch" if event.type == SWITCH else "failed switch"
            parts.append(
                f"<line class='{event.type}' x1='{x(event.ts_ns)}' y1='0' x2='{x(event.ts_ns)}' y2='{height - 30}' "
                f"stroke='{colour}' stroke-width='2'><title>{what} to {html.escape(event.cluster or '?')} at "
                f"+{(event.ts_ns - t0) / 1e9:.2f}s: {html.escape(event.detail or '')}</title></line>"
            )
        elif event.type == PROBE and event.cluster in lanes and '"ok": false' in (event.detail or ""):
            y = lane_y(event.cluster or "")
            parts.append(
                f"<circle class='probe-failed' cx='{x(event.ts_ns)}' cy='{y + 10}' r='2.5' fill='#c62828'>"
                f"<title>probe of {html.escape(event.cluster or '')} failed at +{(event.ts_ns - t0) / 1e9:.2f}s: "
                f"{html.escape((event.detail or '')[:200])}</title></circle>"
            )
    for check in checks:  # each timing verdict's window, on its target's lane, with the measured point
        window, of = window_of(check), OF_FAULT.search(check.expected)
        target = re.search(r"first ack by (\S+)", check.expected)
        if window is None or of is None or target is None:
            continue
        moment = (starts if of.group(2) == "start" else ends).get(int(of.group(1)))
        if moment is None:
            continue
        low, high, measured = window
        y = lane_y(target.group(1))
        colour = "#1a7f37" if check.ok else "#c62828"
        left, right, point = (x(moment.ts_ns + s * 1e9) for s in (low, high, measured))
        parts.append(
            f"<rect class='window' x='{left}' y='{y + LANE_H - 14}' width='{max(1.0, right - left)}' height='8' "
            f"fill='#a5d6a7'><title>{html.escape(check.name)} window {html.escape(check.expected)}</title></rect>"
            f"<circle class='measured' cx='{point}' cy='{y + LANE_H - 10}' r='4' fill='{colour}'><title>"
            f"{html.escape(check.name)} measured {html.escape(check.measured)}</title></circle>"
        )
    for second in range(int(span) + 1):  # the time axis
        if second % max(1, int(span // 20) or 1) == 0:
            parts.append(f"<text x='{x(t0 + second * 1e9)}' y='{height - 12}' font-size='10'>+{second}s</text>")
    verdict = "".join(
        f"<tr><td>{'ok' if c.ok else 'FAILED'}</td><td>{html.escape(c.name)}</td><td>{html.escape(c.measured)}</td>"
        f"<td>{html.escape(c.expected)}</td></tr>"
        for c in sorted(checks, key=lambda c: c.ok)
    )
    fact_rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in facts.items())
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:1.5em} td,th{border:1px solid #ccc;padding:4px;text-align:left;"
        "vertical-align:top} svg{border:1px solid #ddd;cursor:grab;width:100%;height:auto}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>Wheel: zoom; drag: pan; double click: reset; hover anything for what it "
        f"is. Every event: <a href='{html.escape(history_link)}'>{html.escape(history_link)}</a>.</p>"
        f"<svg id='timeline' xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{height}' "
        f"viewBox='0 0 {WIDTH} {height}' preserveAspectRatio='none'>{''.join(parts)}</svg>"
        "<p id='hover' aria-live='polite'>Hover a mark to see what it is.</p>"
        f"<h2>Verdict</h2><table>{verdict}</table><h2>Facts</h2><table>{fact_rows}</table>"
        + SCRIPT % {"w": WIDTH}
        + "</body></html>\n"
    )
    path.write_text(page)
    return path
