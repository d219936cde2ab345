"""A soak's history: a directory of Parquet files written as events come, readable as one history, with
at most one file's events in memory and every written file whole when the run dies."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pytest_pulsar_ha.history import ACK, SEND, Event, EventLog
from pytest_pulsar_ha.history.segments import ParquetSegments
from pytest_pulsar_ha.run.parts.soak import retained


def _event(i: int, kind: str = SEND) -> Event:
    return Event(1_700_000_000_000_000_000 + i, kind, "producer-0", topic="t", producer="producer-0", seq=i)


def test_events_come_back_in_order_from_the_files(tmp_path: Path) -> None:
    with ParquetSegments(tmp_path / "history", rows_per_file=1000) as segments:
        for i in range(2500):
            segments.append(_event(i))
    files = sorted((tmp_path / "history").glob("part-*.parquet"))
    assert [f.name for f in files] == ["part-000000.parquet", "part-000001.parquet", "part-000002.parquet"]
    table = pq.read_table(tmp_path / "history")
    assert table.column("seq").to_pylist() == list(range(2500))


def test_a_run_that_dies_keeps_every_whole_file(tmp_path: Path) -> None:
    segments = ParquetSegments(tmp_path / "history", rows_per_file=100)
    for i in range(250):
        segments.append(_event(i))
    # never closed (the process died): two whole files, the buffered 50 events are lost, nothing half-written
    assert sorted(p.name for p in (tmp_path / "history").iterdir()) == ["part-000000.parquet", "part-000001.parquet"]
    assert pq.read_table(tmp_path / "history").num_rows == 200


def test_an_empty_history_is_still_a_readable_history(tmp_path: Path) -> None:
    ParquetSegments(tmp_path / "history").close()
    assert pq.read_table(tmp_path / "history").num_rows == 0


def test_a_history_is_never_appended_to_another(tmp_path: Path) -> None:
    with ParquetSegments(tmp_path / "history", rows_per_file=10) as segments:
        segments.append(_event(1))
    with pytest.raises(ValueError, match="not empty"):
        ParquetSegments(tmp_path / "history")


def test_a_log_that_keeps_some_events_needs_a_journal() -> None:
    with pytest.raises(ValueError, match="journal"):
        EventLog(retain=retained)


def _peak_while_logging(directory: Path, count: int) -> int:
    segments = ParquetSegments(directory, rows_per_file=2000)
    log = EventLog(journal=segments, retain=retained)
    tracemalloc.start()
    for i in range(count):
        log.add(_event(i, ACK if i % 2 else SEND))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    segments.close()
    assert log.count == count and log.events == []  # every event streamed, none kept
    return peak


def test_memory_does_not_grow_with_the_length_of_the_run(tmp_path: Path) -> None:
    short = _peak_while_logging(tmp_path / "short", 10_000)
    long = _peak_while_logging(tmp_path / "long", 100_000)  # ten times the events
    assert long < short * 1.5, (short, long)
