"""The vectorised single-process checker (the Spark checker's baseline) gives the plain Python checker's figures:
on the benchmark's generated histories and on any small history Hypothesis draws (ties, nulls, duplicates,
several subscriptions and keys, messages never acked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.history import arrow_schema
from spark_checks.arrays.vectorised import check_parquet, check_table
from tests.benchmark_scripts import load_benchmark

BENCH = load_benchmark("spark_checker")


def test_the_generated_histories_give_the_python_checker_s_figures(tmp_path: Path) -> None:
    for events in (4_000, 60_000):
        path = tmp_path / f"history-{events}.parquet"
        injected = BENCH.generate(path, events)
        figures = check_parquet(path)
        assert figures == BENCH.python_checker(path)
        assert figures["lost"] == injected["lost"] and figures["duplicates"] == injected["duplicated"]


EVENT = st.tuples(
    st.integers(0, 6),  # ts (ties are common)
    st.sampled_from(["send", "ack", "receive", "fault_start"]),
    st.sampled_from(["cluster-a", "cluster-b", None]),
    st.sampled_from(["sub-1", "sub-2"]),
    st.sampled_from(["producer-0", "producer-1"]),
    st.integers(1, 5),
    st.sampled_from(["k0", "k1", None]),
)


def _table(events: list[tuple[Any, ...]]) -> pa.Table:
    columns: dict[str, list[Any]] = {name: [] for name in arrow_schema().names}
    for ts, kind, cluster, subscription, producer, seq, key in events:
        row = {
            "ts_ns": ts,
            "type": kind,
            "process": "p",
            "cluster": cluster,
            "topic": "persistent://t/ns/x",
            "subscription": subscription if kind == "receive" else None,
            "producer": producer,
            "seq": seq,
            "key": key,
        }
        for name in columns:
            columns[name].append(row.get(name))
    return pa.Table.from_pydict(columns, schema=arrow_schema())


@settings(max_examples=150, deadline=None)
@given(st.lists(EVENT, max_size=40))
def test_any_small_history_gives_the_python_checker_s_figures(tmp_path_factory: Any, events: list[Any]) -> None:
    table = _table(events)
    path = tmp_path_factory.mktemp("vectorised") / "history.parquet"
    pq.write_table(table, str(path))
    assert check_table(table) == BENCH.python_checker(path)


def test_an_empty_history_has_nothing_to_report() -> None:
    assert check_table(_table([])) == {
        "events": 0,
        "lost": 0,
        "duplicates": 0,
        "reorders": 0,
        "allowed_cross_cluster_interleavings": 0,
    }


def test_a_reorder_within_a_cluster_and_an_interleaving_across_clusters_are_told_apart() -> None:
    events = [
        (1, "ack", "cluster-a", None, "producer-0", 1, None),
        (1, "ack", "cluster-a", None, "producer-0", 2, None),
        (1, "ack", "cluster-b", None, "producer-0", 3, None),
        (2, "receive", "cluster-a", "sub-1", "producer-0", 2, None),
        (3, "receive", "cluster-a", "sub-1", "producer-0", 1, None),  # below 2, same cluster: a reorder
        (4, "receive", "cluster-b", "sub-2", "producer-0", 3, None),
        (5, "receive", "cluster-a", "sub-2", "producer-0", 1, None),  # below 3 of cluster-b only: allowed
        (6, "receive", "cluster-a", "sub-2", "producer-0", 1, None),  # again: a duplicate
    ]
    assert check_table(_table(events)) == {
        "events": 8,
        "lost": 2,  # sub-1 never received seq 3, sub-2 never seq 2
        "duplicates": 1,
        "reorders": 1,
        "allowed_cross_cluster_interleavings": 1,
    }


def test_a_swap_in_one_cluster_s_replay_is_a_reorder_and_a_redelivery_is_not() -> None:
    events = [(0, "ack", "cluster-a", None, "producer-0", seq, None) for seq in range(1, 5)]
    events += [(1, "receive", "cluster-a", "sub-1", "producer-0", seq, None) for seq in range(1, 5)]
    events += [(2 + i, "receive", "cluster-b", "sub-1", "producer-0", seq, None) for i, seq in enumerate((1, 3, 2, 4))]
    events += [(9, "receive", "cluster-b", "sub-1", "producer-0", 1, None)]  # b redelivers 1: a rewind
    figures = check_table(_table(events))
    assert figures["reorders"] == 1 and figures["duplicates"] == 5
