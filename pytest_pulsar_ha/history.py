"""The history of a scenario: one table of events, the only input of the checker (``spark_checks``).

A history is written as JSON Lines (``.jsonl``, one JSON object per line, streamed as events happen; for small
runs) or as Parquet (``.parquet``, explicit schema; for large runs, or converted from the JSON Lines file at the
end). The format is described in ``docs/history-format.md``.

This module is light at import time: no pyarrow nor pyspark import happens until a Parquet file is written.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

PARTIAL_HISTORY: Final = "history.partial.jsonl"
"""A scenario's journal: every event appended as it happens (acks not yet attributed to a cluster); replaced by
``history.jsonl`` when the run ends, left behind (and readable by the checker) when the run was killed."""

SEND: Final = "send"
"""A send was invoked (``producer``, ``seq``, ``topic``, ``key`` set; ``cluster`` unknown yet, usually null)."""
ACK: Final = "ack"
"""The send was acknowledged; ``cluster`` is the cluster that acknowledged it."""
SEND_ERROR: Final = "send_error"
"""The send failed; ``detail`` holds the error text."""
RECEIVE: Final = "receive"
"""A consumer received a message; ``cluster`` delivered it, on ``subscription``."""
PROBE: Final = "probe"
"""A failover provider probed ``cluster``; ``detail`` holds the result."""
SWITCH: Final = "switch"
"""A client switched to ``cluster``."""
SWITCH_FAILED: Final = "switch_failed"
"""A provider decided to switch to ``cluster`` but the client refused the update; ``detail`` says why."""
FAULT_START: Final = "fault_start"
"""A fault began on ``cluster``; ``detail`` names it."""
FAULT_END: Final = "fault_end"
"""A fault was undone on ``cluster``."""

EVENT_TYPES: Final[tuple[str, ...]] = (
    SEND,
    ACK,
    SEND_ERROR,
    RECEIVE,
    PROBE,
    SWITCH,
    SWITCH_FAILED,
    FAULT_START,
    FAULT_END,
)
"""Every valid value of the ``type`` column."""
MESSAGE_EVENT_TYPES: Final[tuple[str, ...]] = (SEND, ACK, SEND_ERROR, RECEIVE)
"""Event types about one message: they must carry ``producer`` and ``seq``."""

EVENT_COLUMNS: Final[tuple[str, ...]] = (
    "ts_ns",
    "type",
    "process",
    "cluster",
    "topic",
    "subscription",
    "producer",
    "seq",
    "key",
    "message_id",
    "detail",
)
"""The columns of a history, in file order."""

COLUMN_TYPES: Final[Mapping[str, tuple[str, bool]]] = {
    "ts_ns": ("int64", False),
    "type": ("string", False),
    "process": ("string", False),
    "cluster": ("string", True),
    "topic": ("string", True),
    "subscription": ("string", True),
    "producer": ("string", True),
    "seq": ("int64", True),
    "key": ("string", True),
    "message_id": ("string", True),
    "detail": ("string", True),
}
"""Column name -> (logical type, nullable)."""
REQUIRED_COLUMNS: Final[tuple[str, ...]] = tuple(name for name, (_, nullable) in COLUMN_TYPES.items() if not nullable)
INT_COLUMNS: Final[tuple[str, ...]] = tuple(name for name, (kind, _) in COLUMN_TYPES.items() if kind == "int64")

MIN_TS_NS: Final = 946_684_800 * 1_000_000_000
"""The earliest plausible ``ts_ns`` (2000-01-01T00:00:00Z): anything before is a unit mistake or garbage."""
MAX_TS_NS: Final = 4_102_444_800 * 1_000_000_000
"""The first implausible ``ts_ns`` (2100-01-01T00:00:00Z)."""

JSONL_SUFFIX: Final = ".jsonl"
PARQUET_SUFFIX: Final = ".parquet"


@dataclass(frozen=True, slots=True)
class Event:
    """One row of a history. ``type`` must be one of :data:`EVENT_TYPES`."""

    ts_ns: int
    type: str
    process: str
    cluster: str | None = None
    topic: str | None = None
    subscription: str | None = None
    producer: str | None = None
    seq: int | None = None
    key: str | None = None
    message_id: str | None = None
    detail: str | None = None

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {self.type!r}; valid types: {', '.join(EVENT_TYPES)}")
        if isinstance(self.ts_ns, bool) or not isinstance(self.ts_ns, int):
            raise ValueError(f"ts_ns must be an int (nanoseconds since the epoch), got {self.ts_ns!r}")
        if self.seq is not None and (isinstance(self.seq, bool) or not isinstance(self.seq, int)):
            raise ValueError(f"seq must be an int or None, got {self.seq!r}")

    def to_dict(self) -> dict[str, str | int | None]:
        """The event as a JSON-ready mapping with every column (absent values are ``None``)."""
        return {name: getattr(self, name) for name in EVENT_COLUMNS}

    def to_json(self) -> str:
        """One JSON Lines line (without the newline)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """Build an event from a mapping (e.g. a parsed JSON line); unknown keys are ignored, types are checked."""
        values: dict[str, Any] = {}
        for name in EVENT_COLUMNS:
            value = data.get(name)
            kind, nullable = COLUMN_TYPES[name]
            if value is None:
                if not nullable:
                    raise ValueError(f"column {name!r} is missing or null")
            elif kind == "int64" and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"column {name!r} must be an integer, got {value!r}")
            elif kind == "string" and not isinstance(value, str):
                raise ValueError(f"column {name!r} must be a string, got {value!r}")
            values[name] = value
        return cls(**values)


def now_ns() -> int:
    """Wall-clock time in nanoseconds since the epoch (the unit of ``ts_ns``)."""
    return time.time_ns()


def arrow_schema() -> Any:
    """The explicit ``pyarrow.Schema`` of a history (imports pyarrow)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    kinds = {"int64": pa.int64(), "string": pa.string()}
    return pa.schema(
        [pa.field(name, kinds[kind], nullable=nullable) for name, (kind, nullable) in COLUMN_TYPES.items()]
    )


def _arrow_table(events: Iterable[Event]) -> Any:
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    columns: dict[str, list[Any]] = {name: [] for name in EVENT_COLUMNS}
    for event in events:
        for name in EVENT_COLUMNS:
            columns[name].append(getattr(event, name))
    return pa.Table.from_pydict(columns, schema=arrow_schema())


TAIL_WINDOW_BYTES: Final = 1 << 20
"""How far back from the end of a file :func:`truncated_tail` looks for the start of the last line."""


def truncated_tail(path: str | os.PathLike[str]) -> tuple[int, str] | None:
    """(line number, text) of the last line of a JSON Lines file when a run was killed while writing it, else None.

    A truncated line is the file's last line, without the newline that ends every whole line, and not a valid
    JSON object. A bad line that ends with a newline is not truncated: it is bad input.
    """
    with open(path, "rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        if size == 0:
            return None
        stream.seek(max(0, size - TAIL_WINDOW_BYTES))
        tail = stream.read()
        if tail.endswith(b"\n"):
            return None
        start = tail.rfind(b"\n") + 1
        if start == 0 and size > len(tail):
            return None  # a last line longer than the window: no event is that long, let the reader judge it
        text = tail[start:].decode("utf-8", errors="replace")
        if not text.strip():
            return None
        try:
            if isinstance(json.loads(text), dict):
                return None
        except ValueError:
            pass
        stream.seek(0)
        newlines = sum(chunk.count(b"\n") for chunk in iter(lambda: stream.read(1 << 16), b""))
    return newlines + 1, text


def iter_events_jsonl(path: str | os.PathLike[str]) -> Iterator[Event]:
    """Parse a JSON Lines history lazily; a bad line raises ``ValueError`` naming the file and line number.

    Blank lines are skipped, and so is a truncated last line (see :func:`truncated_tail`: a run killed mid-write
    is readable up to its last whole event).
    """
    cut = truncated_tail(path)
    with open(path, encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip() or (cut is not None and number == cut[0]):
                continue
            try:
                data = json.loads(line)
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                yield Event.from_dict(data)
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: bad history line: {exc}") from None


def read_events_jsonl(path: str | os.PathLike[str]) -> list[Event]:
    """Every event of a (small) JSON Lines history, in file order."""
    return list(iter_events_jsonl(path))


def write_events_jsonl(events: Iterable[Event], path: str | os.PathLike[str]) -> Path:
    """Write events as a JSON Lines history (replacing the file)."""
    target = Path(path)
    with target.open("w", encoding="utf-8") as stream:
        for event in events:
            stream.write(event.to_json() + "\n")
    return target


def write_events_parquet(
    events: Iterable[Event], path: str | os.PathLike[str], *, row_group_rows: int = 131_072
) -> Path:
    """Write events as a Parquet history with the explicit schema (replacing the file); streams in row groups."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    target = Path(path)
    with pq.ParquetWriter(str(target), arrow_schema()) as writer:
        chunk: list[Event] = []
        for event in events:
            chunk.append(event)
            if len(chunk) >= row_group_rows:
                writer.write_table(_arrow_table(chunk))
                chunk = []
        if chunk:
            writer.write_table(_arrow_table(chunk))
    return target


def jsonl_to_parquet(
    source: str | os.PathLike[str], target: str | os.PathLike[str] | None = None, *, row_group_rows: int = 131_072
) -> Path:
    """Convert a JSON Lines history to Parquet (default: same name with ``.parquet``), in bounded memory."""
    src = Path(source)
    dst = Path(target) if target is not None else src.with_suffix(PARQUET_SUFFIX)
    return write_events_parquet(iter_events_jsonl(src), dst, row_group_rows=row_group_rows)


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
