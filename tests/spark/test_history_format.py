"""The history format and writer (pytest_pulsar_ha.history): plain Python, no Spark."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pytest_pulsar_ha.history import (
    ACK,
    EVENT_COLUMNS,
    EVENT_TYPES,
    RECEIVE,
    SEND,
    Event,
    HistoryWriter,
    arrow_schema,
    jsonl_to_parquet,
    read_events_jsonl,
)

from .histories import failover_history


def test_event_columns_and_json_line() -> None:
    event = Event(ts_ns=5, type=ACK, process="producer-0", cluster="cluster-a", producer="p", seq=1)
    data = json.loads(event.to_json())
    assert list(data) == list(EVENT_COLUMNS)
    assert data["ts_ns"] == 5 and data["cluster"] == "cluster-a" and data["topic"] is None
    assert Event.from_dict(data) == event
    assert set(EVENT_TYPES) == {
        "send",
        "ack",
        "send_error",
        "receive",
        "probe",
        "switch",
        "switch_failed",
        "fault_start",
        "fault_end",
        "undo_start",
        "migration_start",
        "migrated",
        "migration_end",
        "metadata_write",
        "metadata_event",
        "metadata_read",
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"ts_ns": 1, "type": "sent", "process": "p"}, "unknown event type"),
        ({"ts_ns": "1", "type": SEND, "process": "p"}, "ts_ns"),
        ({"ts_ns": 1, "type": SEND, "process": "p", "seq": "3"}, "seq"),
        ({"ts_ns": 1, "type": SEND}, "process"),
        ({"ts_ns": 1, "type": SEND, "process": "p", "cluster": 7}, "cluster"),
    ],
)
def test_bad_events_are_refused(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Event.from_dict(data)


def test_jsonl_round_trip(tmp_path: Path) -> None:
    events = failover_history(per_producer=3).events
    path = tmp_path / "h.jsonl"
    with HistoryWriter(path) as writer:
        writer.extend(events)
        assert writer.count == len(events)
    lines = path.read_text().splitlines()
    assert len(lines) == len(events)
    assert all(list(json.loads(line)) == list(EVENT_COLUMNS) for line in lines)
    assert read_events_jsonl(path) == events


def test_jsonl_is_streamed_as_events_come(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    writer = HistoryWriter(path)
    event = writer.record(RECEIVE, "consumer-0", cluster="cluster-b", subscription="s", producer="p", seq=1)
    assert read_events_jsonl(path) == [event]  # readable before close
    assert event.ts_ns > 1_600_000_000 * 10**9
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.record(SEND, "producer-0", producer="p", seq=2)


def test_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"ts_ns": 1, "type": "send", "process": "p"}\n{"ts_ns": 2, "type": "nope", "process": "p"}\n')
    with pytest.raises(ValueError, match=r"h\.jsonl:2: .*unknown event type"):
        read_events_jsonl(path)


def test_appends_from_many_threads(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    per_thread, threads = 400, 8
    with HistoryWriter(path) as writer:

        def produce(index: int) -> None:
            for seq in range(1, per_thread + 1):
                writer.record(SEND, f"producer-{index}", producer=f"producer-{index}", seq=seq, detail="x" * 50)

        workers = [threading.Thread(target=produce, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    events = read_events_jsonl(path)  # every line is a whole, valid event
    assert len(events) == writer.count == per_thread * threads
    assert len({(e.producer, e.seq) for e in events}) == per_thread * threads
    for index in range(threads):  # each thread's events stay in its order
        seqs = [e.seq for e in events if e.producer == f"producer-{index}"]
        assert seqs == list(range(1, per_thread + 1))


def test_parquet_writer_and_conversion(tmp_path: Path) -> None:
    events = failover_history(per_producer=3).events
    direct = tmp_path / "direct.parquet"
    with HistoryWriter(direct, row_group_rows=10) as writer:
        writer.extend(events)
    with HistoryWriter(tmp_path / "h.jsonl") as writer:
        writer.extend(events)
    converted = writer.to_parquet()
    assert converted == tmp_path / "h.parquet"
    for path in (direct, converted):
        table = pq.read_table(path)
        assert table.schema.equals(arrow_schema())
        assert [str(f.type) for f in table.schema] == ["int64", "string", "string", "string", "string", "string",
                                                       "string", "int64", "string", "string", "string"]  # fmt: skip
        assert not table.schema.field("ts_ns").nullable and table.schema.field("seq").nullable
        assert [Event.from_dict(row) for row in table.to_pylist()] == events
    assert pq.ParquetFile(direct).num_row_groups == -(-len(events) // 10)
    assert jsonl_to_parquet(tmp_path / "h.jsonl", tmp_path / "again.parquet").exists()


def test_writer_refuses_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.jsonl or \.parquet"):
        HistoryWriter(tmp_path / "h.csv")


def test_imports_stay_light() -> None:
    code = (
        "import sys, pytest_pulsar_ha.history, spark_checks, spark_checks.checks, spark_checks.cli;"
        "heavy = [m for m in ('pyspark', 'pyarrow', 'py4j') if m in sys.modules];"
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
