"""The one pass over the message events that every check reads: one shuffle keyed by producer, then windows.

The message events (``send``, ``ack``, ``send_error``, ``receive``) are shuffled once, hash-partitioned by
``producer``, and sorted inside each partition by (producer, seq, subscription, cluster, receive order). In that
one partitioning and order, without another exchange:

* a window per message (producer, seq) gives every row the message's first ack (cluster, time, topic, key), its
  number of sends and of outcomes (ack or send_error), and the subscriptions that received it;
* a window per (producer, seq, subscription) gives each receive its first receipt, the deliveries and the last
  receipt, and tells the first receive of each delivering cluster (replication lag);
* then, sorted again inside the same partitions by receive order, windows per (producer, subscription) and per
  (producer, subscription, key) give each first receipt the highest seq received before it, overall and among
  messages acknowledged by the same cluster (the ordering check); and windows of the same groups per delivering
  cluster give each cluster's first delivery of a message the highest seq that cluster delivered before it among
  messages acknowledged by the same cluster (a cluster's own delivery stream is in order: a redelivery may rewind
  it, a message never delivered by it before may not come after a later one).

What is kept is one row per message (``is_message``) and one per receive event, with only the columns the checks
read: :func:`figures_frame` turns it into every figure in one aggregation, and the checks take their example rows
from it (it is persisted while the history is open). Built-in functions only: no Python runs on the executors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..figures import FIGURE_DIMENSIONS, LAG_ACCURACY, LAG_PERCENTILES, Figures
from ..history_format import ACK, RECEIVE, SEND, SEND_ERROR

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

MESSAGE_TYPES = (SEND, ACK, SEND_ERROR, RECEIVE)
ORDER_SCOPES = ("producer", "key")
MAX_INLINE_CLASSES = 16
"""Up to this many ack clusters, the running maximum per cluster is one conditional column each (no extra sort);
beyond, the ordering windows are also partitioned by the cluster (one more sort per scope)."""

SORT_KEY = ("producer", "seq", "subscription", "cluster", "ts_ns", "_file", "_row")
"""The order inside each producer's partition: every window of the first stage reads it without another sort."""

RECEIVE_ORDER = ("ts_ns", "_file", "_row")


def message_rows(events: DataFrame) -> DataFrame:
    """Stage 1: one shuffle by producer, one sort; per message and per (message, subscription) windows."""
    types = ", ".join(f"'{kind}'" for kind in MESSAGE_TYPES)
    rows = (
        events.where(f"type IN ({types})")
        .select("type", "producer", "seq", "subscription", "cluster", "ts_ns", "_file", "_row", "topic", "key")
        .repartition("producer")
    )  # both windows below require the order SORT_KEY: the planner sorts once for both
    per_message = "PARTITION BY producer, seq ORDER BY subscription, cluster, ts_ns, _file, _row"
    per_receipt = "PARTITION BY producer, seq, subscription ORDER BY cluster, ts_ns, _file, _row"
    whole = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
    first_ack = f"CASE WHEN type = '{ACK}' THEN struct(ts_ns, _file, _row, cluster, topic, key) END"
    receipt = f"CASE WHEN type = '{RECEIVE}' THEN struct(ts_ns, _file, _row, cluster, topic, key) END"
    return rows.selectExpr(
        "*",
        f"row_number() OVER ({per_message}) = 1 AS is_message",
        f"min({first_ack}) OVER ({per_message} {whole}) AS ack",
        f"count_if(type = '{SEND}') OVER ({per_message} {whole}) AS sends",
        f"count_if(type IN ('{ACK}', '{SEND_ERROR}')) OVER ({per_message} {whole}) AS outcomes",
        f"collect_set(subscription) OVER ({per_message} {whole}) AS received_on",
        f"min({receipt}) OVER ({per_receipt} {whole}) AS first",
        f"max({receipt}) OVER ({per_receipt} {whole}) AS last",
        f"count(1) OVER ({per_receipt} {whole}) AS deliveries",
        f"row_number() OVER ({per_receipt}) = 1 "
        f"OR NOT (lag(cluster) OVER ({per_receipt}) <=> cluster) AS cluster_first",
    ).selectExpr(
        "producer",
        "seq",
        "subscription",
        "cluster",
        "ts_ns",
        "_file",
        "_row",
        "topic",
        "key",
        f"type = '{RECEIVE}' AS is_receive",
        "is_message",
        f"type = '{RECEIVE}' AND first.ts_ns = ts_ns AND first._file = _file AND first._row = _row AS is_first",
        "ack.cluster AS ack_cluster",
        "ack.ts_ns AS ack_ts_ns",
        "ack.topic AS ack_topic",
        "ack.key AS ack_key",
        "sends",
        "outcomes",
        "CASE WHEN is_message THEN received_on END AS received_on",
        "deliveries",
        "last.ts_ns AS last_ts_ns",
        "last.cluster AS last_cluster",
        f"type = '{RECEIVE}' AND cluster_first AND ack.cluster IS NOT NULL AND cluster != ack.cluster AS is_lag",
        f"type = '{RECEIVE}' AND cluster_first AS is_cluster_first",
    )


def _running_max(condition: Column, window: object) -> Column:
    from pyspark.sql import functions as F

    return F.max(F.when(condition, F.col("seq"))).over(window)  # type: ignore[arg-type]


def _same_class_max(
    rows: Column, group: Sequence[str | Column], classes: Sequence[str], inline: bool
) -> tuple[Column, Column]:
    """The highest seq among ``rows`` before each row in its group and its ack class; the group's window."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    before = (Window.unboundedPreceding, -1)
    window = Window.partitionBy(*group).orderBy(*RECEIVE_ORDER).rowsBetween(*before)
    cls = F.coalesce(F.col("ack_cluster"), F.lit(""))
    if inline:  # one running maximum per class, the row's own class picked: no sort by class
        same_before = _running_max(rows & (cls == F.lit("")), window)
        for name in classes:
            same_before = F.when(cls == F.lit(name), _running_max(rows & (cls == F.lit(name)), window)).otherwise(
                same_before
            )
        return same_before, _running_max(rows, window)
    by_class = Window.partitionBy(*group, cls).orderBy(*RECEIVE_ORDER).rowsBetween(*before)
    return _running_max(rows, by_class), _running_max(rows, window)


def _scope_columns(scope: str, classes: Sequence[str], inline: bool) -> list[Column]:
    """The highest seq received before each first receipt in its group, overall and in its class, and before each
    cluster's first delivery in that cluster's stream and its class; the row's kind."""
    from pyspark.sql import functions as F

    group = ["producer", "subscription"] + (["key"] if scope == "key" else [])
    first = F.col("is_first")
    delivered = F.col("is_cluster_first")
    if scope == "key":
        first = first & F.col("key").isNotNull()
        delivered = delivered & F.col("key").isNotNull()
    same_before, any_before = _same_class_max(first, group, classes, inline)
    stream_before, _ = _same_class_max(delivered, [*group, "cluster"], classes, inline)
    seq = F.col("seq")
    reorder = (first & (seq < same_before)) | (delivered & (seq < stream_before))
    kind = F.when(reorder, F.lit("reorder")).when(first & (seq < any_before), F.lit("allowed"))
    return [
        same_before.alias(f"{scope}_max_seq_before"),
        any_before.alias(f"{scope}_max_seq_before_any"),
        stream_before.alias(f"{scope}_max_seq_before_in_stream"),
        kind.alias(f"{scope}_kind"),
    ]


def ordered_rows(rows: DataFrame, classes: Sequence[str], max_inline_classes: int = MAX_INLINE_CLASSES) -> DataFrame:
    """Stage 2: the ordering windows of both scopes, in the partitioning of stage 1 (sorts, no exchange)."""
    inline = len(classes) <= max_inline_classes
    columns = [column for scope in ORDER_SCOPES for column in _scope_columns(scope, classes, inline)]
    return rows.select("*", *columns)


def build(events: DataFrame, classes: Sequence[str], max_inline_classes: int = MAX_INLINE_CLASSES) -> DataFrame:
    """The message frame of a history's events (see the module documentation)."""
    kept = message_rows(events).where("is_receive OR is_message")
    return ordered_rows(kept, classes, max_inline_classes)


def figures_frame(messages: DataFrame) -> DataFrame:
    """Every count the checks need, in one aggregation over the message frame, by (subscription, topic, cluster,
    ack_topic, ack_cluster): few groups (subscriptions x topics x clusters), each row's role picks its figures."""
    from pyspark.sql import functions as F

    acked = "ack_ts_ns IS NOT NULL"
    return messages.groupBy(*FIGURE_DIMENSIONS).agg(
        *[
            F.expr(text)
            for text in (
                "count_if(is_message) AS messages",
                f"count_if(is_message AND {acked}) AS acked",
                "coalesce(sum(CASE WHEN is_message THEN sends END), 0) AS sends",
                f"coalesce(sum(CASE WHEN is_message AND {acked} THEN sends END), 0) AS acked_sends",
                "count_if(is_message AND sends > 1) AS resent",
                "coalesce(sum(CASE WHEN is_message AND sends = 0 THEN outcomes END), 0) AS orphans",
                "count_if(is_first) AS receipts",
                f"count_if(is_first AND {acked}) AS acked_receipts",
                "coalesce(sum(CASE WHEN is_first THEN deliveries - 1 END), 0) AS duplicates",
                "count_if(is_first AND deliveries > 1) AS duplicated",
                f"count_if(is_first AND sends = 0 AND NOT {acked}) AS unknown",
                "count_if(is_receive) AS received",
                f"count_if(is_receive AND {acked} AND cluster != ack_cluster) AS replicated",
                f"count_if(is_receive AND NOT {acked}) AS received_unacked",
                "count_if(producer_kind = 'reorder') AS reorders_producer",
                "count_if(producer_kind = 'allowed') AS allowed_producer",
                "count_if(key_kind = 'reorder') AS reorders_key",
                "count_if(key_kind = 'allowed') AS allowed_key",
            )
        ]
    )


def lag_frame(messages: DataFrame) -> DataFrame:
    """Replication lag (first receipt on a non-acking cluster, per subscription and message, minus the ack time):
    percentiles (``percentile_approx``), max and count per route (ack_cluster, cluster) and overall (nulls)."""
    from pyspark.sql import functions as F

    percentiles = ", ".join(str(fraction) for fraction in LAG_PERCENTILES)
    return (
        messages.where("is_lag")
        .selectExpr("ack_cluster", "cluster", "ts_ns - ack_ts_ns AS lag")
        .rollup("ack_cluster", "cluster")
        .agg(
            F.expr(f"percentile_approx(lag, array({percentiles}), {LAG_ACCURACY}) AS p"),
            F.expr("max(lag) AS max"),
            F.expr("count(1) AS n"),
        )
        .where("(ack_cluster IS NULL) = (cluster IS NULL) AND n > 0")  # overall and per route, no subtotals
    )


def collect_figures(messages: DataFrame) -> Figures:
    """Run the aggregations (the counts, then the lag percentiles) and bring their few rows to the driver."""
    rows = [row.asDict(recursive=True) for row in figures_frame(messages).collect()]
    lag: list[dict[str, Any]] = []
    if any(row["replicated"] for row in rows):
        lag = [row.asDict(recursive=True) for row in lag_frame(messages).collect()]
    return Figures(rows, lag)
