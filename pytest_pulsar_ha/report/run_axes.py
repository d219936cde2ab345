"""The run page's legend and axes (:mod:`~pytest_pulsar_ha.report.run_page`), as on a Grafana panel: every series
named, every axis scaled.

* the legend: one entry per kind of mark the timeline draws (only those it draws), its swatch drawn as the mark
  is, its name, and what it counts; an entry's ``data-series`` is the mark's class (spaces as ``-``);
* the y-axis: a column beside the timeline (it does not zoom), per lane the lane's name, its unit and ticks at 0,
  half and the top of its scale (the peak rate rounded up to 1, 2, 2.5 or 5 times a power of ten);
* the time axis: seconds since the first event, its ticks recomputed for the visible span when the timeline
  zooms or pans (:data:`SCRIPT`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

AXIS_W = 150
"""The y-axis column's width in pixels."""
RATE_COLOURS = {"ack": "#1565c0", "receive": "#2e7d32", "send_error": "#c62828"}


@dataclass(frozen=True)
class Series:
    name: str
    means: str
    swatch: str
    """the swatch's SVG content, in a 28 x 12 box"""


def _line(colour: str, dash: str = "", width: float = 2) -> str:
    dashed = f" stroke-dasharray='{dash}'" if dash else ""
    return f"<line x1='1' y1='6' x2='27' y2='6' stroke='{colour}' stroke-width='{width}'{dashed}/>"


def _tick(colour: str) -> str:
    return f"<line x1='14' y1='1' x2='14' y2='11' stroke='{colour}' stroke-width='1.5'/>"


RECEIPT_DASH = "5 3"
SERIES = {
    "rate-ack": Series("acks/s", "sends acknowledged by the lane's cluster, per second", _line("#1565c0")),
    "rate-receive": Series(
        "receipts/s", "messages received from the lane's cluster, per second", _line("#2e7d32", RECEIPT_DASH)
    ),
    "rate-send_error": Series("send errors/s", "failed sends of every client, per second", _line("#c62828")),
    "event-send": Series("send", "one tick per send (clients lane)", _tick("#90a4ae")),
    "event-send_error": Series("failed send", "one tick per failed send (clients lane)", _tick("#c62828")),
    "event-ack": Series("ack", "one tick per acknowledgement, on the acknowledging cluster", _tick("#1565c0")),
    "event-receive": Series("receipt", "one tick per receipt, on the delivering cluster", _tick("#2e7d32")),
    "fault": Series(
        "fault",
        "from its start to its end, on the lane it hits",
        "<rect x='1' y='1' width='26' height='10' fill='#f4c7c3'/>",
    ),
    "quiet-end": Series(
        "quiet end",
        "a fault undone, its clients kept off until the cluster settled (the switch back counts from its end)",
        "<rect x='1' y='1' width='26' height='10' fill='#fbe9e7' stroke='#e57373' stroke-dasharray='4 3'/>",
    ),
    "switch": Series("switch", "the provider's switch to another cluster", _tick("#6a1b9a").replace("1.5", "2")),
    "switch_failed": Series("failed switch", "a switch the provider tried and failed", _tick("#ef6c00")),
    "probe-failed": Series(
        "failed probe",
        "a health probe of the lane's cluster that failed",
        "<circle cx='14' cy='6' r='3' fill='#c62828'/>",
    ),
    "window": Series(
        "expectation's window",
        "when a timing expectation allows the first ack",
        "<rect x='1' y='3' width='26' height='6' fill='#a5d6a7'/>",
    ),
    "measured": Series(
        "measured",
        "when it came: green inside the window, red outside",
        "<circle cx='14' cy='6' r='4' fill='#1a7f37'/>",
    ),
}
"""Every kind of mark the timeline can draw, by its legend key, in the legend's order."""


def legend_html(drawn: set[str]) -> str:
    """The legend: an entry for each key of ``drawn`` (in :data:`SERIES`'s order)."""
    entries = [
        f"<li data-series='{key}' title='{html.escape(series.means)}'><svg width='28' height='12' "
        f"aria-hidden='true'>{series.swatch}</svg> <b>{html.escape(series.name)}</b> "
        f"<span class='means'>{html.escape(series.means)}</span></li>"
        for key, series in SERIES.items()
        if key in drawn
    ]
    return f"<ul id='legend'>{''.join(entries)}</ul>"


@dataclass(frozen=True)
class LaneAxis:
    name: str
    top: float
    """the scale's top in the unit, at ``y + LANE_H - 6 - (LANE_H - 16)``"""
    what: str
    """what the lane's lines count, e.g. ``acks, receipts per second``"""


def lane_value_y(y: int, lane_h: int, top: float, value: float) -> float:
    """Where ``value`` (0..``top``) lies on the lane whose frame starts at ``y``."""
    return round(y + lane_h - 6 - value / top * (lane_h - 16), 1)


def short_number(value: float) -> str:
    """``2500`` -> ``2.5k``, ``1000000`` -> ``1M``: a tick label that fits the axis."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:g}"


def _unit_lines(what: str) -> str:
    """What a lane counts, on two lines (``acks, receipts`` / ``per second``) to leave room for the ticks."""
    head, sep, tail = what.partition(" per ")
    if not sep:
        return f"<tspan x='4'>{html.escape(what)}</tspan>"
    return f"<tspan x='4'>{html.escape(head)}</tspan><tspan x='4' dy='12'>per {html.escape(tail)}</tspan>"


def ticks(top: float) -> list[float]:
    return [0.0, top / 2, top]


def axis_svg(axes: Sequence[LaneAxis], lane_h: int, height: int) -> str:
    """The y-axis column: per lane its name, unit and ticks, aligned with the timeline's lanes."""
    parts = []
    for index, axis in enumerate(axes):
        y = index * lane_h
        parts.append(
            f"<g class='lane' data-lane='{html.escape(axis.name)}' data-top='{axis.top:g}'>"
            f"<text class='lane-name' x='4' y='{y + 20}' font-size='12' font-weight='bold'>"
            f"{html.escape(axis.name)}</text><text class='unit' y='{y + 34}' font-size='10' fill='#555'>"
            f"{_unit_lines(axis.what)}</text><line x1='{AXIS_W - 1}' y1='{y + 4}' x2='{AXIS_W - 1}' "
            f"y2='{y + lane_h - 4}' stroke='#999'/>"
        )
        for value in ticks(axis.top):
            at = lane_value_y(y, lane_h, axis.top, value)
            parts.append(
                f"<line class='tick-mark' data-value='{value:g}' x1='{AXIS_W - 6}' y1='{at}' x2='{AXIS_W - 1}' "
                f"y2='{at}' stroke='#999'/>"
                f"<text class='tick' data-value='{value:g}' x='{AXIS_W - 8}' y='{at}' font-size='10' "
                f"text-anchor='end' dominant-baseline='middle'>{short_number(value)}</text>"
            )
        parts.append("</g>")
    return f"<svg id='axis' width='{AXIS_W}' height='{height}' viewBox='0 0 {AXIS_W} {height}'>{''.join(parts)}</svg>"


def gridlines(axes: Sequence[LaneAxis], lane_h: int, width: int) -> list[str]:
    """Light horizontal lines across each lane at its ticks (they do not thicken when the timeline zooms)."""
    lines = []
    for index, axis in enumerate(axes):
        for value in ticks(axis.top):
            at = lane_value_y(index * lane_h, lane_h, axis.top, value)
            lines.append(
                f"<line class='grid' x1='0' x2='{width}' y1='{at}' y2='{at}' stroke='#e3e3e3' "
                "vector-effect='non-scaling-stroke'/>"
            )
    return lines


def time_step(span_s: float) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving at most about ten ticks over ``span_s``."""
    raw = max(span_s, 1e-6) / 10
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def time_axis_svg(span_s: float, left: float, scale: float, width: int) -> str:
    """The time axis under the timeline at its full span (the script redraws it for a zoomed span)."""
    step = time_step(span_s)
    parts = []
    for index in range(int(span_s / step) + 1):
        second = index * step
        at = (left + second * scale) / width * 100
        anchor = "start" if at < 2 else "end" if at > 98 else "middle"
        parts.append(f"<text x='{at:.2f}%' y='14' text-anchor='{anchor}'>+{round(second, 3):g}s</text>")
    return f"<svg id='time-axis' width='100%' height='20' font-size='10'>{''.join(parts)}</svg>"


SCRIPT = """<script>(function(){var s=document.getElementById('timeline'),w=%(w)d,left=%(left)s,scale=%(scale)s,
v=[0,w],a=document.getElementById('time-axis');
function axis(){var s0=(v[0]-left)/scale,s1=(v[1]-left)/scale,raw=Math.max(s1-s0,1e-6)/10,
p=Math.pow(10,Math.floor(Math.log10(raw))),st=[1,2,5,10].map(function(m){return m*p;}).filter(function(x){
return x>=raw;})[0],out='';for(var t=Math.max(0,Math.ceil(s0/st))*st;t<=s1+1e-9;t+=st){
var at=(left+t*scale-v[0])/(v[1]-v[0])*100,an=at<2?'start':at>98?'end':'middle';
out+="<text x='"+at.toFixed(2)+"%%' y='14' text-anchor='"+an+"'>+"+(Math.round(t*1000)/1000)+"s</text>";}
a.innerHTML=out;}
function show(){s.setAttribute('viewBox',v[0]+' 0 '+(v[1]-v[0])+' '+s.getAttribute('height'));axis();}
s.addEventListener('wheel',function(e){e.preventDefault();var r=s.getBoundingClientRect(),
x=v[0]+(e.clientX-r.left)/r.width*(v[1]-v[0]),k=e.deltaY<0?0.8:1.25;
v=[Math.max(0,x-(x-v[0])*k),Math.min(w,x+(v[1]-x)*k)];show();},{passive:false});
var d=null;s.addEventListener('mousedown',function(e){d=[e.clientX,v[0],v[1]];});
window.addEventListener('mouseup',function(){d=null;});
s.addEventListener('mousemove',function(e){if(!d)return;var r=s.getBoundingClientRect(),
dx=(e.clientX-d[0])/r.width*(d[2]-d[1]),b=Math.max(0,Math.min(w-(d[2]-d[1]),d[1]-dx));v=[b,b+(d[2]-d[1])];show();});
s.addEventListener('dblclick',function(){v=[0,w];show();});
var h=document.getElementById('hover');s.addEventListener('mouseover',function(e){var t=e.target.querySelector?
e.target.querySelector(':scope>title'):null;if(t)h.textContent=t.textContent;});})();</script>"""
"""Zoom (wheel), pan (drag), reset (double click) and hover; the time axis redrawn for the visible span."""
