"""The layout of a Parquet history in buckets (spark_checks.arrays.layout) and the lag percentiles from bucket summaries
(spark_checks.arrays.lag_summary): no Spark here, only files and arrays."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from spark_checks.arrays import layout as layout_module
from spark_checks.arrays.lag_summary import POINTS, percentiles, summarise
from spark_checks.arrays.layout import Layout, assign, choose_buckets, lay_out
from tests.benchmark_scripts import load_benchmark

BENCH = load_benchmark("spark_checker")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("layout") / "history.parquet"
    BENCH.generate(path, 40_000, chunk_messages=2_500)  # 8 producers, several row groups
    return path


def _buckets(layout: Layout) -> list[pa.Table]:
    return [pq.read_table(path) for path in layout.paths]


def test_each_bucket_holds_whole_producers_in_history_order(history: Path, tmp_path: Path) -> None:
    layout = lay_out(history, tmp_path / "layout", buckets=3)
    tables = _buckets(layout)
    owners: dict[str, int] = {}
    for index, table in enumerate(tables):
        for producer in pc.unique(table.column("producer")).to_pylist():
            assert owners.setdefault(producer, index) == index  # a producer lives in one bucket
        rows = table.column("_row").to_numpy()
        assert np.all(np.diff(rows) > 0)  # history order
    assert len(owners) == 8 and sorted(set(owners.values())) == [0, 1, 2]
    source = pq.read_table(history)
    together = pa.concat_tables(tables).sort_by("_row")
    positions = together.column("_row").to_numpy()
    for name in ("ts_ns", "type", "producer", "seq", "subscription", "cluster", "key", "topic"):
        assert together.column(name).to_pylist() == source.column(name).take(pa.array(positions)).to_pylist()
    assert layout.events == source.num_rows == len(positions)  # the generated history holds message events only
    assert layout.rows == tuple(table.num_rows for table in tables)


def test_the_row_figures_are_counted_on_the_way(history: Path, tmp_path: Path) -> None:
    stats = lay_out(history, tmp_path / "layout").stats
    source = pq.read_table(history)
    types = source.column("type").to_pylist()
    ts = source.column("ts_ns").to_numpy()
    assert stats["events"] == len(types) and stats["receive"] == types.count("receive")
    assert stats["send"] == types.count("send") and stats["ack"] == types.count("ack")
    assert (stats["first_ts_ns"], stats["last_ts_ns"]) == (int(ts.min()), int(ts.max()))
    assert stats["unknown_type"] == stats["message_without_id"] == stats["ts_out_of_range"] == 0


def test_producers_are_balanced_by_their_events() -> None:
    assert assign({"a": 10, "b": 9, "c": 1, "d": 1}, 2) == {"a": 0, "b": 1, "c": 1, "d": 0}
    assert assign({"x": 5, "y": 5}, 4) == {"x": 0, "y": 1}  # ties by name, then the lowest bucket


@pytest.mark.parametrize(
    ("events", "cores", "producers", "buckets"),
    [(10_000_000, 2, 8, 4), (100_000_000, 2, 8, 8), (100_000_000, 2, 1000, 25), (1_000, 16, 3, 3), (0, 2, 0, 1)],
)
def test_the_bucket_count_follows_cores_size_and_producers(
    events: int, cores: int, producers: int, buckets: int
) -> None:
    assert choose_buckets(events, cores, producers) == buckets


def test_a_layout_of_the_same_files_is_kept_and_a_changed_history_laid_out_again(history: Path, tmp_path: Path) -> None:
    copy = tmp_path / "history.parquet"
    copy.write_bytes(history.read_bytes())
    first = lay_out(copy, tmp_path / "layout", buckets=2)
    stamps = [os.stat(path).st_mtime_ns for path in first.paths]
    again = lay_out(copy, tmp_path / "layout")
    assert again == first and [os.stat(path).st_mtime_ns for path in again.paths] == stamps
    pq.write_table(pq.read_table(copy).slice(0, 1000), copy)
    changed = lay_out(copy, tmp_path / "layout")
    assert changed.events == 1000


def test_a_directory_is_laid_out_in_path_order_with_small_buffers(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layout_module, "BUFFER_ROWS", 8_000)  # every bucket flushes many times
    monkeypatch.setattr(layout_module, "MIN_FLUSH_ROWS", 1_000)
    source = pq.read_table(history)
    directory = tmp_path / "parts"
    directory.mkdir()
    halves = (source.slice(20_000), source.slice(0, 20_000))
    for name, part in zip(("b.parquet", "a.parquet"), halves, strict=True):
        pq.write_table(part, directory / name)  # b holds the later rows, a (first by path) the earlier ones
    laid = lay_out(directory, tmp_path / "layout", buckets=2)
    together = pa.concat_tables(_buckets(laid)).sort_by("_row")
    expected = pa.concat_tables([halves[1], halves[0]])
    assert together.column("seq").to_pylist() == expected.column("seq").to_pylist()
    assert all(pq.ParquetFile(path).metadata.num_row_groups > 1 for path in laid.paths)


def _rule(values: list[int], fraction: float) -> int:
    """percentile_approx on exact samples: the value at rank ceil(fraction * n)."""
    return sorted(values)[math.ceil(fraction * len(values)) - 1]


def test_small_samples_give_percentile_approx_s_exact_values() -> None:
    rng = np.random.default_rng(3)
    values = rng.integers(0, 10**9, 5_000)
    parts = [summarise(chunk) for chunk in np.array_split(values, 7)]
    fractions = (0.5, 0.9, 0.99)
    assert percentiles(parts, fractions) == [_rule(values.tolist(), f) for f in fractions]
    assert percentiles([summarise(np.array([40, 60]))], fractions) == [40, 60, 60]


def test_large_samples_stay_within_n_over_points_ranks() -> None:
    rng = np.random.default_rng(5)
    values = rng.integers(0, 10**9, 300_000)
    parts = [summarise(chunk) for chunk in np.array_split(values, 3)]
    assert all(len(part["values"]) <= POINTS + 1 for part in parts)
    ordered = np.sort(values)
    for fraction, found in zip((0.5, 0.9, 0.99), percentiles(parts, (0.5, 0.9, 0.99)), strict=True):
        rank = math.ceil(fraction * len(values))
        where = np.searchsorted(ordered, found, side="left"), np.searchsorted(ordered, found, side="right")
        assert where[0] - len(values) / POINTS <= rank <= where[1] + len(values) / POINTS
