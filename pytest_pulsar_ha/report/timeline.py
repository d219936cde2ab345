"""A timeline picture of a history: fault windows, the cluster that acknowledged each send, ack rate and errors.

``render_png`` draws it with matplotlib (imported only here, on the Agg backend); ``render_html`` wraps the
picture and a summary into one self-contained page (the PNG is embedded).
"""

from __future__ import annotations

import base64
import html
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from pytest_pulsar_ha.history import (
    ACK,
    FAULT_END,
    FAULT_START,
    MIGRATED,
    MIGRATION_END,
    MIGRATION_START,
    PROBE,
    RECEIVE,
    SEND_ERROR,
    SWITCH,
    UNDO_START,
    Event,
)

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf"]


def _fault_windows(events: Sequence[Event], t0: int, t_end: float) -> list[tuple[float, float, str]]:
    """(start s, end s, label) of every fault, paired by their ``detail`` text."""
    open_faults: dict[str, float] = {}
    windows = []
    for event in events:
        label = event.detail or "fault"
        if event.type == FAULT_START:
            open_faults[label] = (event.ts_ns - t0) / 1e9
        elif event.type == FAULT_END and label in open_faults:
            windows.append((open_faults.pop(label), (event.ts_ns - t0) / 1e9, label))
    windows += [(start, t_end, label) for label, start in open_faults.items()]
    return sorted(windows)


def _undo_starts(events: Sequence[Event], t0: int) -> dict[str, list[float]]:
    """Each fault label's ``undo_start`` moments (s): where a fault with a quiet end was undone."""
    found: dict[str, list[float]] = defaultdict(list)
    for event in events:
        if event.type == UNDO_START:
            found[event.detail or "fault"].append((event.ts_ns - t0) / 1e9)
    return found


def render_png(events: Sequence[Event], path: Path, title: str) -> Path:
    """Draw the timeline of ``events`` into ``path`` (PNG) and return the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    events = sorted(events, key=lambda e: e.ts_ns)
    if not events:
        raise ValueError("an empty history has no timeline")
    t0 = events[0].ts_ns
    t_end = (events[-1].ts_ns - t0) / 1e9
    clusters = sorted({e.cluster for e in events if e.cluster})
    lane = {name: i for i, name in enumerate(clusters)}
    color = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(clusters)}

    fig, (ax_lanes, ax_rate) = plt.subplots(
        2,
        1,
        figsize=(13, 2.2 + 0.6 * max(len(clusters), 1) + 2.6),
        sharex=True,
        gridspec_kw={"height_ratios": [max(len(clusters), 1) * 0.6 + 1, 2.4]},
    )
    windows = _fault_windows(events, t0, t_end)
    undos = _undo_starts(events, t0)
    for start, end, label in windows:
        undo = next((u for u in undos.get(label, []) if start <= u <= end), None)
        for ax in (ax_lanes, ax_rate):
            ax.axvspan(start, end if undo is None else undo, color="#d62728", alpha=0.12, lw=0)
            if undo is not None:  # the quiet end: undone, clients kept off until the cluster settled
                ax.axvspan(undo, end, facecolor="none", edgecolor="#d62728", alpha=0.35, hatch="//", lw=0)
        ax_lanes.text(start, len(clusters) - 0.35, f" {label}", color="#b00", fontsize=8, va="bottom")

    # Which cluster acknowledged each send (the client's position), one lane per cluster.
    for name in clusters:
        xs = [(e.ts_ns - t0) / 1e9 for e in events if e.type == ACK and e.cluster == name]
        ax_lanes.scatter(xs, [lane[name]] * len(xs), s=6, color=color[name], label=f"acked by {name}")
        bad = [(e.ts_ns - t0) / 1e9 for e in events if e.type == PROBE and e.cluster == name and _probe_failed(e)]
        ax_lanes.scatter(bad, [lane[name] + 0.25] * len(bad), s=5, marker="x", color="#d62728", linewidths=0.6)
    for event in events:
        if event.type == SWITCH:
            x = (event.ts_ns - t0) / 1e9
            ax_lanes.axvline(x, color="black", lw=1, ls="--")
            ax_lanes.text(x, -0.6, f" switch -> {event.cluster}", fontsize=8, rotation=0)
    marks = {MIGRATION_START: ("#6a3d9a", "migration"), MIGRATION_END: ("#6a3d9a", "migrated (all)")}
    migrated = [(e.ts_ns - t0) / 1e9 for e in events if e.type == MIGRATED]
    if migrated:
        ax_lanes.scatter(migrated, [-0.45] * len(migrated), s=14, marker="v", color="#6a3d9a", label="topic migrated")
    for event in events:
        if event.type in marks:
            x = (event.ts_ns - t0) / 1e9
            shade, text = marks[event.type]
            ax_lanes.axvline(x, color=shade, lw=1.2, ls="-.")
            ax_lanes.text(x, len(clusters) - 0.6, f" {text} {event.cluster}", fontsize=8, color=shade)
    ax_lanes.set_yticks(range(len(clusters)), clusters)
    ax_lanes.set_ylim(-0.8, len(clusters) - 0.1)
    ax_lanes.set_title(title, fontsize=11, loc="left")
    ax_lanes.set_ylabel("acknowledged by\n(x: failed probe)", fontsize=8)

    # Acknowledged sends and errors per second.
    acks: Counter[int] = Counter(int((e.ts_ns - t0) / 1e9) for e in events if e.type == ACK)
    errors: Counter[int] = Counter(int((e.ts_ns - t0) / 1e9) for e in events if e.type == SEND_ERROR)
    received: Counter[int] = Counter(int((e.ts_ns - t0) / 1e9) for e in events if e.type == RECEIVE)
    seconds = range(int(t_end) + 1)
    ax_rate.plot(list(seconds), [acks[s] for s in seconds], color="#2ca02c", lw=1.5, label="acked sends/s")
    ax_rate.plot(list(seconds), [received[s] for s in seconds], color="#1f77b4", lw=1, ls=":", label="received/s")
    ax_rate.bar(
        list(seconds), [errors[s] for s in seconds], color="#d62728", alpha=0.7, width=0.9, label="send errors/s"
    )
    quiet = "; hatched: their quiet ends" if any(undos.get(label) for _, _, label in windows) else ""
    ax_rate.set_xlabel(f"seconds since the first event (shaded: faults{quiet})")
    ax_rate.set_ylabel("per second", fontsize=8)
    ax_rate.legend(loc="upper right", fontsize=8, ncols=3)
    if clusters:
        ax_lanes.legend(loc="upper right", fontsize=8, ncols=len(clusters), markerscale=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _probe_failed(event: Event) -> bool:
    try:
        return not json.loads(event.detail or "{}").get("ok", True)
    except ValueError:
        return False


def render_html(
    png: Path, path: Path, title: str, summary: Sequence[tuple[str, str, str]], facts: dict[str, str]
) -> Path:
    """One self-contained page: title, facts, a table of (check, verdict, figure), and the embedded timeline."""
    image = base64.b64encode(png.read_bytes()).decode()
    rows = "".join(
        f"<tr class='{html.escape(verdict)}'><td>{html.escape(name)}</td><td>{html.escape(verdict)}</td>"
        f"<td>{html.escape(figure)}</td></tr>"
        for name, verdict, figure in summary
    )
    fact_rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in facts.items())
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em}} table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left}} tr.failed td{{background:#fdd}}
tr.passed td{{background:#dfd}} img{{max-width:100%}}</style></head>
<body><h1>{html.escape(title)}</h1><table>{fact_rows}</table>
<table><tr><th>expectation</th><th>verdict</th><th>measured</th></tr>{rows}</table>
<img alt="timeline" src="data:image/png;base64,{image}"></body></html>
"""
    path.write_text(page)
    return path


def per_process_clusters(events: Sequence[Event]) -> dict[str, list[tuple[int, str]]]:
    """For each producer, the (ts_ns, cluster) of each acknowledged send: where the client was."""
    out: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for event in events:
        if event.type == ACK and event.cluster:
            out[event.process].append((event.ts_ns, event.cluster))
    return dict(out)
