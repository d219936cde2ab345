"""The one pass every check reads (spark_checks.spark.messages): one shuffle by producer, the same answers either
way."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .histories import A, B, Builder, failover_history

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def _plan(frame: DataFrame, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    frame.explain()
    return capsys.readouterr().out


def test_the_message_frame_shuffles_the_events_once_by_producer(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """First ack, receipts, duplicates and both ordering scopes (first receipts and each cluster's stream): one
    Exchange (by producer), a few local sorts."""
    from spark_checks.spark.load import load_history

    history = load_history(spark, failover_history(per_producer=3).write(tmp_path / "h.jsonl"), cache=False)
    plan = _plan(history.messages, capsys)
    exchanges = [line for line in plan.splitlines() if "Exchange" in line]
    assert len(exchanges) == 1, plan
    assert "hashpartitioning(producer" in exchanges[0]
    # (producer, seq ...), then per scope receive order by group and by (group, delivering cluster)
    assert plan.count("Sort [") <= 5, plan


def _reorders_among_interleavings() -> Builder:
    """a:1, a:2, b:6, a:4, a:3 on sub-1 (seq 4 allowed, seq 3 a reorder), keyed, plus a second producer on c."""
    b = Builder()
    for seq in (1, 2, 3, 4):
        b.publish(seq, "producer-0", seq, A, "k")
    b.publish(20, "producer-0", 6, B, "k")
    for at, seq in ((30, 1), (31, 2), (32, 6), (33, 4), (34, 3)):
        b.receive(at, "sub-1", "producer-0", seq, B, "k")
    for seq in (1, 2, 3):
        b.publish(40 + seq, "producer-1", seq, "cluster-c", "j")
    for at, seq in ((50, 2), (51, 1), (52, 3)):
        b.receive(at, "sub-1", "producer-1", seq, "cluster-c", "j")
    return b


def test_ordering_per_class_is_the_same_with_windows_partitioned_by_class(spark: SparkSession, tmp_path: Path) -> None:
    """Beyond MAX_INLINE_CLASSES ack clusters the running maxima are partitioned by class: same kinds and maxima."""
    from spark_checks.spark import messages
    from spark_checks.spark.load import load_history

    history = load_history(spark, _reorders_among_interleavings().write(tmp_path / "h.jsonl"), cache=False)
    assert len(history.ack_clusters) == 3
    columns = ["producer", "seq", "producer_kind", "producer_max_seq_before", "key_kind", "key_max_seq_before_any"]

    def flagged(frame: DataFrame) -> list[tuple[object, ...]]:
        rows = frame.where("producer_kind IS NOT NULL OR key_kind IS NOT NULL").select(*columns).collect()
        return sorted(tuple(row) for row in rows)

    inline = flagged(messages.build(history.events, history.ack_clusters))
    partitioned = flagged(messages.build(history.events, history.ack_clusters, max_inline_classes=0))
    assert partitioned == inline
    assert inline == [
        ("producer-0", 3, "reorder", 4, "reorder", 6),
        ("producer-0", 4, "allowed", 2, "allowed", 6),
        ("producer-1", 1, "reorder", 2, "reorder", 2),
    ]
