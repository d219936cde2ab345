"""A history loaded for the checks: the events in Spark, what the validation counted, and the engine that gives
the figures and example rows (:mod:`spark_checks.evidence`). :func:`spark_checks.spark.load.load_history` builds it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..evidence import Evidence
from ..figures import Figures
from ..history_format import EVENT_TYPES
from . import messages as message_frame
from .frame_evidence import FrameEvidence
from .reading import HistoryInputError
from .validation import _message_problems

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class History:
    """The events of one history in Spark, validated, with the figures every check reads and its example rows.

    Both come from the history's engine (:attr:`evidence`, :mod:`spark_checks.evidence`): by default the message
    frame (:mod:`spark_checks.spark.messages`: one shuffle by producer, windows, only the needed columns), built on
    first use and, with ``cache``, persisted until :meth:`close`; for a laid-out Parquet history the buckets
    (:mod:`spark_checks.spark.bucket_evidence`). The figures are computed on first use.
    """

    def __init__(
        self,
        events: DataFrame | Callable[[], DataFrame],
        *,
        label: str,
        stats: Mapping[str, int | None],
        cache: bool,
        notes: Sequence[str] = (),
        ack_clusters: Sequence[str] = (),
        evidence: Evidence | None = None,
        spark: SparkSession | None = None,
    ) -> None:
        self._events = events
        """The events, or how to read them when first needed (a buckets history: only availability reads them)."""
        self._spark = spark
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
        self.evidence: Evidence = evidence if evidence is not None else FrameEvidence(lambda: self.messages)
        """Where the figures and example rows come from."""

    @property
    def engine(self) -> str:
        """``frame`` or ``buckets`` (see :mod:`spark_checks.evidence`)."""
        return self.evidence.engine

    @property
    def events(self) -> DataFrame:
        """The history's events (read on first use when the history was given a way to read them)."""
        if callable(self._events):
            self._events = self._events()
        return self._events

    @property
    def spark(self) -> SparkSession:
        if self._spark is not None:
            return self._spark
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
        columns (see :func:`spark_checks.spark.messages.build`); persisted with ``cache``."""
        if self._messages is None:
            frame = message_frame.build(self.events, self.ack_clusters)
            if self.cache:
                frame = frame.persist()
                self._cached.append(frame)
            self._messages = frame
        return self._messages

    @property
    def figures(self) -> Figures:
        """Every count of the checks (from :attr:`evidence`); raises :class:`HistoryInputError` when the history
        breaks a message rule (a seq sent twice, an ack or send_error without its send)."""
        if self._figures is None:
            figures = self.evidence.figures()
            problems = _message_problems(self.evidence, figures)
            if problems:
                raise HistoryInputError(f"{self.label}: not a valid history: " + "; ".join(problems))
            self._figures = figures
        return self._figures

    def close(self) -> None:
        """Release what this history persisted (and a layout it made)."""
        for frame in self._cached:
            frame.unpersist()
        self._cached = []
        self._messages = None
        self.evidence.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"History({self.label!r}, {self.stats.get('events', '?')} events)"
