"""Reading a history into Spark, checking it is one, and choosing the engine that computes its figures.

A :class:`History` wraps the event DataFrame (with the order columns ``_file`` and ``_row`` added at read time,
so that events with the same ``ts_ns`` keep their file order) and the engine of its figures and example rows
(:mod:`spark_checks.evidence`): ``buckets`` for a local Parquet history (laid out in buckets of whole producers,
one Spark task per bucket, no shuffle: :mod:`spark_checks.spark.bucket_loading`), ``frame`` for the rest (the message
frame: one shuffle by producer, windows), or the one asked for. With ``cache=True`` the frame engine's frames are
persisted (memory, then disk) until :meth:`History.close`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..evidence import ENGINES
from ..history_format import ACK, RECEIVE, SEND, SEND_ERROR
from .bucket_loading import can_lay_out, load_buckets
from .history import History
from .reading import CORRUPT, HistoryInputError, check_source, read_events
from .rows import DEFAULT_EXAMPLES
from .validation import _notes, _validate

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["History", "as_history", "load_history"]


def choose_engine(source: str | os.PathLike[str] | DataFrame, engine: str = "auto") -> str:
    """The engine for a source: ``buckets`` where it can take it (a local Parquet history, or one laid out),
    else ``frame``; ``engine`` other than ``auto`` is checked against the source."""
    if engine not in ("auto", *ENGINES):
        raise ValueError(f"engine must be auto, {' or '.join(ENGINES)}, not {engine!r}")
    if not isinstance(source, (str, os.PathLike)):
        if engine == "buckets":
            raise ValueError("the buckets engine reads a Parquet history from a path, not a DataFrame")
        return "frame"
    if engine == "frame":
        return engine
    possible = check_source(source) == "parquet" and can_lay_out(source)
    if engine == "buckets" and not possible:
        raise HistoryInputError(f"{os.fspath(source)}: the buckets engine reads a local Parquet file or directory")
    return "buckets" if possible else "frame"


def load_history(
    spark: SparkSession,
    source: str | os.PathLike[str] | DataFrame | History,
    *,
    cache: bool = True,
    engine: str = "auto",
    layout_dir: str | os.PathLike[str] | None = None,
    examples: int = DEFAULT_EXAMPLES,
    read: str = "arrow",
) -> History:
    """Read and validate a history (``.jsonl``, ``.parquet``, a directory of either, a laid-out directory, or a
    DataFrame).

    Raises :class:`HistoryInputError` when the input is not a history: the message names the missing column,
    the wrong type or the rule broken. A :class:`History` is returned as it is. ``engine``: ``auto`` (buckets for
    a local Parquet history, else frame), ``frame`` or ``buckets`` (:mod:`spark_checks.evidence`). Frame: two
    passes, the row rules and figures per type (no shuffle), then the message frame and its figures (one shuffle);
    JSON Lines events are persisted with ``cache`` (parsing them again would cost more than keeping them), Parquet
    is read again where needed. Buckets: the layout (one pass in this process, into ``layout_dir`` or a temporary
    directory) counts the row figures, then one Spark task per bucket gives the figures and ``examples`` example
    rows of each kind per bucket (``read``: how a task reads its bucket, see :mod:`spark_checks.spark.bucket_job`).
    """
    if isinstance(source, History):
        return source
    if isinstance(source, (str, os.PathLike)) and choose_engine(source, engine) == "buckets":
        return load_buckets(spark, source, cache=cache, examples=examples, layout_dir=layout_dir, read=read)
    if engine == "buckets":
        choose_engine(source, engine)  # raises: the buckets engine cannot take this source
    return _load_frame(spark, source, cache=cache)


def _load_frame(spark: SparkSession, source: str | os.PathLike[str] | DataFrame, *, cache: bool) -> History:
    """A history checked by the frame engine (the row rules by one Spark pass, the figures from the frame)."""
    found = read_events(spark, source)
    keep_events = cache and found.has_corrupt
    frame = found.frame.persist() if keep_events else found.frame
    history: History | None = None
    try:
        stats, clusters = _validate(found, frame)
        events = frame
        if found.has_corrupt:
            events = frame.where(f"{CORRUPT} IS NULL") if found.tails else frame
            events = events.drop(CORRUPT)
        history = History(
            events, label=found.label, stats=stats, cache=cache, notes=_notes(found), ack_clusters=clusters
        )
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
