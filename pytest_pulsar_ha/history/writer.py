"""The streaming writer: events appended to a JSON Lines or Parquet file as they happen."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from .events import JSONL_SUFFIX, PARQUET_SUFFIX, Event, now_ns
from .files import _arrow_table, arrow_schema, jsonl_to_parquet


class HistoryWriter:
    """Appends events to a history file; safe to call from many threads at once.

    The format follows the file name: ``*.jsonl`` streams one JSON object per line (flushed every
    ``flush_every`` events, and on :meth:`flush` / :meth:`close`), ``*.parquet`` buffers ``row_group_rows``
    events and writes them as one row group (pyarrow, explicit schema). A JSON Lines history can be turned into
    Parquet at the end with :meth:`to_parquet`. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: str | os.PathLike[str], *, flush_every: int = 1, row_group_rows: int = 131_072) -> None:
        self.path = Path(path)
        if self.path.suffix not in (JSONL_SUFFIX, PARQUET_SUFFIX):
            raise ValueError(f"history file must end with {JSONL_SUFFIX} or {PARQUET_SUFFIX}: {self.path}")
        if flush_every < 1 or row_group_rows < 1:
            raise ValueError("flush_every and row_group_rows must be positive")
        self._lock = threading.Lock()
        self._flush_every = flush_every
        self._row_group_rows = row_group_rows
        self._count = 0
        self._unflushed = 0
        self._closed = False
        self._stream: IO[str] | None = None
        self._parquet: Any = None
        self._buffer: list[Event] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.is_parquet:
            import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

            self._parquet = pq.ParquetWriter(str(self.path), arrow_schema())
        else:
            self._stream = self.path.open("w", encoding="utf-8")

    @property
    def is_parquet(self) -> bool:
        return self.path.suffix == PARQUET_SUFFIX

    @property
    def count(self) -> int:
        """Events appended so far."""
        return self._count

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, event: Event) -> None:
        """Add one event (thread-safe)."""
        line = None if self.is_parquet else event.to_json() + "\n"
        with self._lock:
            if self._closed:
                raise ValueError(f"history {self.path} is closed")
            self._count += 1
            if self._stream is not None and line is not None:
                self._stream.write(line)
                self._unflushed += 1
                if self._unflushed >= self._flush_every:
                    self._stream.flush()
                    self._unflushed = 0
            else:
                self._buffer.append(event)
                if len(self._buffer) >= self._row_group_rows:
                    self._write_row_group()

    def extend(self, events: Iterable[Event]) -> None:
        """Add several events, in order (each is appended under the lock)."""
        for event in events:
            self.append(event)

    def record(
        self,
        type: str,
        process: str,
        *,
        ts_ns: int | None = None,
        cluster: str | None = None,
        topic: str | None = None,
        subscription: str | None = None,
        producer: str | None = None,
        seq: int | None = None,
        key: str | None = None,
        message_id: str | None = None,
        detail: str | None = None,
    ) -> Event:
        """Build an event stamped with the current time (unless ``ts_ns`` is given), append it and return it."""
        event = Event(
            ts_ns=now_ns() if ts_ns is None else ts_ns,
            type=type,
            process=process,
            cluster=cluster,
            topic=topic,
            subscription=subscription,
            producer=producer,
            seq=seq,
            key=key,
            message_id=message_id,
            detail=detail,
        )
        self.append(event)
        return event

    def _write_row_group(self) -> None:
        if self._buffer:
            self._parquet.write_table(_arrow_table(self._buffer))
            self._buffer = []

    def flush(self) -> None:
        """Push what was appended to the file (a Parquet writer writes its buffered events as a row group)."""
        with self._lock:
            if self._closed:
                return
            if self._stream is not None:
                self._stream.flush()
                self._unflushed = 0
            else:
                self._write_row_group()

    def close(self) -> Path:
        """Finish the file (idempotent) and return its path."""
        with self._lock:
            if not self._closed:
                self._closed = True
                if self._stream is not None:
                    self._stream.close()
                else:
                    self._write_row_group()
                    self._parquet.close()
        return self.path

    def to_parquet(self, target: str | os.PathLike[str] | None = None) -> Path:
        """Close the history and return a Parquet copy of it (default: same name with ``.parquet``).

        For a Parquet history this is its own path (``target`` must then be left out or equal to it).
        """
        self.close()
        if self.is_parquet:
            if target is not None and Path(target) != self.path:
                raise ValueError(f"{self.path} is already Parquet; cannot convert it to {target}")
            return self.path
        return jsonl_to_parquet(self.path, target)

    def __enter__(self) -> HistoryWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"HistoryWriter({str(self.path)!r}, {self._count} events, {state})"
