"""Reading a history's events into Spark: the format of a path (JSON Lines or Parquet), the event schema, and the
raw frame with the order columns ``_file`` and ``_row`` (not validated yet: :mod:`spark_checks.spark.validation`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..history_format import (
    COLUMN_TYPES,
    EVENT_COLUMNS,
)
from .lines import Tail, local_files, truncated_tails

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

CORRUPT = "_corrupt_record"
ACK_CLUSTER = "_ack_cluster"
ORDER_COLUMNS = ("ts_ns", "_file", "_row")
"""Receive order: time, then file, then position in the file (ties broken by file order)."""

JSON_SUFFIXES = (".jsonl", ".json", ".ndjson")
PARQUET_SUFFIXES = (".parquet", ".pq")


class HistoryInputError(ValueError):
    """The input is not a usable history (missing file, missing column, wrong type, malformed lines ...)."""


def event_schema(*, corrupt_column: bool = False) -> StructType:
    """The Spark schema of a history (plus the corrupt-record column used when reading JSON Lines)."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    kinds = {"int64": LongType(), "string": StringType()}
    fields = [StructField(name, kinds[kind], nullable) for name, (kind, nullable) in COLUMN_TYPES.items()]
    if corrupt_column:
        fields.append(StructField(CORRUPT, StringType(), True))
    return StructType(fields)


def _format_of(path: str) -> str:
    """``json`` or ``parquet`` for a path (a file, or a directory holding such files)."""
    lowered = path.lower().rstrip("/")
    if lowered.endswith(JSON_SUFFIXES):
        return "json"
    if lowered.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if "://" in path and not path.startswith("file:"):
        return "parquet"  # a remote directory (hdfs://, s3a:// ...): Parquet is the format of large runs
    local = Path(path.removeprefix("file:"))
    if local.is_dir():
        names = [entry.name.lower() for entry in local.iterdir() if not entry.name.startswith((".", "_"))]
        if any(name.endswith(PARQUET_SUFFIXES) for name in names):
            return "parquet"
        if any(name.endswith(JSON_SUFFIXES) for name in names):
            return "json"
        raise HistoryInputError(f"history directory {path} holds no .parquet nor .jsonl file")
    raise HistoryInputError(f"cannot tell the format of {path}: expected a .jsonl or .parquet file, or a directory")


def _check_exists(path: str) -> None:
    if "://" in path and not path.startswith("file:"):
        return
    if not Path(path.removeprefix("file:")).exists():
        raise HistoryInputError(f"no such history file or directory: {path}")


def check_source(path: str | os.PathLike[str]) -> str:
    """What can be checked without Spark: the path exists (if local) and its format is known; returns the format."""
    text = os.fspath(path)
    _check_exists(text)
    return _format_of(text)


def _conform(frame: DataFrame, origin: str) -> DataFrame:
    """Check a frame has every history column with a usable type; cast integers to int64, drop other columns."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegralType, StringType

    types = {field.name: field.dataType for field in frame.schema.fields}
    missing = [name for name in EVENT_COLUMNS if name not in types]
    if missing:
        raise HistoryInputError(
            f"{origin}: missing column(s) {', '.join(missing)} (a history has the columns {', '.join(EVENT_COLUMNS)})"
        )
    columns = []
    for name, (kind, _) in COLUMN_TYPES.items():
        actual = types[name]
        expected_ok = isinstance(actual, IntegralType) if kind == "int64" else isinstance(actual, StringType)
        if not expected_ok:
            raise HistoryInputError(
                f"{origin}: column {name} has type {actual.simpleString()}, expected {kind}"
                + (" (an integer type)" if kind == "int64" else "")
            )
        columns.append(F.col(name).cast("long").alias(name) if kind == "int64" else F.col(name))
    return frame.select(*columns)


@dataclass(frozen=True)
class Source:
    """The raw events of a path or DataFrame, with ``_file``/``_row`` added, and what is known about the files."""

    frame: DataFrame
    label: str
    has_corrupt: bool = False
    """The frame has the corrupt-record column (JSON Lines)."""
    files: list[Path] | None = None
    """The local JSON Lines files read (None: Parquet, a DataFrame or a remote path): bad lines get file:line."""
    tails: list[Tail] = field(default_factory=list)
    """Truncated last lines (a run killed mid-write): skipped and counted, not an error."""


def read_events(spark: SparkSession, source: str | os.PathLike[str] | DataFrame) -> Source:
    """Read the events of a path or DataFrame (not validated yet: see :func:`load_history`)."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    if isinstance(source, DataFrame):
        frame = _conform(source, "DataFrame")
        frame = frame.select("*", F.lit("").alias("_file"), F.monotonically_increasing_id().alias("_row"))
        return Source(frame, "<DataFrame>")
    path = os.fspath(source)
    _check_exists(path)
    kind = _format_of(path)
    # _file breaks ties between files of a directory; one local file needs no path per row (less to shuffle)
    single = ("://" not in path or path.startswith("file:")) and Path(path.removeprefix("file:")).is_file()
    file_column = F.lit("") if single else F.col("_metadata.file_path")
    file_order = [file_column.alias("_file"), F.monotonically_increasing_id().alias("_row")]
    if kind == "json":
        files = local_files(path, JSON_SUFFIXES)
        reader = spark.read.schema(event_schema(corrupt_column=True)).option("mode", "PERMISSIVE")
        frame = reader.option("columnNameOfCorruptRecord", CORRUPT).json(path)
        frame = frame.select(*EVENT_COLUMNS, CORRUPT, *file_order)
        return Source(frame, path, has_corrupt=True, files=files, tails=truncated_tails(files or []))
    try:
        frame = spark.read.parquet(path)
    except Exception as exc:  # AnalysisException & co: unreadable or empty directory, not Parquet ...
        raise HistoryInputError(f"{path}: cannot read as Parquet: {_root_cause(exc)}") from None
    frame = _conform(frame, path)
    return Source(frame.select(*EVENT_COLUMNS, *file_order), path)


def _root_cause(exc: BaseException) -> str:
    """The first line of the innermost Java cause of a Spark error (else of the error itself), for humans."""
    cause = getattr(exc, "java_exception", None)
    text = ""
    while cause is not None:
        text = str(cause.getMessage() or cause.toString())
        cause = cause.getCause()
    text = (text or str(exc)).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    if "is not a Parquet file" in first:
        first = re.sub(r"\. Expected magic number.*", "", first)
        first += " (no Parquet footer: a file cut short, e.g. by a run killed before its writer closed it)"
    return first[:300]
