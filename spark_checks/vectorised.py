"""Lost, duplicates and ordering of a history in one process, vectorised (PyArrow and NumPy, no Python loop over
events): the baseline the Spark checker is measured against (``benchmarks/spark_checker.py``), and the same
figures as the Spark jobs on every case the benchmark generates.

The rules are the Spark checker's (``checks.py``, ``docs/history-format.md``):

* a message is ``(producer, seq)``; its cluster is the one of its earliest ack (ties: the first in the file);
* a subscription's receipts are taken in time order (ties: file order); a receipt of a message that subscription
  already received is a duplicate, and only first receipts count below;
* lost: for every subscription that received anything, each acknowledged message it never received;
* ordering, per (subscription, producer) and per (subscription, producer, key): a receipt whose seq is below one
  received before it from the same group and the same acking cluster is a reorder; below one from the group
  acked by another cluster only, an allowed cross-cluster interleaving; and a cluster's first delivery of a message
  whose seq is below one that same cluster delivered before it, of the same group and acking cluster, is a
  reorder too (a redelivery may rewind a cluster's stream; a message it never delivered may not come late).

    from spark_checks.vectorised import check_parquet
    check_parquet("history.parquet")   # {"events": ..., "lost": ..., "duplicates": ..., "reorders": ..., ...}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

COLUMNS = ("ts_ns", "type", "cluster", "subscription", "producer", "seq", "key")


def check_parquet(path: str | Path) -> dict[str, int]:
    """The figures of the Parquet history at ``path`` (only the columns the checks read are loaded)."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    return check_table(pq.read_table(str(path), columns=list(COLUMNS)))


def _codes(column: Any) -> Any:
    """Integer codes of a string column (-1 for null), as a NumPy array."""
    import numpy as np
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    encoded = pc.dictionary_encode(column).combine_chunks()
    indices = encoded.indices
    if isinstance(indices, pa.ChunkedArray):
        indices = indices.combine_chunks()
    return np.asarray(indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)


def _exclusive_running_max(groups: Any, values: Any) -> tuple[Any, Any]:
    """For each position i: the largest ``values[j]`` with j < i and ``groups[j] == groups[i]``, and whether
    there was any such j. ``values`` must be non-negative; positions are taken in array order."""
    import numpy as np

    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    _, dense = np.unique(groups, return_inverse=True)
    order = np.lexsort((np.arange(n), dense))
    g = dense[order].astype(np.int64)
    span = int(values.max()) + 1
    base = g * span
    running = np.maximum.accumulate(base + values[order])
    previous = np.empty(n, dtype=np.int64)
    previous[0] = -1
    previous[1:] = running[:-1]
    first = np.ones(n, dtype=bool)
    first[1:] = g[1:] != g[:-1]
    out_max = np.zeros(n, dtype=np.int64)
    out_has = np.zeros(n, dtype=bool)
    out_max[order] = np.where(first, 0, previous - base)
    out_has[order] = ~first
    return out_max, out_has


def check_table(table: Any) -> dict[str, int]:
    """The figures of a history held as an Arrow table with (at least) the columns in :data:`COLUMNS`."""
    import numpy as np
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    rows = table.num_rows
    kind = table.column("type")
    is_ack = np.asarray(pc.equal(kind, "ack").fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
    is_receive = np.asarray(pc.equal(kind, "receive").fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
    ts = np.asarray(table.column("ts_ns").fill_null(0).to_numpy(), dtype=np.int64)
    seq = np.asarray(table.column("seq").fill_null(-1).to_numpy(), dtype=np.int64) + 1  # >= 0; 0 is a null seq
    producer = _codes(table.column("producer")) + 1
    cluster = _codes(table.column("cluster"))
    subscription = _codes(table.column("subscription"))
    key = _codes(table.column("key"))
    seq_span = int(seq.max()) + 1 if rows else 1
    message = producer * seq_span + seq  # (producer, seq) as one integer
    row = np.arange(rows, dtype=np.int64)

    # each message's cluster: the one of its earliest ack (ties: the first in the file)
    a_msg, a_ts, a_row, a_cluster = message[is_ack], ts[is_ack], row[is_ack], cluster[is_ack]
    order = np.lexsort((a_row, a_ts, a_msg))
    a_msg, a_cluster = a_msg[order], a_cluster[order]
    earliest = np.ones(len(a_msg), dtype=bool)
    earliest[1:] = a_msg[1:] != a_msg[:-1]
    acked, acked_cluster = a_msg[earliest], a_cluster[earliest]

    # receipts in time order (ties: file order); the first of each (subscription, message) counts, and the first
    # of each (subscription, message, delivering cluster) for the clusters' own streams
    r = np.flatnonzero(is_receive)
    r = r[np.lexsort((row[r], ts[r]))]
    r_sub, r_msg = subscription[r], message[r]
    message_span = int(message.max()) + 1 if rows else 1
    cluster_span = int(cluster.max()) + 2 if rows else 2
    per_message = (r_sub + 1) * message_span + r_msg
    _, first_at = np.unique(per_message, return_index=True)
    duplicates = len(r) - len(first_at)
    _, delivered_at = np.unique(per_message * cluster_span + cluster[r] + 1, return_index=True)
    delivered_at.sort()
    is_first = np.zeros(len(r), dtype=bool)
    is_first[first_at] = True
    first = is_first[delivered_at]  # over the clusters' first deliveries, in time order: which are first receipts
    r, r_sub, r_msg = r[delivered_at], r_sub[delivered_at], r_msg[delivered_at]

    # lost: each acknowledged message missing from a subscription that received anything
    found = np.searchsorted(acked, r_msg)
    found = np.minimum(found, max(len(acked) - 1, 0))
    is_acked = (acked[found] == r_msg) if len(acked) else np.zeros(len(r_msg), dtype=bool)
    lost = len(np.unique(r_sub[first])) * len(acked) - int(is_acked[first].sum())

    # ordering: per (subscription, producer) and per (subscription, producer, key), within the acking cluster
    # (a message never acked and one acked with no cluster are alike: no cluster, code 0)
    r_cls = np.where(is_acked, acked_cluster[found] if len(acked) else -1, -1) + 1
    r_seq, r_producer, r_key, r_from = seq[r], producer[r], key[r], cluster[r] + 1
    class_span = int(r_cls.max()) + 1 if len(r_cls) else 1
    reorders = allowed = 0
    producer_group = (r_sub + 1) * (int(producer.max()) + 1 if rows else 1) + r_producer
    key_span = int(key.max()) + 2 if rows else 2
    for group, present in (
        (producer_group, np.ones(len(r), dtype=bool)),
        (producer_group * key_span + r_key + 1, r_key >= 0),
    ):
        group, values, cls, f = group[present], r_seq[present], r_cls[present], first[present]
        any_max, any_has = _exclusive_running_max(group[f], values[f])
        same_max, same_has = _exclusive_running_max(group[f] * class_span + cls[f], values[f])
        stream = (group * cluster_span + r_from[present]) * class_span + cls
        stream_max, stream_has = _exclusive_running_max(stream, values)
        reorder = stream_has & (values < stream_max)
        reorder[f] |= same_has & (values[f] < same_max)
        reorders += int(reorder.sum())
        allowed += int((~reorder[f] & any_has & (values[f] < any_max)).sum())
    return {
        "events": rows,
        "lost": lost,
        "duplicates": duplicates,
        "reorders": reorders,
        "allowed_cross_cluster_interleavings": allowed,
    }
