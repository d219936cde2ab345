"""Reading a history into Spark, checking it is one, and the derived frames every check shares.

A :class:`History` wraps the event DataFrame (with the order columns ``_file`` and ``_row`` added at read time,
so that events with the same ``ts_ns`` keep their file order) and builds, on first use, the frames several
checks need: the first acknowledgement of each message and the receipts of each message on each subscription.
With ``cache=True`` these frames are persisted (memory, then disk) until :meth:`History.close`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import messages as message_frame
from .history_format import (
    ACK,
    COLUMN_TYPES,
    EVENT_COLUMNS,
    EVENT_TYPES,
    MAX_TS_NS,
    MESSAGE_EVENT_TYPES,
    MIN_TS_NS,
    RECEIVE,
    REQUIRED_COLUMNS,
    SEND,
    SEND_ERROR,
)
from .lines import Tail, bad_lines, local_files, truncated_tails
from .messages import Figures

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
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


def _row_figures(source: Source) -> list[Column]:
    """The figures of the first pass: per type, bounds, and the count of rows that break each row rule."""
    from pyspark.sql import functions as F

    message_types = ", ".join(f"'{kind}'" for kind in MESSAGE_EVENT_TYPES)
    all_types = ", ".join(f"'{kind}'" for kind in EVENT_TYPES)
    whole = f"{CORRUPT} IS NULL AND " if source.has_corrupt else ""  # rules apply to rows that were read whole
    figures: dict[str, str] = {"events": f"count_if({whole}true)"}
    for name in REQUIRED_COLUMNS:
        figures[f"null_{name}"] = f"count_if({whole}{name} IS NULL)"
    figures["unknown_type"] = f"count_if({whole}type IS NOT NULL AND type NOT IN ({all_types}))"
    figures["message_without_id"] = f"count_if({whole}type IN ({message_types}) AND (producer IS NULL OR seq IS NULL))"
    figures["receive_without_subscription"] = f"count_if({whole}type = '{RECEIVE}' AND subscription IS NULL)"
    figures["ts_out_of_range"] = f"count_if({whole}(ts_ns < {MIN_TS_NS} OR ts_ns >= {MAX_TS_NS}))"
    figures["corrupt"] = f"count_if({CORRUPT} IS NOT NULL)" if source.has_corrupt else "0"
    for kind in EVENT_TYPES:
        figures[kind] = f"count_if(type = '{kind}')"
    figures["receive_with_key"] = f"count_if(type = '{RECEIVE}' AND key IS NOT NULL)"
    figures["first_ts_ns"] = "min(ts_ns)"
    figures["last_ts_ns"] = "max(ts_ns)"
    # the bounds of the ack timeline (availability) come with this pass for free
    figures["first_send_ts_ns"] = f"min(CASE WHEN type = '{SEND}' THEN ts_ns END)"
    figures["last_attempt_ts_ns"] = f"max(CASE WHEN type IN ('{SEND}', '{SEND_ERROR}') THEN ts_ns END)"
    figures["first_ack_ts_ns"] = f"min(CASE WHEN type = '{ACK}' THEN ts_ns END)"
    figures["last_ack_ts_ns"] = f"max(CASE WHEN type = '{ACK}' THEN ts_ns END)"
    columns = [F.expr(value).alias(name) for name, value in figures.items()]
    texts = sorted({tail.text for tail in source.tails})
    truncated = F.count_if(F.col(CORRUPT).isin(texts)) if texts else F.lit(0)
    return [*columns, truncated.alias("truncated")]


def _row_problems(frame: DataFrame, source: Source, stats: dict[str, int | None]) -> list[str]:
    """The row rules a history breaks, each with its count (and an example where the row itself does not say)."""
    from pyspark.sql import functions as F

    problems = []
    malformed = (stats["corrupt"] or 0) - (stats["truncated"] or 0)
    if malformed:
        example = ""
        if not source.files:
            texts = [tail.text for tail in source.tails]
            row = frame.where(F.col(CORRUPT).isNotNull() & ~F.col(CORRUPT).isin(texts)).select(CORRUPT).first()
            example = f", e.g. {(row[0] if row else '')[:200]!r}"
        problems.append(f"{malformed} malformed line(s) (not a JSON object of the right types){example}")
    for name in REQUIRED_COLUMNS:
        if stats[f"null_{name}"]:
            problems.append(f"column {name} is missing or null in {stats[f'null_{name}']} event(s)")
    if stats["unknown_type"]:
        found = [r[0] for r in frame.where(~F.col("type").isin(*EVENT_TYPES)).select("type").distinct().take(5)]
        problems.append(f"{stats['unknown_type']} event(s) of unknown type {found} (valid: {', '.join(EVENT_TYPES)})")
    if stats["message_without_id"]:
        problems.append(
            f"{stats['message_without_id']} {'/'.join(MESSAGE_EVENT_TYPES)} event(s) lack the column producer or seq"
        )
    if stats["receive_without_subscription"]:
        problems.append(f"{stats['receive_without_subscription']} receive event(s) lack the column subscription")
    if stats["ts_out_of_range"]:
        problems.append(
            f"{stats['ts_out_of_range']} event(s) with ts_ns outside 2000-01-01..2100-01-01 (ts_ns is nanoseconds "
            "since the epoch, not seconds nor milliseconds)"
        )
    return problems


def _message_problems(messages: DataFrame, figures: Figures) -> list[str]:
    """The rules about messages: a seq is sent once; an ack or send_error follows a send of the same message."""
    problems = []
    resent, orphans = figures.total("resent"), figures.total("orphans")
    if resent:
        examples = _examples(messages.where("is_message AND sends > 1"))
        problems.append(f"{resent} (producer, seq) sent more than once (a seq is never reused), e.g. {examples}")
    if orphans:
        examples = _examples(messages.where("is_message AND sends = 0 AND outcomes > 0"))
        problems.append(
            f"{orphans} ack/send_error event(s) without a send event for the same (producer, seq), e.g. {examples}"
        )
    return problems


def _examples(frame: DataFrame, count: int = 3) -> str:
    rows = frame.orderBy("producer", "seq").select("producer", "seq").take(count)
    return ", ".join(f"{row['producer']}/{row['seq']}" for row in rows)


def _combine(rows: Sequence[dict[str, int | None]]) -> dict[str, int | None]:
    """The figures of the whole history from those of each group: ``first_*`` the least, ``last_*`` the greatest,
    the counts summed."""
    combined: dict[str, int | None] = {}
    for row in rows:
        for name, value in row.items():
            known = combined.get(name)
            if value is None:
                combined.setdefault(name, None)
            elif known is None:
                combined[name] = value
            elif name.startswith("first_"):
                combined[name] = min(known, value)
            elif name.startswith("last_"):
                combined[name] = max(known, value)
            else:
                combined[name] = known + value
    return combined


def _first_pass(source: Source, frame: DataFrame) -> tuple[dict[str, int | None], list[str]]:
    """The figures of the row rules and the clusters that acknowledged, in one scan (no shuffle).

    Grouped by the cluster of each ack (null for other events): their few groups give the clusters, and the
    pass stays a code-generated hash aggregation (a ``collect_set`` of the clusters would make the whole pass an
    interpreted one, about twice the time). The groups' figures are combined here.
    """
    from pyspark.sql import functions as F

    by_cluster = F.expr(f"CASE WHEN type = '{ACK}' THEN cluster END").alias(ACK_CLUSTER)
    rows = [row.asDict() for row in frame.groupBy(by_cluster).agg(*_row_figures(source)).collect()]
    if not rows:  # no event at all, so no group: the figures of nothing (zeros) say so
        rows = [{ACK_CLUSTER: None, **frame.select(*_row_figures(source)).collect()[0].asDict()}]
    clusters = sorted({row.pop(ACK_CLUSTER) for row in rows} - {None})
    return _combine(rows), clusters


def _validate(source: Source, frame: DataFrame) -> tuple[dict[str, int | None], list[str]]:
    """Figures per type and the clusters that acknowledged, after the row rules (else :class:`HistoryInputError`).

    One pass (no shuffle). The message rules are checked on the message frame (:meth:`History.figures`).
    """
    stats, clusters = _first_pass(source, frame)
    problems = _row_problems(frame, source, stats)
    if problems and source.files:
        located = list(bad_lines(source.files, skip=source.tails))
        if located:
            problems.append("first bad lines: " + "; ".join(located))
    if not problems and not stats["events"]:
        raise HistoryInputError(
            f"{source.label}: holds no events (an empty history: did the run stop before its first event?)"
        )
    if problems:
        raise HistoryInputError(f"{source.label}: not a valid history: " + "; ".join(problems))
    return {name: value for name, value in stats.items() if not name.startswith("null_")}, clusters


def _notes(source: Source) -> list[str]:
    if not source.tails:
        return []
    count = len(source.tails)
    where = ", ".join(str(tail) for tail in source.tails)
    return [f"skipped {count} truncated last line{'s' if count > 1 else ''} (a run killed mid-write): {where}"]


class History:
    """The events of one history in Spark, validated, with the message frame and the figures every check reads.

    The message frame (:mod:`spark_checks.messages`: one shuffle by producer, windows, only the needed columns) and
    its figures (one aggregation) are built on first use; with ``cache`` the frame is persisted until :meth:`close`
    (the checks read their example rows from it).
    """

    def __init__(
        self,
        events: DataFrame,
        *,
        label: str,
        stats: Mapping[str, int | None],
        cache: bool,
        notes: Sequence[str] = (),
        ack_clusters: Sequence[str] = (),
    ) -> None:
        self.events = events
        self.label = label
        self.stats = dict(stats)
        self.cache = cache
        self.notes = tuple(notes)
        """What the reading skipped or assumed (e.g. a truncated last line), for the report."""
        self.ack_clusters = tuple(ack_clusters)
        """The clusters that acknowledged sends (the classes of the ordering check)."""
        self._cached: list[DataFrame] = []
        self._messages: DataFrame | None = None
        self._figures: Figures | None = None
        self._by_type: dict[tuple[str, ...], DataFrame] = {}

    @property
    def spark(self) -> SparkSession:
        return self.events.sparkSession

    def missing(self, needs: Mapping[str, Sequence[str]]) -> str | None:
        """What is missing for checks that need events of some types: ``needs`` is check -> event types.

        Returns None when every check has its events, else one sentence naming the missing types, the checks
        that need them, and what the history holds instead.
        """
        wanted: dict[str, list[str]] = {}
        for check, types in needs.items():
            for kind in types:
                if not self.stats.get(kind):
                    wanted.setdefault(kind, []).append(check)
        if not wanted:
            return None
        held = ", ".join(f"{self.stats[kind]} {kind}" for kind in EVENT_TYPES if self.stats.get(kind)) or "nothing"
        parts = [
            f"no {kind} event: the check{'s' if len(checks) > 1 else ''} {', '.join(sorted(checks))} "
            f"need{'' if len(checks) > 1 else 's'} {kind} events"
            for kind, checks in wanted.items()
        ]
        return f"{self.label}: " + "; ".join(parts) + f" (the history holds: {held} events)"

    def require(self, check: str, *types: str) -> None:
        """Raise :class:`HistoryInputError` when the history has no event of one of ``types`` (``check`` needs it)."""
        problem = self.missing({check: types})
        if problem is not None:
            raise HistoryInputError(problem)

    def of_type(self, *types: str) -> DataFrame:
        """The events of these types (the same DataFrame object for the same types)."""
        frame = self._by_type.get(types)
        if frame is None:
            unknown = [kind for kind in types if kind not in EVENT_TYPES]
            if unknown:
                raise ValueError(f"unknown event type(s) {unknown}; valid: {', '.join(EVENT_TYPES)}")
            frame = self.events.where("type IN (" + ", ".join(f"'{kind}'" for kind in types) + ")")
            self._by_type[types] = frame
        return frame

    @property
    def messages(self) -> DataFrame:
        """One row per message and per receive event, with first ack, first receipt, deliveries and the ordering
        columns (see :func:`spark_checks.messages.build`); persisted with ``cache``."""
        if self._messages is None:
            frame = message_frame.build(self.events, self.ack_clusters)
            if self.cache:
                frame = frame.persist()
                self._cached.append(frame)
            self._messages = frame
        return self._messages

    @property
    def figures(self) -> Figures:
        """Every count of the checks (one aggregation over :attr:`messages`); raises :class:`HistoryInputError`
        when the history breaks a message rule (a seq sent twice, an ack or send_error without its send)."""
        if self._figures is None:
            figures = message_frame.collect_figures(self.messages)
            problems = _message_problems(self.messages, figures)
            if problems:
                raise HistoryInputError(f"{self.label}: not a valid history: " + "; ".join(problems))
            self._figures = figures
        return self._figures

    def close(self) -> None:
        """Release what this history persisted."""
        for frame in self._cached:
            frame.unpersist()
        self._cached = []
        self._messages = None

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"History({self.label!r}, {self.stats.get('events', '?')} events)"


def load_history(
    spark: SparkSession, source: str | os.PathLike[str] | DataFrame | History, *, cache: bool = True
) -> History:
    """Read and validate a history (``.jsonl``, ``.parquet``, a directory of either, or a DataFrame).

    Raises :class:`HistoryInputError` when the input is not a history: the message names the missing column,
    the wrong type or the rule broken. A :class:`History` is returned as it is. Two passes: the row rules and
    figures per type (no shuffle), then the message frame and its figures (one shuffle), which the checks read.
    JSON Lines events are persisted with ``cache`` (parsing them again would cost more than keeping them);
    Parquet is read again where needed (its columns are the cache).
    """
    if isinstance(source, History):
        return source
    read = read_events(spark, source)
    keep_events = cache and read.has_corrupt
    frame = read.frame.persist() if keep_events else read.frame
    history: History | None = None
    try:
        stats, clusters = _validate(read, frame)
        events = frame
        if read.has_corrupt:
            events = frame.where(f"{CORRUPT} IS NULL") if read.tails else frame
            events = events.drop(CORRUPT)
        history = History(events, label=read.label, stats=stats, cache=cache, notes=_notes(read), ack_clusters=clusters)
        if keep_events:
            history._cached.append(frame)  # the frame without the corrupt column is read from the cached one
        if stats.get(SEND) or stats.get(ACK) or stats.get(RECEIVE) or stats.get(SEND_ERROR):
            _ = history.figures  # the message rules are checked here: a bad history is refused by load_history
    except BaseException:
        if history is not None:
            history.close()
        elif keep_events:
            frame.unpersist()
        raise
    return history


def as_history(source: DataFrame | History, *, cache: bool = False) -> History:
    """A History for a check called directly on a DataFrame (validated; not cached unless asked)."""
    if isinstance(source, History):
        return source
    return load_history(source.sparkSession, source, cache=cache)
