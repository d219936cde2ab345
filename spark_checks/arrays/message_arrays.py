"""The per-message work of every check on an Arrow table of events, vectorised with NumPy: the rules of the Spark
message frame (:mod:`spark_checks.spark.messages`), computed in one process over the events of whole producers (a whole
history, or one bucket of a laid-out history: :mod:`spark_checks.arrays.layout`).

A message is (producer, seq); the events about it are ``send``, ``ack``, ``send_error`` and ``receive``, taken
in file order (the ``_row`` column when the table has one, else the table's order). :class:`MessageArrays`
holds, as arrays:

* per message: its sends and outcomes, its first ack (by time, then file order: cluster, time, topic, key) and
  the row that represents it in the figures (the first by subscription, cluster, time, file order; nulls first,
  as Spark sorts);
* per receipt, in receive order (time, then file order): whether it is the first of its (subscription, message)
  and the first of its (subscription, message, delivering cluster), its group's deliveries and last receipt;
* per first delivery of a cluster, for each ordering scope (:class:`ScopeOrder`): the highest seq received
  before it in its group and ack class (first receipts), in its group (first receipts, any class) and in its
  delivering cluster's stream (that cluster's first deliveries, same class), and its kind (reorder, allowed).

Only NumPy and PyArrow: the per-bucket function imports this on Spark's Python workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..history_format import ACK, RECEIVE, SEND, SEND_ERROR
from .blocks import SAFE_SPAN, Array, RunningMax, dense, first_of_groups, group_ids, last_of_groups, string_codes

MESSAGE_TYPES = (SEND, ACK, SEND_ERROR, RECEIVE)
"""The message event types, coded 0..3 in :attr:`MessageArrays.kind`."""
SEND_CODE, ACK_CODE, SEND_ERROR_CODE, RECEIVE_CODE = range(4)
COLUMNS = ("ts_ns", "type", "cluster", "topic", "subscription", "producer", "seq", "key")
"""The history columns the checks read."""
ORDER_COLUMN = "_row"
"""A laid-out history's position of each event in the original history (ties in time are broken by it)."""
NO_KIND, ALLOWED, REORDER = 0, 1, 2
SCOPES = ("producer", "key")


@dataclass
class ScopeOrder:
    """The ordering kinds of one scope over the first deliveries of each cluster (:attr:`MessageArrays.d`): kind
    :data:`REORDER`, :data:`ALLOWED` or :data:`NO_KIND` (also rows outside the scope: a null key in the ``key``
    scope); and for the first of each kind (the example rows), ``(position in d, kind, highest seq before in its
    group and ack class, in its group, in its delivering cluster's stream)`` (None: nothing before)."""

    kind: Array
    examples: list[tuple[int, int, int | None, int | None, int | None]]


def _int64(column: Any) -> tuple[Array, Array]:
    """An integer column as int64 values (0 for null) and its validity."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    column = column.cast(pa.int64())
    valid = np.asarray(pc.is_valid(column).to_numpy(zero_copy_only=False), dtype=bool)
    values = np.asarray(pc.fill_null(column, 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    return values, valid


class MessageArrays:
    """The message events of an Arrow table with the per-message, per-receipt and ordering arrays of the checks.

    Row arrays (``ts``, ``seq``, ``kind``, codes of ``producer``, ``subscription``, ``cluster``, ``topic``,
    ``key``, ``order``) hold the message events with a producer and a seq, in file order; the strings of each
    code are in ``words[column]`` (codes of producer, subscription and cluster follow the strings' order).
    """

    def __init__(self, table: Any, *, examples: int = 0) -> None:
        self.examples = examples
        """How many example rows of each kind to prepare (the ordering maxima are kept for those only)."""
        self._read(table)
        self._messages()
        self._first_acks()
        self._representatives()
        self._receipts()
        self.scopes = {scope: self._scope(scope) for scope in SCOPES}

    # ------------------------------------------------------------------------------------------------ rows

    def _read(self, table: Any) -> None:
        if any(str(field.type).startswith("dictionary") for field in table.schema):
            table = table.unify_dictionaries()
        self.words: dict[str, Any] = {}
        codes: dict[str, Array] = {}
        for name in ("type", "producer", "subscription", "cluster", "topic", "key"):
            codes[name], self.words[name] = string_codes(table.column(name), sort=name != "type")
        lookup = [MESSAGE_TYPES.index(w) if w in MESSAGE_TYPES else -1 for w in self.words["type"].to_pylist()]
        kind = np.asarray([*lookup, -1], dtype=np.int64)[codes.pop("type")]
        ts, _ = _int64(table.column("ts_ns"))
        seq, has_seq = _int64(table.column("seq"))
        if ORDER_COLUMN in table.column_names:
            order, _ = _int64(table.column(ORDER_COLUMN))
        else:
            order = np.arange(table.num_rows, dtype=np.int64)
        keep = (kind >= 0) & (codes["producer"] >= 0) & has_seq
        rows = None if keep.all() else np.flatnonzero(keep)
        if rows is not None:
            order = order[rows]
        if len(order) > 1 and not bool(np.all(order[1:] > order[:-1])):
            sorting = np.argsort(order, kind="stable")
            rows = sorting if rows is None else rows[sorting]
            order = order[sorting]

        def take(values: Array) -> Array:
            return values if rows is None else values[rows]

        self.order = order
        self.ts, self.seq, self.kind = take(ts), take(seq), take(kind)
        self.producer, self.subscription = take(codes["producer"]), take(codes["subscription"])
        self.cluster, self.topic, self.key = take(codes["cluster"]), take(codes["topic"]), take(codes["key"])
        self.n = len(self.order)
        self.spans = {name: len(words) for name, words in self.words.items()}

    def span(self, name: str) -> int:
        """Codes of ``name`` plus one (null) fit below this."""
        return self.spans[name] + 1

    # ------------------------------------------------------------------------------------------------ messages

    def _messages(self) -> None:
        """Dense message ids (in (producer, seq) order), each message's producer and seq, sends and outcomes."""
        low = int(self.seq.min()) if self.n else 0
        span = int(self.seq.max()) - low + 1 if self.n else 1
        producers = max(self.spans["producer"], 1)
        if producers * span < SAFE_SPAN:
            self.m, self.count, keys = dense(self.producer * span + (self.seq - low), producers * span)
            self.msg_producer, self.msg_seq = keys // span, keys % span + low
        else:
            ids, count = group_ids((self.producer, producers), (self.seq - low, span))
            self.m, self.count, _ = dense(ids, count)
            self.msg_producer = np.zeros(self.count, dtype=np.int64)
            self.msg_producer[self.m] = self.producer
            self.msg_seq = np.zeros(self.count, dtype=np.int64)
            self.msg_seq[self.m] = self.seq
        kind, m = self.kind, self.m
        self.sends = np.bincount(m[kind == SEND_CODE], minlength=self.count)
        self.outcomes = np.bincount(m[(kind == ACK_CODE) | (kind == SEND_ERROR_CODE)], minlength=self.count)

    def _first_acks(self) -> None:
        """Each message's first ack (by time, then file order): its row, time, cluster, topic, key; its class."""
        acks = np.flatnonzero(self.kind == ACK_CODE)
        acks = acks[np.argsort(self.ts[acks], kind="stable")]
        first = first_of_groups(self.m[acks], self.count)
        self.acked = first < len(acks)
        row = np.full(self.count, -1, dtype=np.int64)
        row[self.acked] = acks[first[self.acked]]
        self.ack_row = row
        safe = np.maximum(row, 0)
        self.ack_ts = np.where(self.acked, self.ts[safe] if self.n else 0, 0)
        self.ack_cluster, self.ack_topic, self.ack_key = (
            np.where(self.acked, values[safe] if self.n else -1, -1) for values in (self.cluster, self.topic, self.key)
        )
        # the ack class: coalesce(ack cluster, ''), as the Spark frame groups it (no ack, a null and '' are one)
        words = self.words["cluster"].to_pylist()
        empty = words.index("") if "" in words else -2
        self.cls = np.where((self.ack_cluster >= 0) & (self.ack_cluster != empty), self.ack_cluster + 1, 0)

    def _representatives(self) -> None:
        """The row of each message counted in the figures: the first by (subscription, cluster, time, file order),
        nulls first (the Spark frame's ``is_message`` row)."""
        zero = (self.subscription < 0) & (self.cluster < 0)  # a send (or an ack without cluster): the usual one
        rows = np.flatnonzero(zero)
        has_zero = np.bincount(self.m[rows], minlength=self.count) > 0
        if not has_zero.all():
            rows = np.flatnonzero(zero | ~has_zero[self.m])
        primary = (self.subscription + 1) * self.span("cluster") + (self.cluster + 1)
        for values in (primary, self.ts):
            least = np.full(self.count, np.iinfo(np.int64).max, dtype=np.int64)
            np.minimum.at(least, self.m[rows], values[rows])
            rows = rows[values[rows] == least[self.m[rows]]]
        self.rep = np.full(self.count, self.n, dtype=np.int64)
        np.minimum.at(self.rep, self.m[rows], rows)

    # ------------------------------------------------------------------------------------------------ receipts

    def _receipts(self) -> None:
        """Receipts in receive order; first per (subscription, message) and per (subscription, message, cluster)."""
        receipts = np.flatnonzero(self.kind == RECEIVE_CODE)
        self.r = receipts[np.argsort(self.ts[receipts], kind="stable")]
        self.r_m = self.m[self.r]
        self.r_sub = self.subscription[self.r]
        self.r_cluster = self.cluster[self.r]
        positions = np.arange(len(self.r), dtype=np.int64)
        group, count = group_ids((self.r_sub + 1, self.span("subscription")), (self.r_m, self.count))
        self.r_group = group
        self.group_first = first_of_groups(group, count)
        self.group_last = last_of_groups(group, count)
        self.first = self.group_first[group] == positions
        self.group_deliveries = np.bincount(group, minlength=count)
        per_cluster, clusters = group_ids((group, count), (self.r_cluster + 1, self.span("cluster")))
        self.cluster_first = first_of_groups(per_cluster, clusters)[per_cluster] == positions
        self.d = np.flatnonzero(self.cluster_first)
        """Positions (in receive order) of each cluster's first delivery of a message on a subscription."""

    def _scope(self, scope: str) -> ScopeOrder:
        """The running maxima and kinds of one ordering scope over the clusters' first deliveries."""
        d = self.d
        rows = self.r[d]
        kind = np.zeros(len(d), dtype=np.int8)
        index = np.arange(len(d)) if scope == "producer" else np.flatnonzero(self.key[rows] >= 0)
        if not len(index):
            return ScopeOrder(kind, [])
        rows, d = rows[index], d[index]
        values, firsts, cls = self.seq[rows], self.first[d], self.cls[self.r_m[d]]
        parts = [(self.r_sub[d] + 1, self.span("subscription")), (self.producer[rows], self.spans["producer"])]
        if scope == "key":
            parts.append((self.key[rows], self.spans["key"]))
        group, groups = group_ids(*parts)
        classes = self.span("cluster") + 1
        any_before = RunningMax(group, groups, values, firsts)
        same, count = group_ids((group, groups), (cls, classes))
        same_before = RunningMax(same, count, values, firsts)
        stream, count = group_ids((group, groups), (self.r_cluster[d] + 1, self.span("cluster")), (cls, classes))
        stream_before = RunningMax(stream, count, values)
        reorder = stream_before.below | (firsts & same_before.below)
        allowed = firsts & ~reorder & any_before.below
        kinds = np.where(reorder, REORDER, np.where(allowed, ALLOWED, NO_KIND)).astype(np.int8)
        kind[index] = kinds
        examples: list[tuple[int, int, int | None, int | None, int | None]] = []
        for wanted in (REORDER, ALLOWED) if self.examples else ():
            first = np.flatnonzero(kinds == wanted)[: self.examples]  # d is in receive order: the first ones
            maxima = zip(same_before.at(first), any_before.at(first), stream_before.at(first), strict=True)
            examples += [(int(index[p]), wanted, *found) for p, found in zip(first, maxima, strict=True)]
        return ScopeOrder(kind, examples)
