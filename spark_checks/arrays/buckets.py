"""The function each Spark task runs on one bucket of a laid-out history (:mod:`spark_checks.arrays.layout`): the
vectorised work of the single-process checker (:mod:`spark_checks.arrays.message_arrays`) on the bucket's events,
which are whole producers, so no other task's rows are needed.

Its output is one JSON document per bucket (a row of :data:`OUTPUT_SCHEMA` through ``mapInArrow``) with the
bucket's figures rows (a few: one per figure group), a summary of its replication lag samples per route
(:mod:`spark_checks.arrays.lag_summary`) and its example candidates (:mod:`spark_checks.arrays.array_examples`).
The driver adds them up (:mod:`spark_checks.spark.bucket_job`).

The task reads its bucket with PyArrow (a plain RDD task over bucket numbers: the events never pass through the
JVM), or takes the rows Spark read (``mapInArrow`` over the events, one bucket file per Spark partition). Runs on
Spark's Python workers: NumPy, PyArrow and this package (shipped by :mod:`spark_checks.spark.executors`), nothing of
pyspark.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .message_arrays import COLUMNS, ORDER_COLUMN

READ_COLUMNS = (*COLUMNS, ORDER_COLUMN)
DICTIONARY_COLUMNS = ("type", "cluster", "topic", "subscription", "producer", "key")
OUTPUT_SCHEMA = "payload string"
"""A bucket's output, as a Spark DDL schema: one JSON document."""


def bucket_result(table: Any, examples: int, figures: bool = True) -> dict[str, Any]:
    """The figures rows, lag summaries (per route: ``[ack_cluster, cluster, summary]``) and example candidates
    of one bucket's events (an Arrow table of :data:`READ_COLUMNS`); only the candidates without ``figures``."""
    from .allocator import keep_freed_memory
    from .array_examples import example_candidates
    from .array_figures import figure_table, lag_samples
    from .lag_summary import summarise
    from .message_arrays import MessageArrays

    keep_freed_memory()
    arrays = MessageArrays(table, examples=examples)
    result: dict[str, Any] = {"figures": [], "lag": [], "examples": example_candidates(arrays, examples)}
    if figures:
        result["figures"] = figure_table(arrays).to_pylist()
        result["lag"] = [[ack, cluster, summarise(lags)] for ack, cluster, lags in lag_samples(arrays)]
    return result


def _output(results: Iterable[dict[str, Any]]) -> Iterator[Any]:
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    for result in results:
        yield pa.RecordBatch.from_arrays([pa.array([json.dumps(result, separators=(",", ":"))])], names=["payload"])


def read_bucket(path: str) -> Any:
    """A bucket file's events (strings as dictionaries)."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    return pq.read_table(path, columns=list(READ_COLUMNS), read_dictionary=list(DICTIONARY_COLUMNS))


def check_bucket_numbers(
    numbers: Iterable[int], paths: Sequence[str], examples: int, figures: bool = True
) -> Iterator[str]:
    """A task over bucket numbers (an RDD partition): each number's bucket file read with PyArrow and checked;
    one JSON document per bucket."""
    for number in numbers:
        yield json.dumps(bucket_result(read_bucket(paths[number]), examples, figures), separators=(",", ":"))


def check_bucket_rows(batches: Iterable[Any], examples: int, figures: bool = True) -> Iterator[Any]:
    """``mapInArrow`` over the events Spark read, one whole bucket per partition: gathered into one table."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    gathered = list(batches)
    if gathered:
        yield from _output([bucket_result(pa.Table.from_batches(gathered), examples, figures)])
