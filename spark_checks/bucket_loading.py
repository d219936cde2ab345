"""Loading a Parquet history for the buckets engine: lay it out (:mod:`spark_checks.layout`), judge the row rules
from the figures the layout counted, and wrap it in a :class:`~spark_checks.history.History` whose figures and
example rows come from one Spark task per bucket (:mod:`spark_checks.bucket_evidence`).

The input is a local Parquet file or a flat directory of them (laid out into ``layout_dir``, or a temporary
directory removed when the history is closed), or a directory laid out already (``_layout.json``: used as it
is). Spark still reads the history once for its schema (the same column and type errors as the frame engine),
and its events serve the availability check. Errors read as the frame engine's: the row rules are judged on the
same figures, with the same messages (:func:`spark_checks.validation._row_problems`).
"""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING

from .bucket_evidence import BucketEvidence
from .history import History
from .history_format import ACK, EVENT_COLUMNS, RECEIVE, SEND, SEND_ERROR
from .layout import Layout, history_files, is_layout, lay_out
from .reading import HistoryInputError, read_events
from .validation import _row_problems, no_events

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

LAYOUT_DIR_ENV = "PULSAR_HA_LAYOUT_DIR"
"""Where temporary layouts go (default: the system's temporary directory); on a cluster, a directory every
executor can read."""


def can_lay_out(source: str | os.PathLike[str]) -> bool:
    """Whether the buckets engine can take this path: laid out already, or a local Parquet file or flat directory."""
    if is_layout(source):
        return True
    files = history_files(source)
    return bool(files) and all(path.suffix.lower() in (".parquet", ".pq") for path in files or ())


def _layout_events(spark: SparkSession, layout: Layout) -> DataFrame:
    """The events of a laid-out history as a history frame: its message events, other columns null."""
    from pyspark.sql import functions as F

    frame = spark.read.parquet(*layout.paths)
    columns = [
        F.col(name) if name in frame.columns else F.lit(None).cast("string").alias(name) for name in EVENT_COLUMNS
    ]
    return frame.select(*columns, F.lit("").alias("_file"), F.col("_row"))


def load_buckets(
    spark: SparkSession,
    source: str | os.PathLike[str],
    *,
    cache: bool,
    examples: int,
    layout_dir: str | os.PathLike[str] | None = None,
    read: str = "arrow",
) -> History:
    """A history checked by the buckets engine (see the module documentation); its figures are computed here."""
    path = os.fspath(source)
    owned = False
    if is_layout(path):
        layout = Layout.read(path.removeprefix("file:"))
        events, label = _layout_events(spark, layout), path
    else:
        read_source = read_events(spark, path)  # the schema: missing columns, wrong types
        events, label = read_source.frame, read_source.label
        target = layout_dir
        if target is None:
            target = tempfile.mkdtemp(prefix="pulsar-ha-layout-", dir=os.environ.get(LAYOUT_DIR_ENV) or None)
            owned = True
        try:
            layout = lay_out(path, target, parallelism=spark.sparkContext.defaultParallelism)
        except BaseException:
            if owned:
                import shutil

                shutil.rmtree(target, ignore_errors=True)
            raise
    evidence = BucketEvidence(spark, layout, examples, read=read, owned=owned)
    try:
        stats = layout.stats
        problems = _row_problems(None, None, stats, unknown_types=layout.unknown_types)
        if problems:
            raise HistoryInputError(f"{label}: not a valid history: " + "; ".join(problems))
        if not stats["events"]:
            raise no_events(label)
        kept = {name: value for name, value in stats.items() if not name.startswith("null_")}
        history = History(
            events, label=label, stats=kept, cache=cache, ack_clusters=layout.ack_clusters, evidence=evidence
        )
        if stats.get(SEND) or stats.get(ACK) or stats.get(RECEIVE) or stats.get(SEND_ERROR):
            _ = history.figures  # the message rules are checked here, as the frame engine does
    except BaseException:
        evidence.close()
        raise
    return history
