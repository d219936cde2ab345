"""The evidence of the message-frame engine: figures from one aggregation over the Spark message frame
(:mod:`spark_checks.spark.messages`), example rows from queries on it (the frame is persisted while the history is
open).

Every engine answers the same questions (:class:`spark_checks.evidence.Evidence`); this one asks Spark each time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..figures import Figures
from .reading import ORDER_COLUMNS
from .rows import _dicts, _f

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


class FrameEvidence:
    """Figures and example rows read from a message frame (built on first use by ``frame``)."""

    engine = "frame"

    def __init__(self, frame: Any) -> None:
        self._frame = frame
        self._figures: Figures | None = None

    @property
    def messages(self) -> DataFrame:
        frame: DataFrame = self._frame()
        return frame

    def figures(self) -> Figures:
        from .messages import collect_figures

        if self._figures is None:
            self._figures = collect_figures(self.messages)
        return self._figures

    def lost_rows(self, failing: Sequence[tuple[str | None, str]], limit: int) -> list[dict[str, Any]]:
        """Acknowledged messages of each failing (topic, subscription) that the subscription never received."""
        F = _f()
        wanted = F.array(*[F.struct(F.lit(topic).alias("topic"), F.lit(name).alias("name")) for topic, name in failing])
        missing = F.filter(
            wanted,
            lambda pair: pair["topic"].eqNullSafe(F.col("ack_topic")) & ~F.array_contains("received_on", pair["name"]),
        )
        return _dicts(
            self.messages.where("is_message AND ack_ts_ns IS NOT NULL")
            .select("*", F.explode(missing).alias("pair"))
            .selectExpr(
                "pair.name AS subscription",
                "producer",
                "seq",
                "ack_key AS key",
                "ack_cluster",
                "ack_ts_ns",
                "ack_topic AS topic",
            )
            .orderBy("ack_ts_ns", "producer", "seq", "subscription")
            .limit(limit)
            .collect()
        )

    def duplicate_rows(self, limit: int) -> list[dict[str, Any]]:
        """First receipts of messages delivered more than once on their subscription, in receive order."""
        return _dicts(
            self.messages.where("is_first AND deliveries > 1")
            .orderBy(*ORDER_COLUMNS)
            .selectExpr(
                "subscription",
                "producer",
                "seq",
                "key",
                "deliveries",
                "cluster AS first_cluster",
                "ts_ns AS first_ts_ns",
                "last_cluster",
                "last_ts_ns",
            )
            .limit(limit)
            .collect()
        )

    def ordering_rows(self, scopes: Sequence[str], limit: int) -> list[dict[str, Any]]:
        """Reorders, then allowed interleavings, of the scopes, in receive order."""
        flagged = [
            self.messages.where(f"{scope}_kind IS NOT NULL").selectExpr(
                f"'{scope}' AS scope",
                "subscription",
                "producer",
                "key",
                "seq",
                "ack_cluster",
                "cluster AS received_from",
                "ts_ns",
                "_file",
                "_row",
                f"{scope}_max_seq_before AS max_seq_before",
                f"{scope}_max_seq_before_any AS max_seq_before_any",
                f"{scope}_max_seq_before_in_stream AS max_seq_before_from_same_cluster",
                f"{scope}_kind AS kind",
            )
            for scope in scopes
        ]
        union = flagged[0] if len(flagged) == 1 else flagged[0].unionByName(flagged[1])
        return _dicts(
            union.orderBy(_f().col("kind").desc(), *ORDER_COLUMNS, "scope").drop("_file", "_row").limit(limit).collect()
        )

    def unknown_rows(self, limit: int) -> list[dict[str, Any]]:
        """First receipts of messages never sent nor acknowledged, in receive order."""
        return _dicts(
            self.messages.where("is_first AND sends = 0 AND ack_ts_ns IS NULL")
            .orderBy(*ORDER_COLUMNS)
            .select("subscription", "producer", "seq", "key", "cluster", "ts_ns")
            .limit(limit)
            .collect()
        )

    def message_rows(self, kind: str, limit: int) -> list[dict[str, Any]]:
        """Messages sent more than once (``resent``), or acked or failed without a send (``orphans``), by
        (producer, seq)."""
        where = "is_message AND sends > 1" if kind == "resent" else "is_message AND sends = 0 AND outcomes > 0"
        rows = self.messages.where(where).orderBy("producer", "seq").select("producer", "seq").take(limit)
        return _dicts(rows)

    def close(self) -> None:
        self._figures = None
