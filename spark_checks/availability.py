"""The availability check: the gaps in acknowledged sends (overall, or per producer) longer than a threshold, and
the share of sends acknowledged; a history without sends is bad input, not a pass."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .history_format import SEND
from .spark.load import History, as_history
from .spark.rows import DEFAULT_EXAMPLES, NS_PER_S, _dicts, _f, _int
from .verdict import Figure, Verdict

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def check_availability(
    history: History | DataFrame,
    *,
    gap_threshold_s: float = 1.0,
    per_producer: bool = False,
    examples: int = DEFAULT_EXAMPLES,
) -> Verdict:
    """Windows in which no send was acknowledged, longer than ``gap_threshold_s``.

    The timeline of a group (the whole history; with ``per_producer`` also each producer) is its ack times,
    bounded by its first send and its last send or send error: a run that ends while sends fail ends with a
    window. Windows are found per bucket of ``gap_threshold_s`` (a longer gap always crosses buckets), so no task
    ever holds the whole timeline. Examples are the longest windows (start, end, duration); counts: ``gaps``,
    ``longest_gap_ns``, ``total_gap_ns``, ``sends``, ``acknowledged_sends``, ``share_acknowledged``.
    """
    F = _f()
    if gap_threshold_s <= 0:
        raise ValueError("gap_threshold_s must be positive")
    h = as_history(history)
    h.require("availability", SEND)
    spark = h.spark
    threshold = max(1, int(gap_threshold_s * NS_PER_S))
    signals = h.of_type("send", "send_error", "ack").select("type", "ts_ns", "producer")
    groups = signals.selectExpr("type", "ts_ns", "CAST(NULL AS STRING) AS group")
    stats = h.stats
    bounds: list[dict[str, Any]] = [
        {
            "group": None,
            "first_send": stats.get("first_send_ts_ns"),
            "last_attempt": stats.get("last_attempt_ts_ns"),
            "first_ack": stats.get("first_ack_ts_ns"),
            "last_ack": stats.get("last_ack_ts_ns"),
        }
    ]
    if per_producer:
        producer_signals = signals.selectExpr("type", "ts_ns", "producer AS group")
        groups = groups.unionByName(producer_signals)
        bounds += _dicts(
            producer_signals.groupBy("group")
            .agg(
                F.expr("min(CASE WHEN type = 'send' THEN ts_ns END) AS first_send"),
                F.expr("max(CASE WHEN type IN ('send', 'send_error') THEN ts_ns END) AS last_attempt"),
                F.expr("min(CASE WHEN type = 'ack' THEN ts_ns END) AS first_ack"),
                F.expr("max(CASE WHEN type = 'ack' THEN ts_ns END) AS last_ack"),
            )
            .collect()
        )
    # the timeline = acks, plus the first send before the first ack and the last attempt after the last ack
    edges = []
    for row in bounds:
        first_send, last_attempt, first_ack, last_ack = (
            row["first_send"],
            row["last_attempt"],
            row["first_ack"],
            row["last_ack"],
        )
        if first_send is not None and (first_ack is None or first_send < first_ack):
            edges.append((row["group"], int(first_send)))
        if last_attempt is not None and (last_ack is None or last_attempt > last_ack):
            edges.append((row["group"], int(last_attempt)))
    points = groups.where("type = 'ack'").select("group", "ts_ns")
    if edges:
        points = points.unionByName(spark.createDataFrame(edges, "group string, ts_ns long"))
    # within a bucket of the threshold's width no gap can exceed it: only consecutive buckets are compared
    gaps = (
        points.groupBy("group", F.expr(f"ts_ns div {threshold} AS bucket"))
        .agg(F.expr("min(ts_ns) AS first"), F.expr("max(ts_ns) AS last"))
        .selectExpr(
            "group",
            "last AS start_ts_ns",
            "lead(first) OVER (PARTITION BY group ORDER BY bucket) AS end_ts_ns",
        )
        .selectExpr("*", "end_ts_ns - start_ts_ns AS duration_ns")
        .where(f"duration_ns > {threshold}")
        .orderBy(F.col("duration_ns").desc(), "start_ts_ns", "group")
        .collect()
    )
    sends = _int(stats.get(SEND))
    acked = h.figures.total("acked_sends") if sends else 0
    overall = [row for row in gaps if row["group"] is None]
    by_producer = [row for row in gaps if row["group"] is not None]
    counts: dict[str, Figure] = {
        "gaps": len(overall),
        "longest_gap_ns": overall[0]["duration_ns"] if overall else 0,
        "total_gap_ns": sum(row["duration_ns"] for row in overall),
        "gap_threshold_ns": threshold,
        "sends": sends,
        "acknowledged_sends": acked,
        "share_acknowledged": acked / sends if sends else None,
    }
    if per_producer:
        counts["producer_gaps"] = len(by_producer)
        counts["longest_producer_gap_ns"] = by_producer[0]["duration_ns"] if by_producer else 0
    windows = [
        {
            **({"producer": row["group"]} if row["group"] is not None else {}),
            "start_ts_ns": row["start_ts_ns"],
            "end_ts_ns": row["end_ts_ns"],
            "duration_ns": row["duration_ns"],
        }
        for row in (overall[:examples] + by_producer[: max(0, examples - len(overall[:examples]))])
    ]
    ok = not overall and not by_producer
    summary = f"windows without any acknowledged send longer than {gap_threshold_s:g} s" + (
        " (overall and per producer)" if per_producer else ""
    )
    reason = "" if acked else "no send was acknowledged: no evidence that the service was available"
    return Verdict("availability", ok and not reason, counts, windows, summary, reason)
