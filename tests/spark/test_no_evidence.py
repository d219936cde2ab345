"""No evidence is never a pass: each check fails (or refuses the input) when what it judges is missing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_pulsar_ha.history import PROBE

from .histories import Builder, failover_history

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from spark_checks.spark.load import History

Load = Callable[[Builder], "History"]


@pytest.fixture
def load(spark: SparkSession, tmp_path: Path) -> Iterator[Load]:
    from spark_checks.spark.load import load_history

    loaded: list[History] = []

    def _load(builder: Builder) -> History:
        history = load_history(spark, builder.write(tmp_path / f"history-{len(loaded)}.jsonl"))
        loaded.append(history)
        return history

    yield _load
    for history in loaded:
        history.close()


def _failed_sends(count: int = 3) -> Builder:
    b = Builder()
    for seq in range(1, count + 1):
        b.send(seq * 10, "producer-0", seq).send_error(seq * 10 + 5, "producer-0", seq)
    return b


def test_an_empty_history_is_bad_input(spark: SparkSession, tmp_path: Path) -> None:
    from spark_checks import HistoryInputError, check_history

    (tmp_path / "h.jsonl").write_text("")
    with pytest.raises(HistoryInputError, match="holds no events"):
        check_history(spark, tmp_path / "h.jsonl")


def test_checks_that_need_sends_refuse_a_history_without_any(load: Load) -> None:
    from spark_checks import HistoryInputError, check_accounting, check_availability

    history = load(Builder().add(0, PROBE, "provider", cluster="cluster-a", detail="{}"))
    with pytest.raises(HistoryInputError, match=r"no send event.*availability"):
        check_availability(history)
    with pytest.raises(HistoryInputError, match=r"no send event.*accounting"):
        check_accounting(history)


def test_lost_without_any_ack_fails(load: Load) -> None:
    from spark_checks import check_lost

    verdict = check_lost(load(_failed_sends()))
    assert not verdict.ok and "no send was acknowledged" in verdict.reason


def test_availability_without_any_ack_fails_even_when_the_run_is_short(load: Load) -> None:
    from spark_checks import check_availability

    verdict = check_availability(load(_failed_sends()), gap_threshold_s=10.0)
    assert not verdict.ok and "no send was acknowledged" in verdict.reason
    assert verdict.counts["acknowledged_sends"] == 0


def test_duplicates_and_ordering_without_any_receive_fail(load: Load) -> None:
    from spark_checks import check_duplicates, check_ordering

    history = load(failover_history(per_producer=3, subscriptions=()))
    duplicates, ordering = check_duplicates(history, max_duplicates=5), check_ordering(history)
    assert not duplicates.ok and "no receive event" in duplicates.reason
    assert not ordering.ok and "no receive event" in ordering.reason


def test_ordering_per_key_without_any_keyed_receive_fails(load: Load) -> None:
    from spark_checks import check_ordering

    b = Builder()
    for seq in range(1, 4):
        b.publish(seq * 10, "producer-0", seq, "cluster-a").receive(seq * 10 + 5, "s", "producer-0", seq, "cluster-a")
    history = load(b)
    assert check_ordering(history, scopes=("producer",)).ok
    per_key = check_ordering(history, scopes=("key",))
    assert not per_key.ok and "no received message has a key" in per_key.reason


def test_a_truncated_last_line_is_skipped_and_counted(spark: SparkSession, tmp_path: Path) -> None:
    from spark_checks import check_history

    lines = [event.to_json() for event in failover_history(per_producer=3).events]
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(lines) + "\n" + lines[5][:30])
    report = check_history(spark, path)
    assert report.ok, report.describe()
    assert report.events == len(lines)
    assert report.notes == ("skipped 1 truncated last line (a run killed mid-write): " + f"{path}:{len(lines) + 1}",)
    assert "skipped 1 truncated last line" in report.describe()


def test_a_last_line_without_newline_that_is_whole_is_read(spark: SparkSession, tmp_path: Path) -> None:
    from spark_checks import check_history

    lines = [event.to_json() for event in failover_history(per_producer=3).events]
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(lines))
    report = check_history(spark, path)
    assert report.ok and report.events == len(lines) and report.notes == ()
