"""Each check on synthetic histories: every anomaly is found with the right figures and examples, no false alarm."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, SWITCH

from .histories import MS, T0, A, B, Builder, failover_history, key_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from spark_checks.spark.load import History

Load = Callable[[Builder], "History"]
Shared = Callable[[str, Callable[[], Builder]], "History"]


@pytest.fixture
def load(spark: SparkSession, tmp_path: Path) -> Iterator[Load]:
    """Write a builder's events with the history writer (JSON Lines) and load them into Spark (cached)."""
    from spark_checks.spark.load import load_history

    loaded: list[History] = []

    def _load(builder: Builder) -> History:
        path = builder.write(tmp_path / f"history-{len(loaded)}.jsonl")
        history = load_history(spark, path)
        loaded.append(history)
        return history

    yield _load
    for history in loaded:
        history.close()


@pytest.fixture(scope="module")
def shared(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    """Like ``load``, for histories several tests read: each is written and loaded once per module, by name."""
    from spark_checks.spark.load import load_history

    folder = tmp_path_factory.mktemp("shared")
    loaded: dict[str, History] = {}

    def _shared(name: str, build: Callable[[], Builder]) -> History:
        if name not in loaded:
            loaded[name] = load_history(spark, build().write(folder / f"{name}.jsonl"))
        return loaded[name]

    yield _shared
    for history in loaded.values():
        history.close()


# ------------------------------------------------------------------------------------------------ clean run


def test_clean_failover_history_is_all_ok(spark: SparkSession) -> None:
    """Two producers, two clusters, failover to the backup in the middle: every check passes (DataFrame input)."""
    from spark_checks import check_history

    events = failover_history().events
    frame = spark.createDataFrame([e.to_dict() for e in events], schema="ts_ns long, type string, process string, "
                                  "cluster string, topic string, subscription string, producer string, seq long, "
                                  "key string, message_id string, detail string")  # fmt: skip
    report = check_history(spark, frame)
    assert report.ok, report.describe()
    assert report.names == ["lost", "duplicates", "ordering", "accounting", "availability"]
    assert report.events == len(events)
    lost, accounting, availability = report["lost"], report["accounting"], report["availability"]
    assert lost.counts["expected[sub-1]"] == lost.counts["expected[sub-2]"] == 80
    assert accounting.counts["acknowledged[cluster-a]"] == accounting.counts["acknowledged[cluster-b]"] == 40
    assert accounting.counts["sent[none]"] == accounting.counts["send_errors"] == 2
    assert availability.counts["share_acknowledged"] == pytest.approx(80 / 82)
    assert report["ordering"].counts["allowed_cross_cluster_interleavings"] == 0
    text = report.describe()
    assert "PASS: all 5 checks ok" in text and "[ok] availability" in text


# ------------------------------------------------------------------------------------------------ lost


def _lost_history() -> Builder:
    return failover_history().without(RECEIVE, subscription="sub-2", producer="producer-1", seq=7)


def test_one_lost_message_is_found(shared: Shared) -> None:
    from spark_checks import check_duplicates, check_lost, check_ordering

    history = shared("lost", _lost_history)
    verdict = check_lost(history)
    assert not verdict.ok
    assert verdict.counts["lost"] == 1
    assert verdict.counts["lost[sub-2]"] == 1 and verdict.counts["lost[sub-1]"] == 0
    (example,) = verdict.examples
    assert (example["subscription"], example["producer"], example["seq"]) == ("sub-2", "producer-1", 7)
    assert example["ack_cluster"] == A and example["key"] == key_of(7)
    assert "lost[sub-2]" in verdict.describe() and "seq=7" in verdict.describe()
    # the hole is not a duplicate nor a reorder
    assert check_duplicates(history).ok and check_ordering(history).ok


def test_lost_follows_the_subscriptions_asked_for(shared: Shared) -> None:
    from spark_checks import check_lost

    history = shared("lost", _lost_history)
    only_sub_1 = check_lost(history, subscriptions=["sub-1"])
    assert only_sub_1.ok and only_sub_1.counts["lost"] == 0 and "lost[sub-2]" not in only_sub_1.counts
    with_silent = check_lost(history, subscriptions={"persistent://pulsar-ha/ns/orders": ["sub-1", "sub-3"]})
    assert not with_silent.ok
    assert with_silent.counts["lost[sub-3]"] == with_silent.counts["expected[sub-3]"] == 80
    assert with_silent.counts["lost[sub-1]"] == 0


def test_no_consumer_at_all_is_not_a_silent_pass(load: Load) -> None:
    from spark_checks import check_lost

    history = load(failover_history(subscriptions=()))
    assert not check_lost(history).ok
    assert check_lost(history, subscriptions=[]).ok


# ------------------------------------------------------------------------------------------------ duplicates


def test_a_duplicate_is_found_and_bounded(load: Load) -> None:
    from spark_checks import check_duplicates, check_ordering

    builder = failover_history().receive(450, "sub-1", "producer-0", 5, A, key_of(5))
    history = load(builder)
    strict = check_duplicates(history, max_duplicates=0)
    assert not strict.ok
    assert strict.counts["duplicates"] == strict.counts["duplicated_messages"] == 1
    assert strict.counts["duplicates[sub-1]"] == 1 and strict.counts["duplicates[sub-2]"] == 0
    (example,) = strict.examples
    assert (example["subscription"], example["producer"], example["seq"], example["deliveries"]) == (
        "sub-1",
        "producer-0",
        5,
        2,
    )
    assert example["last_ts_ns"] == T0 + 450 * MS
    assert check_duplicates(history, max_duplicates=1).ok
    assert check_ordering(history).ok  # a late copy is a duplicate, not a reorder


# ------------------------------------------------------------------------------------------------ ordering


def _swapped_key_history() -> Builder:
    """sub-1 receives producer-0's seq 3 (key k0) after seq 6 (key k0), both acknowledged by cluster-a."""
    return failover_history().retime(RECEIVE, 110, subscription="sub-1", producer="producer-0", seq=3)


def test_a_reorder_inside_one_key_is_found(shared: Shared) -> None:
    from spark_checks import check_ordering

    verdict = check_ordering(shared("swapped", _swapped_key_history))
    assert not verdict.ok
    assert verdict.counts["reorders[key]"] == 1 and verdict.counts["reorders[producer]"] == 1
    assert verdict.counts["reorders"] == 2 and verdict.counts["allowed_cross_cluster_interleavings"] == 0
    assert {(e["scope"], e["subscription"], e["producer"], e["key"], e["seq"]) for e in verdict.examples} == {
        ("key", "sub-1", "producer-0", "k0", 3),
        ("producer", "sub-1", "producer-0", "k0", 3),
    }
    assert all(e["kind"] == "reorder" and e["max_seq_before"] == 6 for e in verdict.examples)


def test_key_scope_ignores_interleaving_across_keys(load: Load, shared: Shared) -> None:
    """Key_Shared: seq 5 (k2) before seq 4 (k1) breaks producer order only; a real per-key reorder still shows."""
    from spark_checks import check_ordering

    across_keys = load(failover_history().retime(RECEIVE, 86, subscription="sub-1", producer="producer-0", seq=4))
    assert check_ordering(across_keys, scopes=("key",)).ok
    by_producer = check_ordering(across_keys)
    assert by_producer.counts["reorders[producer]"] == 1 and by_producer.counts["reorders[key]"] == 0
    assert not by_producer.ok
    assert not check_ordering(shared("swapped", _swapped_key_history), scopes=("key",)).ok


def _interleaved(backup_cluster: str) -> Builder:
    """producer-0: 1..5 acked by cluster-a; sub-1 got 1, 2, then the outage; 6..8 acked by ``backup_cluster``
    and received first, then the replicated 3..5 (acked by cluster-a) arrive through cluster-b."""
    b = Builder()
    for seq in range(1, 6):
        b.publish(seq * 10, "producer-0", seq, A, "order-1")
    b.receive(15, "sub-1", "producer-0", 1, A, "order-1").receive(25, "sub-1", "producer-0", 2, A, "order-1")
    b.add(60, SWITCH, "consumer-0", cluster=B)
    for seq in range(6, 9):
        b.publish(seq * 10 + 100, "producer-0", seq, backup_cluster, "order-1")
        b.receive(seq * 10 + 105, "sub-1", "producer-0", seq, B, "order-1")
    for seq in range(3, 6):
        b.receive(300 + seq, "sub-1", "producer-0", seq, B, "order-1")
    return b


def test_cross_cluster_interleaving_is_allowed(load: Load) -> None:
    from spark_checks import check_ordering

    verdict = check_ordering(load(_interleaved(backup_cluster=B)))
    assert verdict.ok, verdict.describe()
    assert verdict.counts["reorders"] == 0
    assert verdict.counts["allowed_cross_cluster_interleavings[producer]"] == 3
    assert verdict.counts["allowed_cross_cluster_interleavings[key]"] == 3
    assert {e["seq"] for e in verdict.examples} == {3, 4, 5} and all(e["kind"] == "allowed" for e in verdict.examples)


def test_same_interleaving_within_one_cluster_is_a_reorder(load: Load) -> None:
    from spark_checks import check_ordering

    verdict = check_ordering(load(_interleaved(backup_cluster=A)))
    assert not verdict.ok
    assert verdict.counts["reorders[producer]"] == verdict.counts["reorders[key]"] == 3
    assert verdict.counts["allowed_cross_cluster_interleavings"] == 0


def test_same_cluster_reorder_is_found_among_allowed_ones(load: Load) -> None:
    """a:1, a:2, b:6, a:4, a:3: seq 4 after 6 is allowed (other cluster), seq 3 after 4 is not (same cluster)."""
    from spark_checks import check_ordering

    b = Builder()
    for seq in (1, 2, 3, 4):
        b.publish(seq, "producer-0", seq, A)
    b.publish(20, "producer-0", 6, B)
    for at, seq in ((30, 1), (31, 2), (32, 6), (33, 4), (34, 3)):
        b.receive(at, "sub-1", "producer-0", seq, B)
    verdict = check_ordering(load(b), scopes=("producer",))
    assert verdict.counts["reorders"] == 1 and verdict.counts["allowed_cross_cluster_interleavings"] == 1
    assert [(e["kind"], e["seq"]) for e in verdict.examples] == [("reorder", 3), ("allowed", 4)]


def test_a_swap_among_messages_already_received_from_another_cluster_is_a_reorder(load: Load) -> None:
    """From a: 1..6; then b replays them (the subscription had them all) with 3 and 4 swapped: no first receipt is
    out of order, but b's own stream is; b redelivering 5 and 6 once more rewinds it, which is no reorder."""
    from spark_checks import check_duplicates, check_ordering

    b = Builder()
    for seq in range(1, 7):
        b.publish(seq, "producer-0", seq, A)
    for at, seq in enumerate((1, 2, 3, 4, 5, 6)):
        b.receive(20 + at, "sub-1", "producer-0", seq, A)
    for at, seq in enumerate((1, 2, 4, 3, 5, 6, 5, 6)):
        b.receive(40 + at, "sub-1", "producer-0", seq, B)
    history = load(b)
    verdict = check_ordering(history, scopes=("producer",))
    assert verdict.counts["reorders"] == 1 and verdict.counts["allowed_cross_cluster_interleavings"] == 0
    assert [(e["kind"], e["seq"], e["received_from"]) for e in verdict.examples] == [("reorder", 3, B)]
    assert verdict.examples[0]["max_seq_before_from_same_cluster"] == 4
    assert check_duplicates(history).counts["duplicates"] == 8


def test_redelivery_after_consumer_restart_is_duplicates_not_reorder(load: Load) -> None:
    from spark_checks import check_duplicates, check_ordering

    b = Builder()
    for seq in range(1, 21):
        b.publish(seq * 10, "producer-0", seq, A, key_of(seq))
    for seq in range(1, 11):
        b.receive(seq * 10 + 5, "sub-1", "producer-0", seq, A, key_of(seq))
    b.add(120, "fault_start", "nemesis", detail='{"fault": "kill consumer-0"}')
    for offset, seq in enumerate(list(range(6, 11)) + list(range(11, 21))):  # unacked 6..10 come again, then on
        b.receive(300 + offset, "sub-1", "producer-0", seq, A, key_of(seq))
    history = load(b)
    ordering = check_ordering(history)
    assert ordering.ok and ordering.counts["reorders"] == 0
    assert ordering.counts["allowed_cross_cluster_interleavings"] == 0
    duplicates = check_duplicates(history)
    assert not duplicates.ok and duplicates.counts["duplicates"] == 5
    assert [e["seq"] for e in duplicates.examples] == [6, 7, 8, 9, 10]


def test_ordering_does_not_depend_on_bucket_size(load: Load) -> None:
    """Tiny buckets (one receipt each) carry the running maximum across buckets: same figures as one bucket."""
    from spark_checks import check_ordering

    history = load(_swapped_key_history().retime(RECEIVE, 90, subscription="sub-2", producer="producer-1", seq=4))
    one_bucket = check_ordering(history, bucket_s=60.0)
    tiny = check_ordering(history, bucket_s=0.0005)
    assert one_bucket.counts == tiny.counts
    assert one_bucket.counts["reorders[producer]"] == 2 and one_bucket.counts["reorders[key]"] == 1


# ------------------------------------------------------------------------------------------------ accounting


def _tiny() -> Builder:
    b = Builder()
    b.publish(0, "p", 1, A).receive(10, "sub-1", "p", 1, A).receive(42, "sub-2", "p", 1, B)  # lag 40 ms
    b.publish(100, "p", 2, A).receive(110, "sub-1", "p", 2, A).receive(162, "sub-2", "p", 2, B)  # lag 60 ms
    b.send(200, "p", 3).send_error(230, "p", 3)
    b.publish(300, "p", 4, B).receive(310, "sub-1", "p", 4, B).receive(402, "sub-2", "p", 4, A)  # lag 100 ms
    return b


def test_accounting_figures_on_a_tiny_history(load: Load) -> None:
    from spark_checks import check_accounting

    verdict = check_accounting(load(_tiny()))
    assert verdict.ok
    ms = MS
    expected = {
        "clusters": 2,
        "sent": 4,
        "acknowledged": 3,
        "received": 6,
        "replicated": 3,
        "received_unacked": 0,
        "received_unknown": 0,
        "send_errors": 1,
        "sent[cluster-a]": 2,
        "sent[cluster-b]": 1,
        "sent[none]": 1,
        "acknowledged[cluster-a]": 2,
        "acknowledged[cluster-b]": 1,
        "received[cluster-a]": 3,
        "received[cluster-b]": 3,
        "replicated[cluster-a]": 1,
        "replicated[cluster-b]": 2,
        "replication_lag_samples": 3,
        "replication_lag_p50_ns": 60 * ms,
        "replication_lag_p90_ns": 100 * ms,
        "replication_lag_p99_ns": 100 * ms,
        "replication_lag_max_ns": 100 * ms,
        "replication_lag_samples[cluster-a->cluster-b]": 2,
        "replication_lag_p50_ns[cluster-a->cluster-b]": 40 * ms,
        "replication_lag_p90_ns[cluster-a->cluster-b]": 60 * ms,
        "replication_lag_p99_ns[cluster-a->cluster-b]": 60 * ms,
        "replication_lag_max_ns[cluster-a->cluster-b]": 60 * ms,
        "replication_lag_samples[cluster-b->cluster-a]": 1,
        "replication_lag_p50_ns[cluster-b->cluster-a]": 100 * ms,
        "replication_lag_p90_ns[cluster-b->cluster-a]": 100 * ms,
        "replication_lag_p99_ns[cluster-b->cluster-a]": 100 * ms,
        "replication_lag_max_ns[cluster-b->cluster-a]": 100 * ms,
    }
    assert verdict.counts == expected
    assert "60.000 ms" in verdict.describe()


def test_a_message_nobody_sent_fails_accounting(load: Load) -> None:
    from spark_checks import check_accounting

    verdict = check_accounting(load(_tiny().receive(500, "sub-1", "ghost", 9, B)))
    assert not verdict.ok and verdict.counts["received_unknown"] == 1
    assert [(e["producer"], e["seq"]) for e in verdict.examples] == [("ghost", 9)]


# ------------------------------------------------------------------------------------------------ availability


def test_availability_gap_has_the_right_window(load: Load) -> None:
    """The failover history's last cluster-a ack is at 385 ms, the first cluster-b ack at 902 ms."""
    from spark_checks import check_availability

    history = load(failover_history())
    verdict = check_availability(history, gap_threshold_s=0.5)
    assert not verdict.ok
    assert verdict.examples == [{"start_ts_ns": T0 + 385 * MS, "end_ts_ns": T0 + 902 * MS, "duration_ns": 517 * MS}]
    assert verdict.counts["gaps"] == 1 and verdict.counts["longest_gap_ns"] == 517 * MS
    assert check_availability(history, gap_threshold_s=0.6).ok


def test_trailing_outage_and_per_producer_gaps(load: Load) -> None:
    """producer-0 is acked every 10 ms for 3 s; producer-1 only for its first second, then its sends fail."""
    from spark_checks import check_availability

    b = Builder()
    for i in range(301):
        b.publish(i * 10, "producer-0", i + 1, A)
    for i in range(101):
        b.publish(i * 10 + 1, "producer-1", i + 1, A)
    for i in range(20):
        seq, at = 102 + i, 1100 + i * 100
        b.send(at, "producer-1", seq).send_error(at + 50, "producer-1", seq)
    history = load(b)
    overall = check_availability(history, gap_threshold_s=1.0)
    assert overall.ok and overall.counts["sends"] == 301 + 101 + 20
    assert overall.counts["acknowledged_sends"] == 402
    detailed = check_availability(history, gap_threshold_s=1.0, per_producer=True)
    assert not detailed.ok and detailed.counts["gaps"] == 0 and detailed.counts["producer_gaps"] == 1
    # from producer-1's last ack (1001 + 2 ms) to its last failed attempt (3000 + 50 ms)
    assert detailed.examples == [
        {"producer": "producer-1", "start_ts_ns": T0 + 1003 * MS, "end_ts_ns": T0 + 3050 * MS, "duration_ns": 2047 * MS}
    ]
    b.without(SEND, producer="producer-0").without(ACK, producer="producer-0")
    only_failing = check_availability(load(b), gap_threshold_s=1.0)
    assert only_failing.counts["gaps"] == 1 and only_failing.examples[0]["end_ts_ns"] == T0 + 3050 * MS


# ------------------------------------------------------------------------------------------------ input


def test_bad_input_names_the_problem(spark: SparkSession, tmp_path: Path) -> None:
    from spark_checks import HistoryInputError, load_history

    frame = spark.createDataFrame([(1, "send", "p")], "ts_ns long, type string, process string")
    with pytest.raises(HistoryInputError, match=r"missing column.*cluster.*seq"):
        load_history(spark, frame)
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"ts_ns": 1, "type": "send", "process": "p", "producer": "p", "seq": 1}\n'
        '{"ts_ns": 2, "type": "teleport", "process": "p"}\n'
        '{"ts_ns": 3, "type": "ack", "process": "p", "cluster": "a", "producer": "p"}\n'
    )
    with pytest.raises(HistoryInputError, match=r"unknown type \['teleport'\].*lack the column producer or seq"):
        load_history(spark, path)
