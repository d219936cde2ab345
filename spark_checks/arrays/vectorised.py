"""Lost, duplicates and ordering of a history in one process, vectorised (PyArrow and NumPy, no Python loop over
events): the baseline the Spark checker is measured against (``benchmarks/spark_checker.py``).

The work is the one each bucket does on Spark (:mod:`spark_checks.arrays.buckets`), on the whole history at once:
:class:`~spark_checks.arrays.message_arrays.MessageArrays` (first acks, first receipts, duplicates, the running maxima
of the ordering check) and its figures rows (:mod:`spark_checks.arrays.array_figures`), from which the figures are read
as the checks read them (:func:`spark_checks.figures.headline`). The rules are the Spark checker's (``checks.py``,
``docs/history-format.md``):

* a message is ``(producer, seq)``; its cluster is the one of its earliest ack (ties: the first in the file);
* a subscription's receipts are taken in time order (ties: file order); a receipt of a message that subscription
  already received is a duplicate, and only first receipts count below;
* lost: for every subscription that received messages of a topic, each acknowledged message of that topic it
  never received;
* ordering, per (subscription, producer) and per (subscription, producer, key): a receipt whose seq is below one
  received before it from the same group and the same acking cluster is a reorder; below one from the group
  acked by another cluster only, an allowed cross-cluster interleaving; and a cluster's first delivery of a message
  whose seq is below one that same cluster delivered before it, of the same group and acking cluster, is a
  reorder too (a redelivery may rewind a cluster's stream; a message it never delivered may not come late).

    from spark_checks.arrays.vectorised import check_parquet
    check_parquet("history.parquet")   # {"events": ..., "lost": ..., "duplicates": ..., "reorders": ..., ...}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..figures import Figures, headline
from .message_arrays import COLUMNS

DICTIONARY_COLUMNS = ("type", "cluster", "topic", "subscription", "producer", "key")
"""String columns read as dictionaries (their codes come straight from the Parquet dictionary pages)."""


def read_parquet(path: str | Path) -> Any:
    """The columns the checks read of a Parquet history (a file or a directory), strings as dictionaries."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    return pq.read_table(str(path), columns=list(COLUMNS), read_dictionary=list(DICTIONARY_COLUMNS))


def figures_of_table(table: Any) -> Figures:
    """The figures rows of a history held as an Arrow table (no lag percentiles: the benchmark's checks need
    none)."""
    from .array_figures import figure_table
    from .message_arrays import MessageArrays

    return Figures(figure_table(MessageArrays(table)).to_pylist(), [])


def check_parquet(path: str | Path) -> dict[str, int]:
    """The figures of the Parquet history at ``path`` (only the columns the checks read are loaded)."""
    return check_table(read_parquet(path))


def check_table(table: Any) -> dict[str, int]:
    """The figures of a history held as an Arrow table with (at least) the columns in
    :data:`~spark_checks.arrays.message_arrays.COLUMNS`: events, lost, duplicates, reorders, allowed."""
    return {"events": table.num_rows, **headline(figures_of_table(table))}
