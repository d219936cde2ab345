"""The Spark job over a laid-out history: one task per bucket (:mod:`spark_checks.arrays.buckets`), no shuffle, then
the tasks' results added up on the driver (one small document per bucket).

One Spark partition holds one bucket. With ``read="arrow"`` (the default) the partitions are the bucket numbers
(an RDD of N numbers in N partitions) and each task reads its bucket file with PyArrow; with ``read="spark"``
Spark reads the bucket files itself, with ``spark.sql.files.maxPartitionBytes`` and ``openCostInBytes`` set so
that each file is one partition, and ``mapInArrow`` hands each task its rows. Measured at 10M events on two
cores: Spark's conversion of the rows to Arrow costs about five times PyArrow's reading of the same files; and a
first ``mapInArrow`` job on a new session costs some 2 s more than a first RDD job (Spark SQL's planning and its
Arrow machinery start up, for nothing when the task reads its own file). Hence the default.

Adding up: the figures rows of each group are summed over the buckets; the lag percentiles of each route and of
the whole history come from the buckets' summaries (:mod:`spark_checks.arrays.lag_summary`); example candidates are kept
for the checks to pick from (:mod:`spark_checks.spark.bucket_evidence`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..arrays.buckets import OUTPUT_SCHEMA, READ_COLUMNS, check_bucket_numbers, check_bucket_rows
from ..arrays.lag_summary import percentiles
from ..figures import FIGURE_DIMENSIONS, LAG_PERCENTILES, MEASURES, Figures
from .executors import map_in_arrow, prepare_executors

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from ..arrays.layout import Layout

READS = ("arrow", "spark")
ONE_FILE_PER_PARTITION = {
    "spark.sql.files.maxPartitionBytes": str(1 << 40),
    "spark.sql.files.openCostInBytes": str(1 << 40),
}
"""No file is split (below 1 TiB) and no two files share a partition (each file costs a whole partition)."""


@dataclass
class BucketResult:
    """What the job collected: the figures and every bucket's example candidates (each tagged ``bucket``)."""

    figures: Figures
    candidates: list[dict[str, Any]] = field(default_factory=list)


def bucket_frame(spark: SparkSession, layout: Layout, examples: int, *, figures: bool = True) -> DataFrame:
    """Spark's reading of the bucket files, one per partition, and ``mapInArrow`` of each bucket's rows: one row
    per bucket (:data:`~spark_checks.arrays.buckets.OUTPUT_SCHEMA`), not yet computed (see :func:`collect_results`)."""
    events = spark.read.parquet(*layout.paths).select(*READ_COLUMNS)
    return map_in_arrow(events, functools.partial(check_bucket_rows, examples=examples, figures=figures), OUTPUT_SCHEMA)


def collect_results(spark: SparkSession, layout: Layout, examples: int, *, read: str, figures: bool) -> list[Any]:
    """Run the job: every bucket's result document."""
    if read not in READS:
        raise ValueError(f"read must be one of {', '.join(READS)}, not {read!r}")
    prepare_executors(spark)
    paths = layout.paths
    if read == "arrow":
        numbers = spark.sparkContext.parallelize(range(len(paths)), max(len(paths), 1))
        task = functools.partial(check_bucket_numbers, paths=paths, examples=examples, figures=figures)
        return [json.loads(document) for document in numbers.mapPartitions(task).collect()]
    frame = bucket_frame(spark, layout, examples, figures=figures)
    saved: dict[str, str | None] = {}
    if read == "spark":  # read when the job runs: set around it
        for key, value in ONE_FILE_PER_PARTITION.items():
            saved[key] = spark.conf.get(key, None)
            spark.conf.set(key, value)
    try:
        return [json.loads(row[0]) for row in frame.collect()]
    finally:
        for key, old in saved.items():
            if old is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, old)


def add_up(results: Sequence[dict[str, Any]]) -> BucketResult:
    """The figures of the whole history from its buckets' results, and their candidates."""
    sums: dict[tuple[Any, ...], list[int]] = {}
    routes: dict[tuple[str, str], list[dict[str, Any]]] = {}
    candidates = []
    for bucket, result in enumerate(results):
        for row in result["figures"]:
            key = tuple(row[name] for name in FIGURE_DIMENSIONS)
            known = sums.setdefault(key, [0] * len(MEASURES))
            for index, name in enumerate(MEASURES):
                known[index] += int(row[name])
        for ack_cluster, cluster, summary in result["lag"]:
            routes.setdefault((ack_cluster, cluster), []).append(summary)
        candidates += [{**candidate, "bucket": bucket} for candidate in result["examples"]]
    rows = [
        dict(zip(FIGURE_DIMENSIONS, key, strict=True)) | dict(zip(MEASURES, v, strict=True)) for key, v in sums.items()
    ]
    lag = []
    everything = [summary for summaries in routes.values() for summary in summaries]
    for (ack_cluster, cluster), summaries in [*routes.items(), ((None, None), everything)]:
        if summaries:
            lag.append(
                {
                    "ack_cluster": ack_cluster,
                    "cluster": cluster,
                    "p": percentiles(summaries, LAG_PERCENTILES),
                    "max": max(summary["max"] for summary in summaries),
                    "n": sum(summary["n"] for summary in summaries),
                }
            )
    return BucketResult(Figures(rows, lag), candidates)


def run_buckets(
    spark: SparkSession, layout: Layout, examples: int, *, read: str = "arrow", figures: bool = True
) -> BucketResult:
    """Run the job and add up its results (unless ``figures`` is False: only the example candidates, the first
    ``examples`` of each kind per bucket)."""
    return add_up(collect_results(spark, layout, examples, read=read, figures=figures))
