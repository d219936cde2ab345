"""Checking that a read history is one: every row's figures in one pass (bad types, unknown event types, out of
range stamps, corrupt JSON lines with file:line), and the message-level problems (a receipt of a message never sent)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..evidence import MESSAGE_EXAMPLES, Evidence
from ..figures import Figures
from ..history_format import (
    ACK,
    EVENT_TYPES,
    MAX_TS_NS,
    MESSAGE_EVENT_TYPES,
    MIN_TS_NS,
    RECEIVE,
    REQUIRED_COLUMNS,
    SEND,
    SEND_ERROR,
)
from .lines import bad_lines

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

from .reading import ACK_CLUSTER, CORRUPT, HistoryInputError, Source


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


def _row_problems(
    frame: DataFrame | None,
    source: Source | None,
    stats: Mapping[str, int | None],
    unknown_types: Sequence[str] | None = None,
) -> list[str]:
    """The row rules a history breaks, each with its count (and an example where the row itself does not say).

    ``frame`` and ``source`` give the examples of JSON Lines histories; without them (figures counted by the
    layout, :mod:`spark_checks.arrays.row_figures`) ``unknown_types`` names the unknown types found."""
    problems = []
    malformed = (stats["corrupt"] or 0) - (stats["truncated"] or 0)
    if malformed and frame is not None and source is not None:
        from pyspark.sql import functions as F

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
        if frame is not None:
            from pyspark.sql import functions as F

            found = [r[0] for r in frame.where(~F.col("type").isin(*EVENT_TYPES)).select("type").distinct().take(5)]
        else:
            found = list(unknown_types or ())
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


def _message_problems(evidence: Evidence, figures: Figures) -> list[str]:
    """The rules about messages: a seq is sent once; an ack or send_error follows a send of the same message."""
    problems = []
    resent, orphans = figures.total("resent"), figures.total("orphans")
    if resent:
        examples = _examples(evidence.message_rows("resent", MESSAGE_EXAMPLES))
        problems.append(f"{resent} (producer, seq) sent more than once (a seq is never reused), e.g. {examples}")
    if orphans:
        examples = _examples(evidence.message_rows("orphans", MESSAGE_EXAMPLES))
        problems.append(
            f"{orphans} ack/send_error event(s) without a send event for the same (producer, seq), e.g. {examples}"
        )
    return problems


def _examples(rows: Sequence[Mapping[str, object]]) -> str:
    return ", ".join(f"{row['producer']}/{row['seq']}" for row in rows)


def no_events(label: str) -> HistoryInputError:
    """The error of a history without any event."""
    return HistoryInputError(f"{label}: holds no events (an empty history: did the run stop before its first event?)")


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
        raise no_events(source.label)
    if problems:
        raise HistoryInputError(f"{source.label}: not a valid history: " + "; ".join(problems))
    return {name: value for name, value in stats.items() if not name.startswith("null_")}, clusters


def _notes(source: Source) -> list[str]:
    if not source.tails:
        return []
    count = len(source.tails)
    where = ", ".join(str(tail) for tail in source.tails)
    return [f"skipped {count} truncated last line{'s' if count > 1 else ''} (a run killed mid-write): {where}"]
