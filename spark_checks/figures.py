"""The figures every check reads, in plain Python: counts by (subscription, topic, cluster, ack_topic, ack_cluster)
and the replication lag per route, whichever engine computed them (the Spark message frame,
:mod:`spark_checks.spark.messages`, or the vectorised buckets, :mod:`spark_checks.arrays.buckets`).

A row's dimensions are those of the event it counts (``subscription``, ``topic``, ``cluster``) and of its
message's first ack (``ack_topic``, ``ack_cluster``); its measures (:data:`MEASURES`) are what the checks add up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

FIGURE_DIMENSIONS = ("subscription", "topic", "cluster", "ack_topic", "ack_cluster")
MEASURES = (
    "messages",
    "acked",
    "sends",
    "acked_sends",
    "resent",
    "orphans",
    "receipts",
    "acked_receipts",
    "duplicates",
    "duplicated",
    "unknown",
    "received",
    "replicated",
    "received_unacked",
    "reorders_producer",
    "allowed_producer",
    "reorders_key",
    "allowed_key",
)
"""The counts of a figures row, in the order of :func:`spark_checks.spark.messages.figures_frame`."""
LAG_PERCENTILES = (0.5, 0.9, 0.99)
LAG_ACCURACY = 10_000
"""``percentile_approx``'s accuracy for the replication lag (exact below this many samples)."""


class Figures:
    """The collected figures: rows of counts (:data:`FIGURE_DIMENSIONS` and :data:`MEASURES`) and lag rows
    (``ack_cluster``, ``cluster``, ``p``: the :data:`LAG_PERCENTILES`, ``max``, ``n``; both routes null for the
    whole history), summed on demand."""

    def __init__(self, rows: Sequence[dict[str, Any]], lag: Sequence[dict[str, Any]]) -> None:
        self.rows = list(rows)
        self.lag = list(lag)

    def total(self, measure: str) -> int:
        return sum(int(row[measure] or 0) for row in self.rows)

    def by(self, measure: str, *dimensions: str) -> dict[Any, int]:
        """``measure`` summed per value of ``dimensions`` (a tuple key for several), only groups where it is > 0."""
        out: dict[Any, int] = {}
        for row in self.rows:
            value = int(row[measure] or 0)
            if value:
                key = row[dimensions[0]] if len(dimensions) == 1 else tuple(row[name] for name in dimensions)
                out[key] = out.get(key, 0) + value
        return out

    def comparable(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """The rows and lag rows as sorted tuples (dimensions then measures): equal for equal figures, whatever
        engine computed them and in whatever order."""
        rows = [
            tuple(row[name] for name in FIGURE_DIMENSIONS) + tuple(int(row[m] or 0) for m in MEASURES)
            for row in self.rows
        ]
        lag = [
            (row["ack_cluster"], row["cluster"], tuple(int(v) for v in row["p"] or ()), row["max"], row["n"])
            for row in self.lag
        ]
        return sorted(rows, key=repr), sorted(lag, key=repr)


def default_lost(figures: Figures) -> int:
    """Lost as :func:`spark_checks.check_lost` counts it with its default subscriptions (every subscription that
    received messages of a topic must receive every acknowledged message of that topic)."""
    acked = figures.by("acked", "ack_topic")
    received = figures.by("acked_receipts", "ack_topic", "subscription")
    pairs = figures.by("receipts", "topic", "subscription")
    return sum(acked.get(topic, 0) - received.get((topic, name), 0) for topic, name in pairs)


def headline(figures: Figures) -> dict[str, int]:
    """Lost, duplicates, reorders and allowed cross-cluster interleavings (both ordering scopes): the figures the
    benchmark compares across checkers."""
    return {
        "lost": default_lost(figures),
        "duplicates": figures.total("duplicates"),
        "reorders": figures.total("reorders_producer") + figures.total("reorders_key"),
        "allowed_cross_cluster_interleavings": figures.total("allowed_producer") + figures.total("allowed_key"),
    }
