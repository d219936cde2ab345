"""Example rows of :class:`~spark_checks.arrays.message_arrays.MessageArrays`: for each kind of example a check
shows, the first ``k`` rows of these events in the check's order. The first ``k`` of a whole history are among the
first ``k`` of its buckets, so merging the buckets' candidates (:mod:`spark_checks.spark.bucket_evidence`) gives
exactly the rows the Spark message frame's queries give (:mod:`spark_checks.spark.frame_evidence`).

Each candidate is ``{"example": kind, "group": [...], "sort": [...], "row": {...}}``: ``row`` is the example as a
check shows it, ``sort`` its place in the check's order, ``group`` what it is an example of:

* ``duplicates``, ``unknown``: first receipts delivered more than once, of messages never sent nor acknowledged
  (by time, then position in the history);
* ``ordering``: per scope, reorders and allowed interleavings (reorders first, then by time and position);
* ``lost`` (group ``[topic, subscription]``): acknowledged messages of the topic that the subscription, which
  received some of the topic's messages here (``received``, one per such pair), did not receive (by ack time,
  producer, seq); ``acked`` (group ``[topic]``): the topic's acknowledged messages, missing from a subscription
  that received none of them here;
* ``resent``, ``orphans``: messages sent more than once, and acks or send errors without a send (by producer, seq).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .blocks import Array, first_k
from .message_arrays import REORDER, SCOPES, MessageArrays

Candidate = dict[str, Any]


class _Words:
    def __init__(self, a: MessageArrays) -> None:
        self.a = a

    def __call__(self, column: str, code: int) -> str | None:
        return None if code < 0 else self.a.words[column][int(code)].as_py()


def example_candidates(a: MessageArrays, k: int) -> list[Candidate]:
    """The first ``k`` rows of each kind of example (see the module documentation)."""
    if k <= 0 or a.n == 0:
        return []
    return [*_receipts(a, k), *_ordering(a), *_lost(a, k), *_messages(a, k)]


def _receipts(a: MessageArrays, k: int) -> list[Candidate]:
    word = _Words(a)
    out: list[Candidate] = []
    deliveries = a.group_deliveries[a.r_group]
    duplicated = np.flatnonzero(a.first & (deliveries > 1))[:k]  # receipts are in receive order already
    for p in duplicated:
        row, last = a.r[p], a.r[a.group_last[a.r_group[p]]]
        example = {
            "subscription": word("subscription", a.r_sub[p]),
            "producer": word("producer", a.producer[row]),
            "seq": int(a.seq[row]),
            "key": word("key", a.key[row]),
            "deliveries": int(deliveries[p]),
            "first_cluster": word("cluster", a.r_cluster[p]),
            "first_ts_ns": int(a.ts[row]),
            "last_cluster": word("cluster", a.cluster[last]),
            "last_ts_ns": int(a.ts[last]),
        }
        out.append({"example": "duplicates", "group": [], "sort": [int(a.ts[row]), int(a.order[row])], "row": example})
    r_m = a.r_m
    unknown = np.flatnonzero(a.first & (a.sends[r_m] == 0) & ~a.acked[r_m])[:k]
    for p in unknown:
        row = a.r[p]
        example = {
            "subscription": word("subscription", a.r_sub[p]),
            "producer": word("producer", a.producer[row]),
            "seq": int(a.seq[row]),
            "key": word("key", a.key[row]),
            "cluster": word("cluster", a.r_cluster[p]),
            "ts_ns": int(a.ts[row]),
        }
        out.append({"example": "unknown", "group": [], "sort": [int(a.ts[row]), int(a.order[row])], "row": example})
    return out


def _ordering(a: MessageArrays) -> list[Candidate]:
    word = _Words(a)
    out: list[Candidate] = []
    for scope in SCOPES:
        for position, kind, same, anyone, stream in a.scopes[scope].examples:
            p = a.d[position]
            row, m = a.r[p], a.r_m[p]
            name = "reorder" if kind == REORDER else "allowed"
            example = {
                "scope": scope,
                "subscription": word("subscription", a.r_sub[p]),
                "producer": word("producer", a.producer[row]),
                "key": word("key", a.key[row]),
                "seq": int(a.seq[row]),
                "ack_cluster": word("cluster", a.ack_cluster[m]),
                "received_from": word("cluster", a.r_cluster[p]),
                "ts_ns": int(a.ts[row]),
                "max_seq_before": same,
                "max_seq_before_any": anyone,
                "max_seq_before_from_same_cluster": stream,
                "kind": name,
            }
            order = [0 if kind == REORDER else 1, int(a.ts[row]), int(a.order[row]), scope]
            out.append({"example": "ordering", "group": [scope], "sort": order, "row": example})
    return out


def _acked_rows(a: MessageArrays, messages: Array, k: int, subscription: str | None) -> list[Candidate]:
    """The first ``k`` of ``messages`` by (ack time, producer, seq), as rows of the lost check."""
    word = _Words(a)
    picked = messages[first_k(k, a.ack_ts[messages], messages)]
    rows = []
    for m in picked:
        producer = word("producer", a.msg_producer[m])
        example = {
            "subscription": subscription,
            "producer": producer,
            "seq": int(a.msg_seq[m]),
            "key": word("key", a.ack_key[m]),
            "ack_cluster": word("cluster", a.ack_cluster[m]),
            "ack_ts_ns": int(a.ack_ts[m]),
            "topic": word("topic", a.ack_topic[m]),
        }
        rows.append({"sort": [int(a.ack_ts[m]), producer, int(a.msg_seq[m]), subscription], "row": example})
    return rows


def _lost(a: MessageArrays, k: int) -> list[Candidate]:
    word = _Words(a)
    out: list[Candidate] = []
    acked = a.acked
    topics = np.unique(a.ack_topic[acked])
    for topic in topics:
        name = word("topic", topic)
        of_topic = acked & (a.ack_topic == topic)
        for row in _acked_rows(a, np.flatnonzero(of_topic), k, None):
            out.append({"example": "acked", "group": [name], **row})
    firsts = a.first
    for subscription in np.unique(a.r_sub[firsts]):
        if subscription < 0:
            continue
        got = np.zeros(a.count, dtype=bool)
        got[a.r_m[firsts & (a.r_sub == subscription)]] = True
        sub_name = word("subscription", subscription)
        for topic in np.unique(a.ack_topic[got & acked]):
            missing = np.flatnonzero(acked & (a.ack_topic == topic) & ~got)
            group = [word("topic", topic), sub_name]
            out.append({"example": "received", "group": group, "sort": [], "row": {}})
            out += [{"example": "lost", "group": group, **row} for row in _acked_rows(a, missing, k, sub_name)]
    return out


def _messages(a: MessageArrays, k: int) -> list[Candidate]:
    word = _Words(a)
    out: list[Candidate] = []
    for name, where in (("resent", a.sends > 1), ("orphans", (a.sends == 0) & (a.outcomes > 0))):
        for m in np.flatnonzero(where)[:k]:  # message ids are in (producer, seq) order
            producer = word("producer", a.msg_producer[m])
            example = {"producer": producer, "seq": int(a.msg_seq[m])}
            out.append({"example": name, "group": [], "sort": [producer, int(a.msg_seq[m])], "row": example})
    return out
