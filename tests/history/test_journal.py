"""The background journal: appends are queued, written within the interval, and close writes the rest."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from pytest_pulsar_ha.history import ACK, SEND, Event, read_events_jsonl
from pytest_pulsar_ha.history.journal import BackgroundJournal


def _event(seq: int, type: str = SEND) -> Event:
    return Event(1_764_300_000_000_000_000 + seq, type, "producer-0", producer="producer-0", seq=seq)


def test_what_is_appended_reaches_the_file_within_the_interval_while_the_journal_is_open(tmp_path: Path) -> None:
    journal = BackgroundJournal(tmp_path / "history.partial.jsonl", interval_s=0.05)
    try:
        journal.append(_event(1))
        journal.append(_event(1, ACK))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(read_events_jsonl(journal.path)) < 2:
            time.sleep(0.02)
        assert read_events_jsonl(journal.path) == [_event(1), _event(1, ACK)]
        assert not journal.closed
    finally:
        journal.close()


def test_close_writes_every_event_from_every_thread_in_each_thread_s_order(tmp_path: Path) -> None:
    journal = BackgroundJournal(tmp_path / "history.partial.jsonl", interval_s=0.01)

    def append(base: int) -> None:
        for i in range(2_000):
            journal.append(_event(base + i))

    threads = [threading.Thread(target=append, args=(base,)) for base in (0, 10_000, 20_000)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert journal.close() == journal.path
    assert journal.closed and journal.count == 6_000
    seqs = [e.seq for e in read_events_jsonl(journal.path)]
    assert sorted(seqs) == sorted([base + i for base in (0, 10_000, 20_000) for i in range(2_000)])
    for base in (0, 10_000, 20_000):
        mine = [s for s in seqs if s is not None and base <= s < base + 10_000]
        assert mine == sorted(mine)
    journal.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        journal.append(_event(1))


def test_a_journal_is_json_lines(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.jsonl"):
        BackgroundJournal(tmp_path / "history.parquet")
