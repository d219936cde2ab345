"""Single message events on a small run's timeline: each send, acknowledgement, failed send and receipt a tick
of its own, whose title (shown on hover) names the message (producer and sequence number), the cluster, the time
and its latency (an ack or a receipt from its send). A run with more than :data:`SINGLE_EVENTS_MAX` message events
draws rates only (:mod:`~pytest_pulsar_ha.report.run_page`)."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, SEND_ERROR, Event

SINGLE_EVENTS_MAX = 5000
"""Message events up to which each is drawn (a 20 msg/s run of a minute has about 3,600)."""
STYLE = {
    SEND: ("#90a4ae", 0.15),
    SEND_ERROR: ("#c62828", 0.15),
    ACK: ("#1565c0", 0.2),
    RECEIVE: ("#2e7d32", 0.5),
}
"""Type -> (colour, where in its lane the tick starts, as a fraction of the lane's height from its top)."""


def message_events(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if e.type in STYLE]


def single_event_marks(
    events: Sequence[Event],
    t0: int,
    x: Callable[[int], float],
    lane_y: Callable[[str], int],
    lane_h: int,
) -> list[str]:
    """SVG ticks for each message event ([] when there are more than :data:`SINGLE_EVENTS_MAX`)."""
    chosen = message_events(events)
    if len(chosen) > SINGLE_EVENTS_MAX:
        return []
    sent = {(e.producer, e.seq): e.ts_ns for e in chosen if e.type == SEND}
    marks = []
    for event in chosen:
        colour, top = STYLE[event.type]
        lane = "clients" if event.type in (SEND, SEND_ERROR) else (event.cluster or "clients")
        y = lane_y(lane) + 4 + top * (lane_h - 8)
        marks.append(
            f"<line class='event {event.type}' x1='{x(event.ts_ns)}' y1='{y:.1f}' x2='{x(event.ts_ns)}' "
            f"y2='{y + 0.25 * (lane_h - 8):.1f}' stroke='{colour}' stroke-width='1'>"
            f"<title>{html.escape(describe(event, t0, sent.get((event.producer, event.seq))))}</title></line>"
        )
    return marks


def describe(event: Event, t0: int, sent_ns: int | None) -> str:
    """``ack of p-0 #42 by cluster-b at +3.21s, 12 ms after its send (message 5:167)``."""
    what = {SEND: "send", SEND_ERROR: "failed send", ACK: "ack", RECEIVE: "receipt"}[event.type]
    text = f"{what} of {event.producer or '?'} #{event.seq if event.seq is not None else '?'}"
    if event.type in (ACK, RECEIVE):
        text += f" {'by' if event.type == ACK else 'from'} {event.cluster or 'an unknown cluster'}"
    text += f" at +{(event.ts_ns - t0) / 1e9:.3f}s"
    if event.type in (ACK, RECEIVE) and sent_ns is not None:
        text += f", {(event.ts_ns - sent_ns) / 1e6:.0f} ms after its send"
    if event.subscription:
        text += f" on {event.subscription}"
    if event.message_id:
        text += f" (message {event.message_id})"
    if event.type == SEND_ERROR and event.detail:
        text += f": {event.detail[:160]}"
    return text
