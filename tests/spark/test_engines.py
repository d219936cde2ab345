"""The buckets engine (the history laid out by producer, one task per bucket, no shuffle) gives what the message
frame gives, on every held history: the same refusal of a bad one, the same row figures, the same figures rows
and lag figures, the same verdicts with the same example rows. And the single-process vectorised checker gives
the same figures rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .engine_cases import cases, random_histories

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CASES = cases()


def _outcome(spark: SparkSession, source: Path, engine: str, **load: Any) -> tuple[Any, ...]:
    """What a history gets from one engine: the error, or its stats, figures and every verdict."""
    from spark_checks import HistoryInputError, check_history, check_lost, load_history

    try:
        history = load_history(spark, source, engine=engine, **load)
    except HistoryInputError as exc:
        return ("refused", str(exc))
    try:
        assert history.engine == engine
        try:
            report = check_history(spark, history)
        except HistoryInputError as exc:
            return ("no evidence", str(exc), history.stats)
        verdicts = [verdict.to_dict() for verdict in report]
        # In one order on both engines: a set's order of a topic and None can follow insertion (when their hashes
        # share a slot, one run in eight by PYTHONHASHSEED), and the verdict lists the pairs as asked.
        topics = sorted({row["ack_topic"] for row in history.figures.rows}, key=str)
        asked = check_lost(history, subscriptions={topic: ["sub-1", "sub-3"] for topic in topics})
        return ("checked", history.stats, history.figures.comparable(), verdicts, asked)
    finally:
        history.close()


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_engines_agree_on_every_held_history(spark: SparkSession, tmp_path: Path, name: str) -> None:
    source = CASES[name](tmp_path)
    if source is None:
        pytest.skip("a JSON Lines case with lines no Parquet history can hold")
    frame = _outcome(spark, source, "frame")
    buckets = _outcome(spark, source, "buckets")
    assert buckets == frame


@pytest.fixture(scope="module")
def random_history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from pytest_pulsar_ha.history import write_events_parquet

    folder = tmp_path_factory.mktemp("random")
    yield write_events_parquet(random_histories(150), folder / "history.parquet")


def test_random_histories_give_the_same_figures_everywhere(
    spark: SparkSession, random_history: Path, tmp_path: Path
) -> None:
    """150 histories in one file, each its own topic: the figures rows are per history. Frame, buckets (any
    number of buckets, either reader, laid out beforehand) and the single-process checker agree."""
    from spark_checks import load_history
    from spark_checks.arrays.layout import lay_out
    from spark_checks.arrays.vectorised import figures_of_table, read_parquet

    with load_history(spark, random_history, engine="frame") as frame:
        expected = frame.figures.comparable()
        assert len(expected[0]) > 300 and expected[1]  # many figure groups, and replication lag
        expected_reports = [v.to_dict() for v in _checks(frame)]
    assert figures_of_table(read_parquet(random_history)).comparable()[0] == expected[0]
    variants: list[tuple[str, dict[str, Any]]] = [(str(random_history), {}), (str(random_history), {"read": "spark"})]
    for count in (1, 7):
        variants.append((str(lay_out(random_history, tmp_path / f"layout-{count}", buckets=count).directory), {}))
    for source, options in variants:
        with load_history(spark, source, engine="buckets", **options) as buckets:
            assert buckets.figures.comparable() == expected, (source, options)
            assert [v.to_dict() for v in _checks(buckets)] == expected_reports, (source, options)


def _checks(history: Any) -> list[Any]:
    """The checks with more example rows than the buckets gathered when loading (they gather again)."""
    from spark_checks import check_accounting, check_duplicates, check_lost, check_ordering

    return [
        check_lost(history, examples=20),
        check_duplicates(history, max_duplicates=10**6, examples=20),
        check_ordering(history, examples=20),
        check_accounting(history, examples=20),
    ]


def test_auto_picks_buckets_for_local_parquet_and_the_frame_otherwise(spark: SparkSession, tmp_path: Path) -> None:
    from spark_checks import load_history
    from spark_checks.spark.load import choose_engine

    from .histories import failover_history

    builder = failover_history(per_producer=3)
    parquet, jsonl = builder.write(tmp_path / "h.parquet"), builder.write(tmp_path / "h.jsonl")
    assert choose_engine(parquet) == "buckets" and choose_engine(jsonl) == "frame"
    assert choose_engine("hdfs://namenode/history") == "frame"  # remote: Spark reads it, the layout cannot
    with pytest.raises(ValueError, match="not a DataFrame"):
        choose_engine(spark.range(1), "buckets")  # type: ignore[arg-type]
    with load_history(spark, parquet) as history:
        assert history.engine == "buckets"
        layout = history.evidence.layout.directory  # type: ignore[attr-defined]
        assert layout.is_dir()
    assert not layout.exists()  # a temporary layout goes with the history
