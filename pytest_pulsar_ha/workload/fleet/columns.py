"""A worker's message events kept as plain tuples while the run goes on, and written as history rows in bulk.

At tens of thousands of messages a second the history cannot be built one :class:`~pytest_pulsar_ha.history.Event`
(and one JSON line) at a time: a worker appends one tuple per send, ack, send error and receipt (one atomic
``list.append``, safe from the client's callback threads), and every flush turns the tuples gathered since the
last one into an Arrow table of the history's schema with vectorised string building (message ids, keys, the
``detail`` JSON, the cluster of a seeded ledger id). The rows are exactly the single-process workload's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_pulsar_ha.history.events import ACK, RECEIVE, SEND, SEND_ERROR

SendRow = tuple[int, int, int, int, int]
"""(ts_ns, producer index, seq, key index or -1, intended ns)"""
AckRow = tuple[int, int, int, int, int, int, int]
"""(ts_ns, producer index, seq, key index or -1, ledger, entry, partition)"""
ErrorRow = tuple[int, int, int, int, str]
"""(ts_ns, producer index, seq, key index or -1, the client's result)"""
ReceiveRow = tuple[int, int, str, str, int, str | None, int, int, int, int]
"""(ts_ns, consumer index, topic, producer, seq, key, ledger, entry, partition, payload size)"""


def key_name(index: int) -> str:
    """The key of key index ``index`` (the single-process workload's ``k<n>``)."""
    return f"k{index}"


@dataclass(frozen=True)
class Names:
    """What a worker's indexes stand for: its producers (name, topic), its consumers (name, subscription), the
    number of keys, the payload size, and the seeded ledger ids (high 32 bits -> cluster)."""

    producers: Sequence[tuple[str, str]]
    consumers: Sequence[tuple[str, str]]
    keys: int
    payload_size: int
    seeded: Mapping[int, str] = field(default_factory=dict)


@dataclass
class Rows:
    """The tuples gathered since the last flush, one list per event kind."""

    sends: list[SendRow] = field(default_factory=list)
    acks: list[AckRow] = field(default_factory=list)
    errors: list[ErrorRow] = field(default_factory=list)
    receipts: list[ReceiveRow] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.sends) + len(self.acks) + len(self.errors) + len(self.receipts)


class MessageColumns:
    """The rows of one worker, appended to by its threads; :meth:`take` hands over what was gathered so far.

    The lists are never replaced, so a row can never land in a list already handed over, wherever the interpreter
    switches threads (a thread looks a list up, then appends to it): :meth:`take` copies the first ``n`` rows of
    each list and deletes them; what is appended meanwhile lands after them and stays for the next flush."""

    def __init__(self) -> None:
        self.rows = Rows()

    def take(self) -> Rows:
        taken = Rows()
        for name in ("sends", "acks", "errors", "receipts"):
            rows: list[Any] = getattr(self.rows, name)
            count = len(rows)
            setattr(taken, name, rows[:count])
            del rows[:count]
        return taken


def _strings(values: Sequence[str | None]) -> Any:
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    return pa.array(values, pa.string())


def _pick(names: Sequence[str | None], indexes: Any) -> Any:
    """``names[i]`` for each index (a negative index: null), as an Arrow string array."""
    import numpy as np
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    array = np.asarray(indexes, dtype=np.int64)
    return _strings(list(names)).take(pa.array(array, mask=array < 0))


def _keys(names: Names, indexes: Any) -> Any:
    return _pick([key_name(i) for i in range(names.keys)], indexes)


def _ints(values: Any) -> Any:
    import numpy as np
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    return pa.array(np.asarray(values, dtype=np.int64))


def message_ids(ledgers: Any, entries: Any, partitions: Any) -> Any:
    """``ledger:entry:partition`` per row (the history's form of a message id)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    parts = [pc.cast(_ints(column), pa.string()) for column in (ledgers, entries, partitions)]
    return pc.binary_join_element_wise(*parts, ":")


def owners(seeded: Mapping[int, str], ledgers: Any) -> Any:
    """The cluster seeded with each ledger id's high 32 bits (null when none was: attributed later)."""
    import numpy as np

    array = np.asarray(ledgers, dtype=np.int64)
    high = np.where(array > 0, array >> 32, -1)
    clusters = sorted(set(seeded.values()))
    code = {bits: clusters.index(name) for bits, name in seeded.items()}
    index = np.full(len(array), -1, dtype=np.int64)
    for bits in np.unique(high):
        if int(bits) in code:
            index[high == bits] = code[int(bits)]
    return _pick(clusters, index)


def _detail(prefix: str, values: Any) -> Any:
    """``{"<prefix>": <value>}`` per row, as ``json.dumps`` writes it."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    return pc.binary_join_element_wise(f'{{"{prefix}": ', pc.cast(_ints(values), pa.string()), "}", "")


def _constant(value: str | None, count: int) -> Any:
    return _strings([value] * count)


def _table(columns: Mapping[str, Any]) -> Any:
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    from pytest_pulsar_ha.history.files import arrow_schema

    schema = arrow_schema()
    count = len(next(iter(columns.values())))
    arrays = [columns[f.name] if f.name in columns else pa.nulls(count, f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def _sends(names: Names, rows: list[SendRow]) -> Any:
    ts, producer, seq, key, intended = zip(*rows, strict=True)
    who = _pick([name for name, _ in names.producers], producer)
    return _table(
        {
            "ts_ns": _ints(ts),
            "type": _constant(SEND, len(rows)),
            "process": who,
            "topic": _pick([topic for _, topic in names.producers], producer),
            "producer": who,
            "seq": _ints(seq),
            "key": _keys(names, key),
            "detail": _detail("intended_ns", intended),
        }
    )


def _acks(names: Names, rows: list[AckRow]) -> Any:
    ts, producer, seq, key, ledger, entry, partition = zip(*rows, strict=True)
    who = _pick([name for name, _ in names.producers], producer)
    return _table(
        {
            "ts_ns": _ints(ts),
            "type": _constant(ACK, len(rows)),
            "process": who,
            "cluster": owners(names.seeded, ledger),
            "topic": _pick([topic for _, topic in names.producers], producer),
            "producer": who,
            "seq": _ints(seq),
            "key": _keys(names, key),
            "message_id": message_ids(ledger, entry, partition),
            "detail": _detail("payload_size", [names.payload_size] * len(rows)),
        }
    )


def _errors(names: Names, rows: list[ErrorRow]) -> Any:
    ts, producer, seq, key, text = zip(*rows, strict=True)
    who = _pick([name for name, _ in names.producers], producer)
    return _table(
        {
            "ts_ns": _ints(ts),
            "type": _constant(SEND_ERROR, len(rows)),
            "process": who,
            "topic": _pick([topic for _, topic in names.producers], producer),
            "producer": who,
            "seq": _ints(seq),
            "key": _keys(names, key),
            "detail": _strings(list(text)),
        }
    )


def _receipts(names: Names, rows: list[ReceiveRow]) -> Any:
    ts, consumer, topic, producer, seq, key, ledger, entry, partition, size = zip(*rows, strict=True)
    return _table(
        {
            "ts_ns": _ints(ts),
            "type": _constant(RECEIVE, len(rows)),
            "process": _pick([name for name, _ in names.consumers], consumer),
            "cluster": owners(names.seeded, ledger),
            "topic": _strings(list(topic)),
            "subscription": _pick([sub for _, sub in names.consumers], consumer),
            "producer": _strings(list(producer)),
            "seq": _ints(seq),
            "key": _strings(list(key)),
            "message_id": message_ids(ledger, entry, partition),
            "detail": _detail("payload_size", size),
        }
    )


def to_table(names: Names, rows: Rows) -> Any:
    """The history rows of ``rows`` (the history's Arrow schema), in time order (ties: sends, acks, send errors,
    receipts, each in the order they were gathered)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    from pytest_pulsar_ha.history.files import arrow_schema

    parts = []
    if rows.sends:
        parts.append(_sends(names, rows.sends))
    if rows.acks:
        parts.append(_acks(names, rows.acks))
    if rows.errors:
        parts.append(_errors(names, rows.errors))
    if rows.receipts:
        parts.append(_receipts(names, rows.receipts))
    if not parts:
        return arrow_schema().empty_table()
    table = pa.concat_tables(parts)
    return table.take(table["ts_ns"].to_numpy().argsort(kind="stable"))


def progress_of(table: Any) -> dict[str, tuple[list[str], Any, Any]]:
    """Per outcome (``ack``, ``send_error``, ``receive``) in a flushed table: the producer names, and for each row
    its producer's index in them and its seq (NumPy arrays: one report pickles as a few buffers)."""
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    out = {}
    for kind in (ACK, SEND_ERROR, RECEIVE):
        rows = table.filter(pc.equal(table["type"], kind))
        if rows.num_rows:
            encoded = pc.dictionary_encode(rows["producer"]).combine_chunks()
            out[kind] = (encoded.dictionary.to_pylist(), encoded.indices.to_numpy(), rows["seq"].to_numpy())
    return out
