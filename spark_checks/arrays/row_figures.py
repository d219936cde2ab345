"""The row figures of a Parquet history counted with PyArrow while it is laid out: the same figures, by the same
rules, as the first Spark pass of :mod:`spark_checks.spark.validation` (per type, nulls of the required columns, unknown
types, message events without id, receipts without subscription, stamps out of range, the time bounds of the
history and of its sends and acks), plus the clusters that acknowledged and the unknown types seen.

:class:`RowFigures` adds one record batch at a time (bounded memory); :meth:`RowFigures.stats` gives the figures
under the names :func:`spark_checks.spark.validation._validate` returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
from .blocks import string_codes

COLUMNS = ("ts_ns", "type", "process", "cluster", "subscription", "producer", "seq", "key")
"""The columns the row rules read."""
BOUNDS = {
    "first_ts_ns": (False, None),
    "last_ts_ns": (True, None),
    "first_send_ts_ns": (False, (SEND,)),
    "last_attempt_ts_ns": (True, (SEND, SEND_ERROR)),
    "first_ack_ts_ns": (False, (ACK,)),
    "last_ack_ts_ns": (True, (ACK,)),
}
"""Each time bound: whether it is the greatest stamp (else the least), and of which event types (None: any)."""
UNKNOWN_TYPES_KEPT = 5


class RowFigures:
    """The row figures of the batches added so far."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {"events": 0, **{f"null_{name}": 0 for name in REQUIRED_COLUMNS}}
        for name in ("unknown_type", "message_without_id", "receive_without_subscription", "ts_out_of_range"):
            self.counts[name] = 0
        self.counts.update({kind: 0 for kind in EVENT_TYPES})
        self.counts["receive_with_key"] = 0
        self.bounds: dict[str, int | None] = dict.fromkeys(BOUNDS)
        self.ack_clusters: set[str] = set()
        self.unknown_types: list[str] = []

    def add(self, batch: Any) -> None:
        """Count one record batch (the :data:`COLUMNS`, strings plain or as dictionaries)."""
        import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
        import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

        rows = batch.num_rows
        self.counts["events"] += rows
        for name in REQUIRED_COLUMNS:
            self.counts[f"null_{name}"] += batch.column(name).null_count
        codes, words = string_codes(batch.column("type"), sort=False)
        per_word = np.bincount(codes + 1, minlength=len(words) + 1)[1:]
        names = words.to_pylist()
        for name, count in zip(names, per_word.tolist(), strict=True):
            if name in self.counts and name in EVENT_TYPES:
                self.counts[name] += count
            elif count and name is not None:
                self.counts["unknown_type"] += count
                if name not in self.unknown_types and len(self.unknown_types) < UNKNOWN_TYPES_KEPT:
                    self.unknown_types.append(name)

        def of(*kinds: str) -> Any:
            lookup = np.asarray([name in kinds for name in names] + [False], dtype=bool)
            return lookup[codes]

        def null(name: str) -> Any:
            return np.asarray(batch.column(name).is_null().to_numpy(zero_copy_only=False), dtype=bool)

        message, receive = of(*MESSAGE_EVENT_TYPES), of(RECEIVE)
        self.counts["message_without_id"] += int((message & (null("producer") | null("seq"))).sum())
        self.counts["receive_without_subscription"] += int((receive & null("subscription")).sum())
        self.counts["receive_with_key"] += int((receive & ~null("key")).sum())
        ts_column = batch.column("ts_ns").cast(pa.int64())
        valid = ~null("ts_ns")
        ts = np.asarray(pc.fill_null(ts_column, 0).to_numpy(zero_copy_only=False), dtype=np.int64)
        self.counts["ts_out_of_range"] += int((valid & ((ts < MIN_TS_NS) | (ts >= MAX_TS_NS))).sum())
        for name, (greatest, kinds) in BOUNDS.items():
            where = valid if kinds is None else valid & of(*kinds)
            if where.any():
                found = int(ts[where].max() if greatest else ts[where].min())
                known = self.bounds[name]
                self.bounds[name] = found if known is None else (max if greatest else min)(known, found)
        acks = of(ACK)
        if acks.any():
            clusters = batch.column("cluster").filter(pa.array(acks))
            self.ack_clusters.update(value for value in pc.unique(clusters).to_pylist() if value is not None)

    def stats(self) -> dict[str, int | None]:
        """The figures, named as :func:`spark_checks.spark.validation._validate` returns them (with the ``null_*``
        counts, which the validation reads and then drops)."""
        return {**self.counts, "corrupt": 0, **self.bounds, "truncated": 0}

    def to_json(self) -> dict[str, Any]:
        return {"stats": self.stats(), "ack_clusters": sorted(self.ack_clusters), "unknown_types": self.unknown_types}
