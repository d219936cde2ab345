"""A run's interactive page from its history: a lane per cluster with its rates, the faults shaded, switches and
failed probes marked, each timing verdict's window with its measured point, every mark titled (hover)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, PROBE, RECEIVE, SEND, SEND_ERROR, SWITCH, Event
from pytest_pulsar_ha.report.run_page import render_run_page
from tests.report.verdicts import figures_verdict, window_verdict

T0 = 1_800_000_000_000_000_000
S = 1_000_000_000


def _history() -> list[Event]:
    events = [
        Event(T0 + 4 * S, FAULT_START, "nemesis", cluster="cluster-a", detail="#0 outage cluster-a"),
        Event(T0 + 10 * S, FAULT_END, "nemesis", cluster="cluster-a", detail="#0 outage cluster-a"),
        Event(T0 + 6 * S, SWITCH, "provider", cluster="cluster-b", detail="primary down for 2.0s"),
        Event(
            T0 + 4 * S + S // 2,
            PROBE,
            "provider",
            cluster="cluster-a",
            detail=json.dumps({"ok": False, "error": "refused"}),
        ),
    ]
    for tenth in range(150):
        at = T0 + tenth * S // 10
        cluster = "cluster-b" if 6.3 <= tenth / 10 < 14 else "cluster-a"
        events += [
            Event(at, SEND, "p", producer="p", seq=tenth),
            Event(at + 1000, ACK, "p", cluster=cluster, producer="p", seq=tenth),
            Event(at + 2000, RECEIVE, "c", cluster=cluster, subscription="s", producer="p", seq=tenth),
        ]
    return events


def test_the_page_draws_lanes_faults_switches_probes_and_windows(tmp_path: Path) -> None:
    checks = [
        window_verdict("switch", True, "cluster-b", 2.2, 2.7, 2.30),
        window_verdict("switch_back", False, "cluster-a", 4.2, 4.7, 5.10, of="end"),
        figures_verdict("no_loss", True, "every acknowledged send received", {"lost": 0}),
    ]
    page = render_run_page(_history(), checks, {"seed": "7"}, "po: failed", tmp_path / "run.html").read_text()
    assert page.count("<rect class='fault'") == 1  # on cluster-a's lane only
    assert "<title>#0 outage cluster-a: +4.00s to +10.00s</title>" in page
    assert page.count("<line class='switch'") == 1 and "switch to cluster-b at +6.00s" in page
    assert page.count("<circle class='probe-failed'") == 1
    assert page.count("<rect class='window'") == 2  # the two timing verdicts; no_loss has no window
    assert (
        "fill='#1a7f37'><title>switch measured 2.30s" in page
        and "fill='#c62828'><title>switch_back measured 5.10s" in page
    )
    assert page.count("<polyline class='rate ack'") == 2 and page.count("<polyline class='rate receive'") == 2
    assert re.findall(r"<g class='lane' data-lane='([^']+)'", page) == ["cluster-a", "cluster-b", "clients"]
    assert "<a href='history.jsonl'>" in page and "addEventListener('wheel'" in page
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")  # offline: nothing fetched


def test_a_large_history_draws_binned_rates_not_points(tmp_path: Path) -> None:
    events = [Event(T0 + i * 100_000, ACK, "p", cluster="cluster-a", producer="p", seq=i) for i in range(200_000)]
    page = render_run_page(events, [], {}, "large", tmp_path / "run.html").read_text()
    points = page.split("points='")[1].split("'")[0].split()
    assert len(points) <= 41  # 20 s of history in 0.5 s bins
    labels = re.findall(r"<text class='tick' data-value='([\d.]+)'[^>]*>([^<]+)</text>", page)[:3]
    assert labels == [("0", "0"), ("5000", "5k"), ("10000", "10k")]  # 10,000 acks a second, labelled short
    assert len(page) < 100_000


def _ticks(page: str, lane: str) -> dict[float, float]:
    """The y-axis ticks of a lane: value -> y."""
    group = page.split(f"<g class='lane' data-lane='{lane}'")[1].split("</g>")[0]
    return {
        float(v): float(y)
        for v, y in re.findall(r"<text class='tick' data-value='([\d.]+)' x='\d+' y='([\d.]+)'", group)
    }


def test_each_lane_has_a_y_axis_whose_ticks_scale_its_lines(tmp_path: Path) -> None:
    """Ten sends a second, each acknowledged and received: the ack line's peak lies on the tick labelled 10."""
    page = render_run_page(_history(), [], {}, "po", tmp_path / "run.html").read_text()
    ticks = _ticks(page, "cluster-a")
    assert sorted(ticks) == [0.0, 5.0, 10.0] and ticks[10.0] < ticks[5.0] < ticks[0.0]  # up the page
    ack = page.split("<polyline class='rate ack'")[1].split("points='")[1].split("'")[0]
    heights = [float(point.split(",")[1]) for point in ack.split()]
    assert min(heights) == ticks[10.0] and max(heights) == ticks[0.0]
    assert "acks, receipts</tspan><tspan x='4' dy='12'>per second</tspan>" in page
    assert sorted(_ticks(page, "clients")) == [0.0, 0.5, 1.0] and ">per second (none)</tspan>" in page


def test_a_lane_scale_rounds_its_peak_up_to_a_nice_number(tmp_path: Path) -> None:
    events = [Event(T0 + i * S // 37, ACK, "p", cluster="cluster-a", producer="p", seq=i) for i in range(370)]
    page = render_run_page(events, [], {}, "37/s", tmp_path / "run.html").read_text()
    assert sorted(_ticks(page, "cluster-a")) == [0.0, 25.0, 50.0]  # a peak of 38/s on a 50/s axis


def test_the_legend_names_every_kind_of_mark_drawn_and_only_those(tmp_path: Path) -> None:
    checks = [window_verdict("switch", True, "cluster-b", 2.2, 2.7, 2.3)]
    page = render_run_page(_history(), checks, {}, "po", tmp_path / "run.html").read_text()
    timeline = page.split("<svg id='timeline'")[1].split("</svg>")[0]
    drawn = {c.replace(" ", "-") for c in re.findall(r"<\w+ class='([^']+)'[^>]*><title>", timeline)}
    legend = re.findall(r"<li data-series='([^']+)'[^>]*>.*?<b>([^<]+)</b>", page.split("<ul id='legend'>")[1])
    assert {key for key, _ in legend} == drawn
    assert drawn >= {"rate-ack", "rate-receive", "fault", "switch", "probe-failed", "window", "measured", "event-ack"}
    assert dict(legend)["rate-ack"] == "acks/s" and dict(legend)["rate-receive"] == "receipts/s"
    bare = render_run_page(_history()[:2], [], {}, "faults only", tmp_path / "bare.html").read_text()
    assert re.findall(r"<li data-series='([^']+)'", bare) == ["fault"]


def test_the_time_axis_counts_seconds_in_round_steps(tmp_path: Path) -> None:
    page = render_run_page(_history(), [], {}, "po", tmp_path / "run.html").read_text()
    axis = page.split("<svg id='time-axis'")[1].split("</svg>")[0]
    assert re.findall(r">\+([\d.]+)s<", axis) == ["0", "2", "4", "6", "8", "10", "12", "14"]
    assert "seconds since the first event" in page


def test_a_line_runs_to_the_end_of_the_run(tmp_path: Path) -> None:
    """Send errors only in the first second of ten: the line goes on at zero, it does not stop where they did."""
    errors = [Event(T0 + i * S // 10, SEND_ERROR, "p", producer="p", seq=i, detail="timeout") for i in range(10)]
    acks = [Event(T0 + i * S // 10, ACK, "p", cluster="cluster-a", producer="p", seq=i) for i in range(10, 100)]
    page = render_run_page(errors + acks, [], {}, "errors early", tmp_path / "run.html").read_text()
    line = page.split("<polyline class='rate send_error'")[1].split("points='")[1].split("'")[0].split()
    assert len(line) == 20 and float(line[-1].split(",")[0]) > 1000  # 0.5 s bins up to +9.9 s, the right edge


def test_a_quiet_end_is_drawn_after_its_fault_and_named_in_the_legend(tmp_path: Path) -> None:
    """A fault with a quiet end records ``undo_start`` when it was undone and ``fault_end`` once the cluster
    settled: the page shades the fault to its undo and draws the quiet end, dashed, from there to its end."""
    from pytest_pulsar_ha.history import UNDO_START

    events = [*_history(), Event(T0 + 8 * S, UNDO_START, "nemesis", cluster="cluster-a", detail="#0 outage cluster-a")]
    page = render_run_page(events, [], {}, "quiet end", tmp_path / "run.html").read_text()
    fault = re.search(r"<rect class='fault' x='([\d.]+)'[^>]* width='([\d.]+)'", page)
    quiet = re.search(r"<rect class='quiet-end' x='([\d.]+)'[^>]* width='([\d.]+)'", page)
    assert fault is not None and quiet is not None and page.count("<rect class='quiet-end'") == 1
    assert abs(float(fault.group(1)) + float(fault.group(2)) - float(quiet.group(1))) < 0.2  # the fault ends at undo
    assert float(quiet.group(2)) > 0.2 * float(fault.group(2))  # 2 s of quiet end against 4 s of fault
    assert "quiet end, undo began at +8.00s, clients kept off until +10.00s" in page
    assert "data-series='quiet-end'" in page
    plain = render_run_page(_history(), [], {}, "no quiet end", tmp_path / "plain.html").read_text()
    assert "quiet-end" not in plain
