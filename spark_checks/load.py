"""Reading a history into Spark, checking it is one, and the derived frames every check shares.

A :class:`History` wraps the event DataFrame (with the order columns ``_file`` and ``_row`` added at read time,
so that events with the same ``ts_ns`` keep their file order) and builds, on first use, the frames several
checks need: the first acknowledgement of each message and the receipts of each message on each subscription.
With ``cache=True`` these frames are persisted (memory, then disk) until :meth:`History.close`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from . import messages as message_frame
from .history_format import (
    ACK,
    EVENT_TYPES,
    RECEIVE,
    SEND,
    SEND_ERROR,
)
from .messages import Figures

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

from .reading import CORRUPT, HistoryInputError, read_events
from .validation import _message_problems, _notes, _validate


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
