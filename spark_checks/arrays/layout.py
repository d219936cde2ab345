"""Laying out a Parquet history in buckets of whole producers, so that every check runs per bucket, without a
shuffle (:mod:`spark_checks.arrays.buckets`).

:func:`lay_out` reads a history (a Parquet file, or a directory of them: files in path order) one row group at a
time and appends each message event (``send``, ``ack``, ``send_error``, ``receive`` with a producer and a seq) to
the bucket file of its producer, ``bucket-NNNNN.parquet`` in the target directory. Every check is local to one
producer (a message is (producer, seq)), so a bucket holds all a check needs. Rows keep the history's order, with
``_row``: their position in the history (files in path order, then rows), which breaks ties in time as the file
order does. Only the columns the checks read are written (``ts_ns``, ``type``, ``cluster``, ``topic``,
``subscription``, ``producer``, ``seq``, ``key``); stamps, seqs and positions delta-encoded, strings as dictionaries.

Producers are assigned to buckets by their number of events (the largest first, each to the least loaded bucket;
ties by name, then bucket number): deterministic, and balanced even when there are few producers (a hash of eight
names into eight buckets leaves some empty). The counts come from a first pass over the producer column only.
Memory is bounded: a row group at a time, and a buffer of at most :data:`BUFFER_ROWS` rows over all buckets.

The same pass counts the history's row figures (:mod:`spark_checks.arrays.row_figures`), which the checks read instead
of a Spark validation pass. Everything about the layout is in ``_layout.json`` (:class:`Layout`); Spark and
``spark_checks`` skip files whose names start with ``_``.
"""

from __future__ import annotations

import heapq
import json
import os
import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..history_format import MESSAGE_EVENT_TYPES
from .message_arrays import COLUMNS, ORDER_COLUMN
from .row_figures import COLUMNS as ROW_COLUMNS
from .row_figures import RowFigures

MARKER = "_layout.json"
FORMAT = "pulsar-ha-buckets/1"
STRING_COLUMNS = ("type", "cluster", "topic", "subscription", "producer", "key")
DELTA_COLUMNS = ("ts_ns", "seq", ORDER_COLUMN)
BUFFER_ROWS = 4_000_000
"""Rows held in memory across all buckets before they are written (each bucket flushes its share)."""
MIN_FLUSH_ROWS = 65_536
"""A bucket's smallest row group (however many buckets share the buffer)."""
QUEUED = 2
"""Full buffers waiting for the writer thread at most (beyond, reading waits)."""
READ_BATCH_ROWS = 1 << 20
TARGET_BUCKET_ROWS = 4_000_000
"""A bucket's size when the history is large: its events are one task's working set (about 300 bytes each)."""


@dataclass(frozen=True)
class Layout:
    """A laid-out history: its directory and what ``_layout.json`` says of it."""

    directory: Path
    files: tuple[str, ...]
    """The bucket files that hold events (empty buckets have none), relative to :attr:`directory`."""
    rows: tuple[int, ...]
    buckets: int
    events: int
    stats: dict[str, int | None]
    ack_clusters: tuple[str, ...]
    unknown_types: tuple[str, ...]
    source: tuple[dict[str, Any], ...]

    @property
    def paths(self) -> list[str]:
        return [str(self.directory / name) for name in self.files]

    @classmethod
    def read(cls, directory: str | os.PathLike[str]) -> Layout:
        folder = Path(directory)
        data = json.loads((folder / MARKER).read_text())
        if data.get("format") != FORMAT:
            raise ValueError(f"{folder / MARKER}: not a layout of format {FORMAT}")
        return cls(
            folder,
            tuple(data["files"]),
            tuple(data["rows"]),
            int(data["buckets"]),
            int(data["events"]),
            dict(data["stats"]),
            tuple(data["ack_clusters"]),
            tuple(data["unknown_types"]),
            tuple(data["source"]),
        )


def is_layout(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a laid-out history (a directory with ``_layout.json``)."""
    return (Path(os.fspath(path).removeprefix("file:")) / MARKER).is_file()


def history_files(path: str | os.PathLike[str]) -> list[Path] | None:
    """The Parquet files of a local history in the order that breaks ties (a file, or a flat directory's visible
    files by path), or None when the layout cannot take it (remote, or a directory with subdirectories)."""
    text = os.fspath(path)
    if "://" in text and not text.startswith("file:"):
        return None
    local = Path(text.removeprefix("file:"))
    if local.is_file():
        return [local]
    if not local.is_dir():
        return None
    entries = [entry for entry in local.iterdir() if not entry.name.startswith((".", "_"))]
    if any(not entry.is_file() for entry in entries):
        return None
    return sorted(entries, key=lambda entry: entry.resolve().as_uri())


def source_of(files: Sequence[Path]) -> list[dict[str, Any]]:
    """What identifies the history's files: path, size and modification time of each."""
    return [{"path": str(p.resolve()), "size": p.stat().st_size, "mtime_ns": p.stat().st_mtime_ns} for p in files]


def choose_buckets(events: int, parallelism: int, producers: int) -> int:
    """Enough buckets for two tasks per core and at most :data:`TARGET_BUCKET_ROWS` events each, never more than
    producers (a bucket holds whole producers)."""
    wanted = max(2 * max(parallelism, 1), -(-events // TARGET_BUCKET_ROWS))
    return max(1, min(wanted, max(producers, 1)))


def producer_counts(files: Sequence[Path]) -> dict[str, int]:
    """Events per producer (the first pass: only the producer column is read)."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    from .blocks import string_codes

    counts: dict[str, int] = {}
    for path in files:
        reader = pq.ParquetFile(str(path), read_dictionary=["producer"])
        for batch in reader.iter_batches(batch_size=READ_BATCH_ROWS, columns=["producer"]):
            codes, words = string_codes(batch.column("producer"), sort=False)
            for name, count in zip(words.to_pylist(), np.bincount(codes + 1)[1:].tolist(), strict=False):
                if count and name is not None:
                    counts[name] = counts.get(name, 0) + count
    return counts


def assign(counts: dict[str, int], buckets: int) -> dict[str, int]:
    """Each producer's bucket: the largest first, each to the least loaded bucket (ties: by name, lowest bucket)."""
    heap = [(0, bucket) for bucket in range(buckets)]
    out: dict[str, int] = {}
    for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        load, bucket = heapq.heappop(heap)
        out[name] = bucket
        heapq.heappush(heap, (load + count, bucket))
    return out


class _Buckets:
    """The bucket files being written, each with its buffer of record batches. Full buffers are written by a
    thread of their own while the next row groups are read (at most :data:`QUEUED` buffers wait for it)."""

    def __init__(self, directory: Path, buckets: int) -> None:
        self.directory = directory
        self.buckets = buckets
        self.flush_rows = max(MIN_FLUSH_ROWS, BUFFER_ROWS // buckets)
        self.buffers: list[list[Any]] = [[] for _ in range(buckets)]
        self.buffered = [0] * buckets
        self.rows = [0] * buckets
        self.writers: dict[int, Any] = {}
        self.failure: BaseException | None = None
        self.queue: queue.Queue[tuple[int, list[Any]] | None] = queue.Queue(maxsize=QUEUED)
        self.thread = threading.Thread(target=self._write_all, name="bucket-writer", daemon=True)
        self.thread.start()

    def name(self, bucket: int) -> str:
        return f"bucket-{bucket:05d}.parquet"

    def add(self, bucket: int, batch: Any) -> None:
        self.buffers[bucket].append(batch)
        self.buffered[bucket] += batch.num_rows
        self.rows[bucket] += batch.num_rows
        if self.buffered[bucket] >= self.flush_rows:
            self.flush(bucket)

    def flush(self, bucket: int) -> None:
        if self.failure is not None:
            raise self.failure
        if self.buffers[bucket]:
            self.queue.put((bucket, self.buffers[bucket]))
            self.buffers[bucket], self.buffered[bucket] = [], 0

    def _write_all(self) -> None:
        while (item := self.queue.get()) is not None:
            if self.failure is None:
                try:
                    self._write(*item)
                except BaseException as exc:  # raised in the reading thread by the next flush or close
                    self.failure = exc

    def _write(self, bucket: int, batches: list[Any]) -> None:
        import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

        table = pa.Table.from_batches(batches).unify_dictionaries()
        writer = self.writers.get(bucket)
        if writer is None:
            writer = pq.ParquetWriter(
                str(self.directory / self.name(bucket)),
                table.schema,
                compression="none",
                use_dictionary=list(STRING_COLUMNS),
                column_encoding=dict.fromkeys(DELTA_COLUMNS, "DELTA_BINARY_PACKED"),
                write_statistics=False,
            )
            self.writers[bucket] = writer
        writer.write_table(table, row_group_size=1 << 30)

    def close(self) -> None:
        try:
            for bucket in range(self.buckets):
                if self.failure is None:
                    self.flush(bucket)
        finally:
            self.queue.put(None)
            self.thread.join()
            for writer in self.writers.values():
                writer.close()
        if self.failure is not None:
            raise self.failure


def _normalise(batch: Any, offset: int) -> Any:
    """The written columns of a read batch: strings as dictionaries of strings, integers as int64, ``_row``."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    columns = []
    for name in COLUMNS:
        column = batch.column(name)
        if name in STRING_COLUMNS:
            if not pa.types.is_dictionary(column.type):
                column = pc.dictionary_encode(column)
            if column.type.value_type != pa.string():
                column = column.cast(pa.dictionary(pa.int32(), pa.string()))
        else:
            column = column.cast(pa.int64())
        columns.append(column)
    columns.append(pa.array(np.arange(offset, offset + batch.num_rows, dtype=np.int64)))
    return pa.RecordBatch.from_arrays(columns, names=[*COLUMNS, ORDER_COLUMN])


def lay_out(
    source: str | os.PathLike[str], target: str | os.PathLike[str], *, parallelism: int = 2, buckets: int | None = None
) -> Layout:
    """Lay out the Parquet history ``source`` in ``target`` (created; a layout already there for the same files,
    by path, size and modification time, is kept). ``buckets``: default :func:`choose_buckets`."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    from .blocks import string_codes

    files = history_files(source)
    if not files:
        raise ValueError(f"{source}: not a local Parquet history the layout can read")
    folder = Path(target)
    described = source_of(files)
    if is_layout(folder):
        found = Layout.read(folder)
        if list(found.source) == described and (buckets is None or buckets == found.buckets):
            return found
    folder.mkdir(parents=True, exist_ok=True)
    for stale in [*folder.glob("bucket-*.parquet"), folder / MARKER]:
        stale.unlink(missing_ok=True)
    counts = producer_counts(files)
    total = sum(int(pq.ParquetFile(str(path)).metadata.num_rows) for path in files)
    count = buckets or choose_buckets(total, parallelism, len(counts))
    owner = assign(counts, count)
    figures = RowFigures()
    out = _Buckets(folder, count)
    offset = 0
    message_types = set(MESSAGE_EVENT_TYPES)
    try:
        for path in files:
            reader = pq.ParquetFile(str(path), read_dictionary=[*STRING_COLUMNS, "process"])
            wanted = list(dict.fromkeys([*ROW_COLUMNS, *COLUMNS]))
            for raw in reader.iter_batches(batch_size=READ_BATCH_ROWS, columns=wanted):
                figures.add(raw)
                batch = _normalise(raw, offset)
                offset += raw.num_rows
                producer, producers = string_codes(batch.column("producer"), sort=False)
                kinds, types = string_codes(batch.column("type"), sort=False)
                is_message = np.asarray([t in message_types for t in types.to_pylist()] + [False])[kinds]
                seq_valid = np.asarray(batch.column("seq").is_valid().to_numpy(zero_copy_only=False), dtype=bool)
                lookup = np.asarray([owner.get(name, 0) for name in producers.to_pylist()] + [-1], dtype=np.int64)
                bucket = np.where(is_message & seq_valid, lookup[producer], -1)
                order = np.argsort(bucket.astype(np.int16 if count < 1 << 15 else np.int32), kind="stable")
                sizes = np.bincount(bucket + 1, minlength=count + 1)
                grouped = batch.take(pa.array(order))
                start = int(sizes[0])  # events that are no message event come first (bucket -1): not written
                for index in range(count):
                    size = int(sizes[index + 1])
                    if size:
                        out.add(index, grouped.slice(start, size))
                    start += size
    finally:
        out.close()
    files_written = [out.name(b) for b in range(count) if out.rows[b]]
    marker = {
        "format": FORMAT,
        "buckets": count,
        "files": files_written,
        "rows": [out.rows[b] for b in range(count) if out.rows[b]],
        "events": offset,
        "source": described,
        **figures.to_json(),
    }
    (folder / MARKER).write_text(json.dumps(marker, indent=1))
    return Layout.read(folder)
