"""Single message events on a small run's page: a tick per send, ack, failed send and receipt, named by its
message, cluster and latency; none beyond SINGLE_EVENTS_MAX (rates only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, SEND_ERROR, Event
from pytest_pulsar_ha.report import run_events
from pytest_pulsar_ha.report.run_events import describe, single_event_marks
from pytest_pulsar_ha.report.run_page import render_run_page
from tests.report.test_run_page import T0, S, _history


def test_each_kind_says_what_it_is_and_its_latency() -> None:
    send = Event(T0 + S, SEND, "p", producer="p-0", seq=42)
    ack = Event(T0 + S + 12_000_000, ACK, "p", cluster="cluster-b", producer="p-0", seq=42, message_id="5:167")
    got = Event(T0 + 2 * S, RECEIVE, "c", cluster="cluster-a", subscription="sub-0", producer="p-0", seq=42)
    failed = Event(T0 + 3 * S, SEND_ERROR, "p", producer="p-0", seq=43, detail="Timeout")
    assert describe(send, T0, None) == "send of p-0 #42 at +1.000s"
    assert (
        describe(ack, T0, send.ts_ns) == "ack of p-0 #42 by cluster-b at +1.012s, 12 ms after its send (message 5:167)"
    )
    assert (
        describe(got, T0, send.ts_ns) == "receipt of p-0 #42 from cluster-a at +2.000s, 1000 ms after its send on sub-0"
    )
    assert describe(failed, T0, None) == "failed send of p-0 #43 at +3.000s: Timeout"
    unattributed = Event(T0 + S, RECEIVE, "c", producer="p-0", seq=1)
    assert "from an unknown cluster" in describe(unattributed, T0, None)


def _lane_y(name: str) -> int:
    return 0


def test_a_small_run_draws_every_message_event(tmp_path: Path) -> None:
    page = render_run_page(_history(), [], {}, "small", tmp_path / "run.html").read_text()
    assert page.count("<line class='event ") == 450  # 150 sends, acks and receipts
    assert "ack of p #63 by cluster-b at +6.300s, 0 ms after its send" in page


def test_a_run_over_the_limit_draws_rates_only(monkeypatch: pytest.MonkeyPatch) -> None:
    events = _history()
    assert len(single_event_marks(events, T0, float, _lane_y, 90)) == 450
    monkeypatch.setattr(run_events, "SINGLE_EVENTS_MAX", 449)
    assert single_event_marks(events, T0, float, _lane_y, 90) == []
