"""A fleet worker's rows become exactly the history events the single-process driver records (the same columns,
the same ``detail`` JSON, the cluster of a seeded ledger id), in time order."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, SEND_ERROR, Event
from pytest_pulsar_ha.history.files import arrow_schema
from pytest_pulsar_ha.workload.fleet.columns import Names, Rows, progress_of, to_table
from pytest_pulsar_ha.workload.fleet.worker import parse_head

TOPIC = "persistent://pulsar-ha/ns/orders"
NAMES = Names(
    producers=[("producer-0", TOPIC), ("producer-1", TOPIC)],
    consumers=[("consumer-0", "workload")],
    keys=4,
    payload_size=1024,
    seeded={1: "cluster-a", 2: "cluster-b"},
)
T0 = 1_800_000_000_000_000_000


def events_of(rows: Rows) -> list[Event]:
    return [Event(**row) for row in to_table(NAMES, rows).to_pylist()]


def test_each_kind_of_row_is_the_drivers_event() -> None:
    rows = Rows()
    rows.sends.append((T0, 1, 7, 2, T0 - 5))
    rows.acks.append((T0 + 10, 1, 7, 2, (2 << 32) | 9, 4, -1))
    rows.errors.append((T0 + 20, 0, 3, -1, "Timeout"))
    rows.receipts.append((T0 + 30, 0, f"{TOPIC}-partition-1", "producer-1", 7, "k2", (1 << 32) | 3, 5, 1, 1024))
    assert events_of(rows) == [
        Event(
            T0,
            SEND,
            "producer-1",
            topic=TOPIC,
            producer="producer-1",
            seq=7,
            key="k2",
            detail=json.dumps({"intended_ns": T0 - 5}),
        ),
        Event(
            T0 + 10,
            ACK,
            "producer-1",
            cluster="cluster-b",
            topic=TOPIC,
            producer="producer-1",
            seq=7,
            key="k2",
            message_id=f"{(2 << 32) | 9}:4:-1",
            detail=json.dumps({"payload_size": 1024}),
        ),
        Event(T0 + 20, SEND_ERROR, "producer-0", topic=TOPIC, producer="producer-0", seq=3, detail="Timeout"),
        Event(
            T0 + 30,
            RECEIVE,
            "consumer-0",
            cluster="cluster-a",
            topic=f"{TOPIC}-partition-1",
            subscription="workload",
            producer="producer-1",
            seq=7,
            key="k2",
            message_id=f"{(1 << 32) | 3}:5:1",
            detail=json.dumps({"payload_size": 1024}),
        ),
    ]


def test_a_ledger_id_no_cluster_was_seeded_with_leaves_the_cluster_to_the_attribution() -> None:
    rows = Rows()
    rows.acks.append((T0, 0, 1, -1, 17, 0, -1))  # Pulsar's own numbering (a multi-broker cluster)
    rows.acks.append((T0 + 1, 0, 2, -1, (7 << 32) | 1, 0, -1))  # seeded, but not by one of these clusters
    assert [e.cluster for e in events_of(rows)] == [None, None]


def test_nothing_gathered_is_an_empty_table_of_the_history_schema() -> None:
    assert to_table(NAMES, Rows()).schema == arrow_schema()
    assert to_table(NAMES, Rows()).num_rows == 0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 1), st.integers(1, 10**6)), max_size=40))
def test_rows_come_out_in_time_order_and_the_progress_report_names_each_outcome(
    acks: list[tuple[int, int, int]],
) -> None:
    rows = Rows()
    for ts, producer, seq in acks:
        rows.acks.append((T0 + ts, producer, seq, -1, (1 << 32) | 1, 0, -1))
    table = to_table(NAMES, rows)
    stamps = table["ts_ns"].to_pylist()
    assert stamps == sorted(stamps)
    report = progress_of(table)
    if not acks:
        assert report == {}
        return
    names, codes, seqs = report[ACK]
    got = sorted((names[c], int(s)) for c, s in zip(codes, seqs, strict=True))
    assert got == sorted((f"producer-{p}", seq) for _, p, seq in acks)


def test_a_flushed_part_reads_back_as_a_history(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = Rows()
    rows.sends.append((T0, 0, 1, -1, T0))
    path = tmp_path / "w00-000000.parquet"
    pq.write_table(to_table(NAMES, rows), str(path))
    assert pq.read_table(str(path)).schema == arrow_schema()


@given(st.binary(max_size=80))
def test_any_payload_parses_without_raising_and_a_parsed_one_starts_with_its_head(data: bytes) -> None:
    head = parse_head(data)
    if head is not None:
        name, seq = head
        first, second = data.split(b"#")[:2]
        assert first == name and int(second) == seq


def test_a_workload_payload_names_its_producer_and_seq() -> None:
    assert parse_head(b"producer-3#1234#" + b"." * 1000) == (b"producer-3", 1234)
    assert parse_head(b"#12#") is None
    assert parse_head(b"producer-3#x#") is None


def test_a_flush_loses_no_row_appended_by_another_thread_meanwhile() -> None:
    """Threads append rows built with a call in them (``time.time_ns()``, as the worker's are: the interpreter may
    switch threads after it, between looking the list up and appending) while the flusher takes: every row comes
    out exactly once. Swapping in new lists, as the first version did, lost a few rows per 200,000 here (a send
    missing from the history while its ack was there, a receipt missing and a drain that never ended)."""
    import threading
    import time

    from pytest_pulsar_ha.workload.fleet.columns import MessageColumns

    columns = MessageColumns()
    per_thread, threads = 100_000, 2

    def append(offset: int) -> None:
        for seq in range(per_thread):
            columns.rows.sends.append((time.time_ns(), offset, seq, -1, time.time_ns()))

    workers = [threading.Thread(target=append, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    taken: list[tuple[int, int, int, int, int]] = []
    while any(w.is_alive() for w in workers):
        rows = columns.take()
        time.sleep(0.001)  # the flusher turns them into a table a moment later
        taken += rows.sends
    for worker in workers:
        worker.join()
    taken += columns.take().sends
    assert sorted((row[1], row[2]) for row in taken) == [(n, s) for n in range(threads) for s in range(per_thread)]
