"""Loading a Parquet history for the buckets engine: lay it out (:mod:`spark_checks.arrays.layout`), judge the row rules
from the figures the layout counted, and wrap it in a :class:`~spark_checks.spark.history.History` whose figures and
example rows come from one Spark task per bucket (:mod:`spark_checks.spark.bucket_evidence`).

The input is a local Parquet file or a flat directory of them (laid out into ``layout_dir``, or a temporary
directory removed when the history is closed), or a directory laid out already (``_layout.json``: used as it
is). Spark reads the history's events only if the availability check asks for them, or first thing when a file's
schema is not a history's (so the error is the frame engine's: the missing column, the wrong type). Errors read
as the frame engine's: the row rules are judged on the same figures, with the same messages
(:func:`spark_checks.spark.validation._row_problems`).
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..arrays.layout import Layout, history_files, is_layout, lay_out
from ..history_format import ACK, COLUMN_TYPES, EVENT_COLUMNS, RECEIVE, SEND, SEND_ERROR
from .bucket_evidence import BucketEvidence
from .history import History
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


def parallelism_of(master: str | None) -> int:
    """The cores a master gives, as far as its URL tells (``local[N]``: N; otherwise this machine's)."""
    cores = os.cpu_count() or 1
    if master and master.startswith("local"):
        inside = master[len("local[") : -1].split(",")[0] if master.startswith("local[") else "1"
        return cores if inside == "*" else max(int(inside), 1)
    return cores


class BackgroundLayout:
    """Lay a history out in a thread of this process, e.g. while the Spark session starts: the driver does the
    layout, the JVM starts in its own process, so both proceed at once. :meth:`wait` gives the directory to pass
    as ``layout_dir`` (``load_history`` then finds the layout done and keeps it), or None when the layout failed
    (``load_history`` then lays out again and reports the problem as usual). :meth:`close` removes the directory.
    """

    def __init__(self, source: str | os.PathLike[str], *, parallelism: int, directory: str | None = None) -> None:
        self.source = os.fspath(source)
        self.directory = Path(directory or tempfile.mkdtemp(prefix="pulsar-ha-layout-", dir=_layout_root()))
        self.owned = directory is None
        self.seconds: float | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(parallelism,), name="history-layout", daemon=True)
        self._thread.start()

    def _run(self, parallelism: int) -> None:
        import time

        began = time.monotonic()
        try:
            lay_out(self.source, self.directory, parallelism=parallelism)
        except Exception as exc:  # the foreground load lays out again and reports it
            self.error = exc
        self.seconds = time.monotonic() - began

    def wait(self) -> Path | None:
        self._thread.join()
        return None if self.error is not None else self.directory

    def close(self) -> None:
        self._thread.join()
        if self.owned:
            shutil.rmtree(self.directory, ignore_errors=True)


def _layout_root() -> str | None:
    return os.environ.get(LAYOUT_DIR_ENV) or None


def conforms(source: str | os.PathLike[str]) -> bool:
    """Whether every Parquet file of a local history has the history's columns with types Spark reads as they
    must be (integers for the int64 columns, strings for the others): then Spark need not read the schema before
    the checks (it reads the events only if availability asks for them)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    signed = (pa.int8(), pa.int16(), pa.int32(), pa.int64())
    for path in history_files(source) or []:
        try:
            schema = pq.read_schema(path)
        except (OSError, pa.ArrowException):
            return False
        for name, (kind, _) in COLUMN_TYPES.items():
            if name not in schema.names:
                return False
            found = schema.field(name).type
            if pa.types.is_dictionary(found):
                found = found.value_type
            if (found not in signed) if kind == "int64" else not pa.types.is_string(found):
                return False
    return True


def _source_events(spark: SparkSession, path: str) -> DataFrame:
    return read_events(spark, path).frame


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
    events: DataFrame | Callable[[], DataFrame]
    if is_layout(path):
        layout = Layout.read(path.removeprefix("file:"))
        events, label = functools.partial(_layout_events, spark, layout), path
    else:
        label = path
        events = functools.partial(_source_events, spark, path)
        if not conforms(path):  # Spark says what is wrong, in the frame engine's words (or reads it after all)
            events = read_events(spark, path).frame
        target = layout_dir
        if target is None:
            target = tempfile.mkdtemp(prefix="pulsar-ha-layout-", dir=_layout_root())
            owned = True
        try:
            layout = lay_out(path, target, parallelism=spark.sparkContext.defaultParallelism)
        except BaseException:
            if owned:
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
            events,
            label=label,
            stats=kept,
            cache=cache,
            ack_clusters=layout.ack_clusters,
            evidence=evidence,
            spark=spark,
        )
        if stats.get(SEND) or stats.get(ACK) or stats.get(RECEIVE) or stats.get(SEND_ERROR):
            _ = history.figures  # the message rules are checked here, as the frame engine does
    except BaseException:
        evidence.close()
        raise
    return history
