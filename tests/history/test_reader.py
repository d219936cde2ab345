"""The Python reader of JSON Lines histories: a run killed mid-write is readable up to its last whole line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha import history
from pytest_pulsar_ha.history import SEND, Event, read_events_jsonl

EVENTS = [Event(1_700_000_000_000_000_000 + i, SEND, "p", producer="p", seq=i + 1) for i in range(3)]


def _write(path: Path, tail: str, *, newline: bool = True) -> Path:
    path.write_text("".join(e.to_json() + "\n" for e in EVENTS) + tail + ("\n" if newline and tail else ""))
    return path


def test_a_truncated_last_line_is_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path / "h.jsonl", EVENTS[0].to_json()[:20], newline=False)
    assert read_events_jsonl(path) == EVENTS
    assert history.truncated_tail(path) == (4, EVENTS[0].to_json()[:20])


def test_a_whole_last_line_without_newline_is_read(tmp_path: Path) -> None:
    extra = Event(1_700_000_000_000_000_009, SEND, "p", producer="p", seq=9)
    path = _write(tmp_path / "h.jsonl", extra.to_json(), newline=False)
    assert read_events_jsonl(path) == [*EVENTS, extra]
    assert history.truncated_tail(path) is None


def test_a_bad_line_that_ends_with_a_newline_is_an_error_with_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "h.jsonl", EVENTS[0].to_json()[:20], newline=True)
    with pytest.raises(ValueError, match=r"h\.jsonl:4: bad history line"):
        read_events_jsonl(path)
    assert history.truncated_tail(path) is None


def test_an_empty_file_has_no_events_and_no_tail(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text("")
    assert read_events_jsonl(path) == [] and history.truncated_tail(path) is None
