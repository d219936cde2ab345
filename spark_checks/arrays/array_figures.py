"""The figures rows and the replication lag samples of :class:`~spark_checks.arrays.message_arrays.MessageArrays`:
the counts of :func:`spark_checks.spark.messages.figures_frame` and the samples of
:func:`spark_checks.spark.messages.lag_frame`, by the same rules, as Arrow tables.

Each message counts once, on the row that represents it; each receipt on its own row (first receipts for
receipts and duplicates, every receipt for received and replicated, the clusters' first deliveries for the
ordering kinds). Rows are grouped by (subscription, topic, cluster) of the event and (ack_topic, ack_cluster) of
its message's first ack.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..figures import FIGURE_DIMENSIONS, MEASURES
from .blocks import Array, first_of_groups, group_ids
from .message_arrays import ALLOWED, REORDER, SCOPES, MessageArrays

DIMENSION_WORDS = {
    "subscription": "subscription",
    "topic": "topic",
    "cluster": "cluster",
    "ack_topic": "topic",
    "ack_cluster": "cluster",
}
"""The column whose strings each dimension's codes stand for."""


def strings(codes: Array, words: Any) -> Any:
    """An Arrow string array of ``words[codes]`` (null where a code is -1)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if len(words) == 0:
        return pa.nulls(len(codes), pa.string())
    indices = pa.array(np.maximum(codes, 0).astype(np.int32), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, words).cast(pa.string())


def _dimensions(a: MessageArrays) -> tuple[list[Array], list[Array]]:
    """The codes (+1, 0 for null) of each dimension for the messages' representative rows and for the receipts."""
    rep, r = a.rep, a.r
    messages = [a.subscription[rep], a.topic[rep], a.cluster[rep], a.ack_topic, a.ack_cluster]
    receipts = [a.r_sub, a.topic[r], a.r_cluster, a.ack_topic[a.r_m], a.ack_cluster[a.r_m]]
    return [codes + 1 for codes in messages], [codes + 1 for codes in receipts]


def figure_table(a: MessageArrays) -> Any:
    """The figures rows (:data:`~spark_checks.figures.FIGURE_DIMENSIONS`, then the
    :data:`~spark_checks.figures.MEASURES`) of these events, one row per group with an event."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    messages, receipts = _dimensions(a)
    spans = [a.span(DIMENSION_WORDS[name]) for name in FIGURE_DIMENSIONS]
    joined = [np.concatenate((m, r)) for m, r in zip(messages, receipts, strict=True)]
    ids, count = group_ids(*zip(joined, spans, strict=True))
    on_message, on_receipt = ids[: a.count], ids[a.count :]

    def tally(ids: Array, where: Array | None = None, weights: Array | None = None) -> Array:
        if where is not None:
            ids = ids[where]
            weights = None if weights is None else weights[where]
        return np.bincount(ids, weights, minlength=count).astype(np.int64)

    acked, sends, first = a.acked, a.sends, a.first
    r_acked = acked[a.r_m]
    deliveries = a.group_deliveries[a.r_group]
    r_ack_cluster = a.ack_cluster[a.r_m]
    replicated = r_acked & (a.r_cluster >= 0) & (r_ack_cluster >= 0) & (a.r_cluster != r_ack_cluster)
    counts = {
        "messages": tally(on_message),
        "acked": tally(on_message, acked),
        "sends": tally(on_message, None, sends),
        "acked_sends": tally(on_message, acked, sends),
        "resent": tally(on_message, sends > 1),
        "orphans": tally(on_message, sends == 0, a.outcomes),
        "receipts": tally(on_receipt, first),
        "acked_receipts": tally(on_receipt, first & r_acked),
        "duplicates": tally(on_receipt, first, deliveries - 1),
        "duplicated": tally(on_receipt, first & (deliveries > 1)),
        "unknown": tally(on_receipt, first & (sends[a.r_m] == 0) & ~r_acked),
        "received": tally(on_receipt),
        "replicated": tally(on_receipt, replicated),
        "received_unacked": tally(on_receipt, ~r_acked),
    }
    on_delivery = on_receipt[a.d]
    for scope in SCOPES:
        kind = a.scopes[scope].kind
        counts[f"reorders_{scope}"] = tally(on_delivery, kind == REORDER)
        counts[f"allowed_{scope}"] = tally(on_delivery, kind == ALLOWED)
    present = np.flatnonzero(np.any(np.stack([counts[name] for name in MEASURES]), axis=0)) if count else ids[:0]
    where = first_of_groups(ids, count)[present]
    columns = {
        name: strings(codes[where] - 1, a.words[DIMENSION_WORDS[name]])
        for name, codes in zip(FIGURE_DIMENSIONS, joined, strict=True)
    }
    columns.update({name: pa.array(counts[name][present], pa.int64()) for name in MEASURES})
    return pa.table(columns)


def lag_samples(a: MessageArrays) -> list[tuple[str | None, str | None, Array]]:
    """Replication lag samples per route, ``(ack_cluster, cluster, lags)``: each cluster's first delivery of a
    message on a subscription, from a cluster other than the one that first acknowledged it, minus the ack time."""
    d = a.d
    m = a.r_m[d]
    cluster, ack_cluster = a.r_cluster[d], a.ack_cluster[m]
    lagging = a.acked[m] & (cluster >= 0) & (ack_cluster >= 0) & (cluster != ack_cluster)
    lag = a.ts[a.r[d[lagging]]] - a.ack_ts[m[lagging]]
    route, _ = group_ids((ack_cluster[lagging], a.spans["cluster"]), (cluster[lagging], a.spans["cluster"]))
    out = []
    words = a.words["cluster"]
    for key in np.unique(route):
        where = route == key
        first = int(np.argmax(where))
        ack_name = words[int(ack_cluster[lagging][first])].as_py()
        name = words[int(cluster[lagging][first])].as_py()
        out.append((ack_name, name, lag[where]))
    return out
