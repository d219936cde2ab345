"""The checks: each returns a :class:`~spark_checks.verdict.Verdict` from the figures of one pass over the history.

The work is done once per history, by its engine (:mod:`spark_checks.evidence`): for a local Parquet history
the buckets (the history laid out in buckets of whole producers, one Spark task per bucket doing the vectorised
single-process work, no shuffle: :mod:`spark_checks.spark.bucket_evidence`), otherwise the message frame (the message
events shuffled once, by producer, the first ack, first receipts, duplicates and the running maxima of the
ordering check as window functions, one aggregation for every count: :mod:`spark_checks.spark.messages`). The checks
here only read those figures, and ask the engine for their few example rows when there is something to show.
Nothing is collected to the driver but figures and example rows.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .availability import check_availability
from .figures import LAG_PERCENTILES
from .history_format import ACK, RECEIVE, SEND
from .spark.load import History, as_history, load_history
from .spark.reading import HistoryInputError
from .spark.rows import DEFAULT_EXAMPLES, _int, _label
from .verdict import Figure, Report, Verdict

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ORDER_SCOPES = ("producer", "key")


NEEDS: Mapping[str, Sequence[str]] = {"accounting": (SEND,), "availability": (SEND,)}
"""Checks that cannot judge a history without these event types: such a history is bad input, not a pass."""

Subscriptions = Sequence[str] | Mapping[str | None, Sequence[str]]
"""Names (each expected on every topic that has acknowledged messages), or topic -> names."""


# ---------------------------------------------------------------------------------------------------- lost


def check_lost(
    history: History | DataFrame, *, subscriptions: Subscriptions | None = None, examples: int = DEFAULT_EXAMPLES
) -> Verdict:
    """Acknowledged messages that a subscription which must see every message never received.

    A message is acknowledged when it has an ``ack`` event (by any cluster); it is received on a subscription when
    a ``receive`` event with the same (producer, seq) names that subscription. ``subscriptions`` lists the
    subscriptions that must see every message: names (expected on every topic with acknowledged messages) or a
    mapping topic -> names; by default every subscription that has receive events for the topic. Counts:
    ``lost`` and, per subscription, ``lost[s]`` and ``expected[s]``.
    """
    h = as_history(history)
    figures = h.figures
    acked_per_topic: dict[str | None, int] = figures.by("acked", "ack_topic")
    received: dict[tuple[str | None, str], int] = figures.by("acked_receipts", "ack_topic", "subscription")
    pairs: list[tuple[str | None, str]]
    if subscriptions is None:
        pairs = sorted(figures.by("receipts", "topic", "subscription"), key=str)
        chosen = "every subscription that received messages of the topic"
    elif isinstance(subscriptions, Mapping):
        pairs = [(topic, name) for topic, names in subscriptions.items() for name in names]
        chosen = ", ".join(f"{name} on {topic}" for topic, name in pairs) or "none"
    else:
        names = [subscriptions] if isinstance(subscriptions, str) else list(subscriptions)
        pairs = [(topic, name) for topic in sorted(acked_per_topic, key=str) for name in names]
        chosen = ", ".join(names) or "none"
    expected: dict[str, int] = {}
    lost_by: dict[str, int] = {}
    failing: list[tuple[str | None, str]] = []
    for topic, name in pairs:
        acknowledged = acked_per_topic.get(topic, 0)
        missing = acknowledged - received.get((topic, name), 0)
        expected[name] = expected.get(name, 0) + acknowledged
        lost_by[name] = lost_by.get(name, 0) + missing
        if missing:
            failing.append((topic, name))
    lost = sum(lost_by.values())
    counts: dict[str, Figure] = {"subscriptions": len(expected), "lost": lost}
    checked_topics = {topic for topic, _ in pairs}
    unchecked = sum(n for topic, n in acked_per_topic.items() if topic not in checked_topics)
    if unchecked and pairs:
        counts["acknowledged_unchecked"] = unchecked  # acknowledged on a topic no expected subscription is on
    counts.update({f"lost[{name}]": lost_by[name] for name in sorted(expected)})
    counts.update({f"expected[{name}]": expected[name] for name in sorted(expected)})
    ok = lost == 0
    summary = f"acknowledged messages never received; subscriptions: {chosen}"
    if not pairs and subscriptions is None:
        acknowledged = sum(acked_per_topic.values())
        counts["acknowledged"] = acknowledged
        if acknowledged:
            ok = False
            summary = (
                f"{acknowledged} messages were acknowledged but no subscription received any message "
                "(pass subscriptions=[] if the scenario has no consumer)"
            )
    reason = ""
    if not h.stats.get(ACK):
        ok = False
        reason = "no send was acknowledged: no evidence that acknowledged messages are received"
    rows_out = h.evidence.lost_rows(failing, examples) if failing and examples > 0 else []
    return Verdict("lost", ok, counts, rows_out, summary, reason)


# ---------------------------------------------------------------------------------------------------- duplicates


def check_duplicates(
    history: History | DataFrame, *, max_duplicates: int = 0, examples: int = DEFAULT_EXAMPLES
) -> Verdict:
    """Messages received more than once on the same subscription (same producer and seq).

    ``duplicates`` counts the extra deliveries (a message delivered 3 times adds 2); ok when it is at most
    ``max_duplicates`` over the whole history. Redelivery after a consumer restart lands here, never in ordering.
    """
    h = as_history(history)
    figures = h.figures
    per_subscription = figures.by("receipts", "subscription")
    duplicates_by = figures.by("duplicates", "subscription")
    duplicates = sum(duplicates_by.values())
    counts: dict[str, Figure] = {
        "duplicates": duplicates,
        "duplicated_messages": figures.total("duplicated"),
        "messages_received": figures.total("receipts"),
        "max_duplicates": max_duplicates,
    }
    for name in sorted(per_subscription):
        counts[f"duplicates[{name}]"] = duplicates_by.get(name, 0)
    rows_out = h.evidence.duplicate_rows(examples) if duplicates and examples > 0 else []
    summary = f"same (producer, seq) received more than once on a subscription; allowed: {max_duplicates}"
    if not h.stats.get(RECEIVE):
        reason = "no receive event: no evidence about how often messages are delivered"
        return Verdict("duplicates", False, counts, rows_out, summary, reason)
    return Verdict("duplicates", duplicates <= max_duplicates, counts, rows_out, summary)


# ---------------------------------------------------------------------------------------------------- ordering


def check_ordering(
    history: History | DataFrame,
    *,
    scopes: Sequence[str] = ORDER_SCOPES,
    examples: int = DEFAULT_EXAMPLES,
    bucket_s: float = 1.0,
) -> Verdict:
    """Messages received after a higher seq of the same producer, among messages acknowledged by the same cluster.

    Only the first receipt of each (subscription, producer, seq) counts, in receive order (``ts_ns``, then file
    order), so a redelivery after a consumer restart is a duplicate, not a reorder. Groups (``scopes``):
    ``producer`` = (subscription, producer); ``key`` = (subscription, key, producer), for messages with a key
    (seq only orders messages of one producer). Use ``scopes=("key",)`` for Key_Shared subscriptions, where
    only per-key order is promised. A message is a *reorder* when a message with a higher seq, acknowledged by the
    same cluster, was received before it in its group; when every such earlier message was acknowledged by another
    cluster it is an *allowed cross-cluster interleaving* (a message published to the backup during an outage may
    arrive before the primary's not yet replicated ones). Messages without an ack form their own class.

    Each cluster's own delivery stream is judged too, so a swap among messages the subscription already had from
    another cluster still shows: a cluster's first delivery of a message is a *reorder* when that cluster
    delivered a higher seq of the same group and ack class before it. A redelivery (the same message again from
    the same cluster, after a reconnect) may rewind a stream; a message the cluster never delivered may not come
    after a later one.

    The running maxima over each producer's first receipts in receive order are computed once per history with
    the other figures (:mod:`spark_checks.evidence`). ``bucket_s`` is accepted for compatibility
    (it sized the work units of an earlier implementation); it must be positive and changes nothing.
    """
    unknown = [scope for scope in scopes if scope not in ORDER_SCOPES]
    if unknown or not scopes:
        raise ValueError(f"unknown ordering scope(s) {unknown or scopes}; valid: {', '.join(ORDER_SCOPES)}")
    if bucket_s <= 0:
        raise ValueError("bucket_s must be positive")
    h = as_history(history)
    figures = h.figures
    reorders_by = {scope: figures.total(f"reorders_{scope}") for scope in scopes}
    allowed_by = {scope: figures.total(f"allowed_{scope}") for scope in scopes}
    reorders, allowed_count = sum(reorders_by.values()), sum(allowed_by.values())
    counts: dict[str, Figure] = {"reorders": reorders, "allowed_cross_cluster_interleavings": allowed_count}
    for scope in scopes:
        counts[f"reorders[{scope}]"] = reorders_by[scope]
    for scope in scopes:
        counts[f"allowed_cross_cluster_interleavings[{scope}]"] = allowed_by[scope]
    rows_out = h.evidence.ordering_rows(scopes, examples) if (reorders or allowed_count) and examples > 0 else []
    summary = (
        "first receipts (and each cluster's first deliveries) out of seq order among messages acked by the same "
        f"cluster; scopes: {', '.join(scopes)}"
    )
    reason = ""
    if not h.stats.get(RECEIVE):
        reason = "no receive event: no order to judge"
    elif "key" in scopes and not h.stats.get("receive_with_key"):
        reason = "no received message has a key: no per-key order to judge (use the producer scope)"
    return Verdict("ordering", reorders == 0 and not reason, counts, rows_out, summary, reason)


# ---------------------------------------------------------------------------------------------------- accounting


def check_accounting(history: History | DataFrame, *, examples: int = DEFAULT_EXAMPLES) -> Verdict:
    """Figures per cluster: sent, acknowledged, received, replicated, and the replication lag.

    ``sent[c]``: send events of messages whose (first) ack came from ``c`` (``sent[none]``: never acknowledged);
    ``acknowledged[c]``: messages first acknowledged by ``c``; ``received[c]``: receive events delivered by ``c``
    (duplicates included); ``replicated[c]``: those of them for messages acknowledged by another cluster.
    Replication lag = first receipt on a cluster other than the acking one (per subscription and message) minus
    the ack time: ``replication_lag_p50_ns``/p90/p99 (``percentile_approx``) and max, overall and per route
    ``[a->b]``. Fails only when a message was received that was never sent nor acknowledged (``received_unknown``).
    """
    h = as_history(history)
    h.require("accounting", SEND)
    found = h.figures
    lag_names = [f"replication_lag_p{round(fraction * 100)}_ns" for fraction in LAG_PERCENTILES]
    figures: dict[tuple[str, str | None], int] = {}
    # a (metric, cluster) figure exists where its events exist, as the per-cluster groups of a groupBy would
    sources = (
        ("sent", "sends", "ack_cluster"),
        ("acknowledged", "acked", "ack_cluster"),
        ("received_unknown", "unknown", "cluster"),
    )
    for metric, measure, dimension in sources:
        for cluster, value in found.by(measure, dimension).items():
            figures[(metric, cluster)] = value
    for cluster, value in found.by("received", "cluster").items():
        figures[("received", cluster)] = value
        for metric in ("replicated", "received_unacked"):
            figures[(metric, cluster)] = 0
    for metric in ("replicated", "received_unacked"):
        for cluster, value in found.by(metric, "cluster").items():
            figures[(metric, cluster)] = value
    lag_figures: dict[tuple[str, str | None], int] = {}
    for row in found.lag:
        route = None if row["ack_cluster"] is None else f"{row['ack_cluster']}->{row['cluster']}"
        lag_figures[("replication_lag_samples", route)] = _int(row["n"])
        for name, value in zip(lag_names, row["p"] or [], strict=False):
            lag_figures[(name, route)] = _int(value)
        lag_figures[("replication_lag_max_ns", route)] = _int(row["max"])
    clusters = sorted({cluster for _, cluster in figures if cluster is not None})
    metrics = ("sent", "acknowledged", "received", "replicated", "received_unacked", "received_unknown")
    totals = {metric: sum(v for (m, _), v in figures.items() if m == metric) for metric in metrics}
    counts: dict[str, Figure] = {
        "clusters": len(clusters),
        **totals,
        "send_errors": h.stats.get("send_error") or 0,
    }
    for metric in metrics[:4]:
        with_none = metric == "sent" or (metric, None) in figures
        for cluster in [*clusters, None] if with_none else clusters:
            counts[f"{metric}[{_label(cluster)}]"] = figures.get((metric, cluster), 0)
    routes = sorted({route for _, route in lag_figures}, key=lambda route: (route is not None, route or ""))
    for route in routes:
        suffix = "" if route is None else f"[{route}]"
        for name in ("replication_lag_samples", *lag_names, "replication_lag_max_ns"):
            counts[name + suffix] = lag_figures.get((name, route), 0)
    rows_out = h.evidence.unknown_rows(examples) if totals["received_unknown"] and examples > 0 else []
    summary = "per-cluster sent/acknowledged/received/replicated and replication lag; fails on unknown messages"
    unknown_count = totals["received_unknown"]
    reason = f"{unknown_count} message(s) received but never sent nor acknowledged (received_unknown)"
    return Verdict("accounting", unknown_count == 0, counts, rows_out, summary, reason if unknown_count else "")


# ---------------------------------------------------------------------------------------------------- all


def check_history(
    spark: SparkSession,
    path_or_dataframe: str | os.PathLike[str] | DataFrame | History,
    *,
    subscriptions: Subscriptions | None = None,
    max_duplicates: int = 0,
    gap_threshold_s: float = 1.0,
    examples: int = DEFAULT_EXAMPLES,
    order_scopes: Sequence[str] = ORDER_SCOPES,
    per_producer_gaps: bool = False,
    cache: bool = True,
    engine: str = "auto",
    layout_dir: str | os.PathLike[str] | None = None,
) -> Report:
    """Run every check on one history and return the report (``report.ok``, ``report.describe()``).

    ``path_or_dataframe``: a ``.jsonl`` or ``.parquet`` file, a directory of them, a laid-out directory, a
    DataFrame with the history columns, or a loaded :class:`History`. A bad input raises
    :class:`~spark_checks.spark.reading.HistoryInputError`. ``engine``: ``auto`` (the buckets for a local Parquet
    history, laid out in ``layout_dir`` or a temporary directory; the message frame otherwise), ``frame`` or
    ``buckets`` (:mod:`spark_checks.evidence`). With ``cache`` the events and shared frames are persisted while the
    checks run, then released.
    """
    began = time.monotonic()
    owned = not isinstance(path_or_dataframe, History)
    h = load_history(
        spark, path_or_dataframe, cache=cache, engine=engine, layout_dir=layout_dir, examples=max(examples, 1)
    )
    try:
        missing = h.missing(NEEDS)
        if missing is not None:
            raise HistoryInputError(missing)
        verdicts = (
            check_lost(h, subscriptions=subscriptions, examples=examples),
            check_duplicates(h, max_duplicates=max_duplicates, examples=examples),
            check_ordering(h, scopes=order_scopes, examples=examples),
            check_accounting(h, examples=examples),
            check_availability(h, gap_threshold_s=gap_threshold_s, per_producer=per_producer_gaps, examples=examples),
        )
    finally:
        if owned:
            h.close()
    return Report(h.label, verdicts, events=h.stats.get("events"), seconds=time.monotonic() - began, notes=h.notes)
