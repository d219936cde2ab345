"""The history format, defined once: event kinds, columns and their types, :class:`Event` (one row), the
``ts_ns`` bounds and the truncated last line.

The history file is the only interface between the package that writes it (``pytest_pulsar_ha.history``, which
imports every name of the format from here) and this checker; ``docs/history-format.md`` documents it. The
definition lives in ``spark_checks``, not in the writer's package, because the checker must stand alone: it is
zipped and shipped to the executors of a Spark cluster (:mod:`spark_checks.spark.executors`) and imports nothing from
``pytest_pulsar_ha``. Nothing here imports pyspark or pyarrow. ``tests/quality/test_one_history_format.py`` fails
when another module defines the format's names again.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

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
UNDO_START: Final = "undo_start"
"""The undo of a fault with a quiet end began on ``cluster``; ``detail`` names the fault as its ``fault_start``
does; its ``fault_end`` comes once the cluster settled (clients are kept off it in between)."""
MIGRATION_START: Final = "migration_start"
"""An operator started a PIP-188 migration of ``cluster`` (blue); ``detail`` names the target and scope."""
MIGRATED: Final = "migrated"
"""Blue marked ``topic`` migrated (its ledger terminated, property ``migrated=true``), as read from blue."""
MIGRATION_END: Final = "migration_end"
"""Every topic of the migration is done on ``cluster`` (blue): migrated, nobody left on it, no backlog."""
METADATA_WRITE: Final = "metadata_write"
"""The workload wrote a metadata policy on ``cluster`` (PIP-136); ``detail`` has the path, value and outcome."""
METADATA_EVENT: Final = "metadata_event"
"""A PIP-136 event read from ``cluster``'s event topic: origin cluster, origin time, path, value."""
METADATA_READ: Final = "metadata_read"
"""What ``cluster`` held for a metadata path when read (recorded when it changes, and at the end)."""

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
    UNDO_START,
    MIGRATION_START,
    MIGRATED,
    MIGRATION_END,
    METADATA_WRITE,
    METADATA_EVENT,
    METADATA_READ,
)
"""Every valid value of the ``type`` column."""
MESSAGE_EVENT_TYPES: Final[tuple[str, ...]] = (SEND, ACK, SEND_ERROR, RECEIVE)
"""Event types about one message: they must carry ``producer`` and ``seq``."""

_VALID_TYPES: Final = frozenset(EVENT_TYPES)


def _line_encoder() -> Callable[[dict[str, str | int | None]], str]:
    """``json.dumps(..., separators=(",", ":"), ensure_ascii=False)`` with its C encoder made once, not per call."""
    from json import encoder

    make = getattr(encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator (e.g. PyPy): the plain call
        return functools.partial(json.dumps, separators=(",", ":"), ensure_ascii=False)
    chunks = make(None, None, encoder.encode_basestring, None, ":", ",", False, False, True)

    def encode(row: dict[str, str | int | None]) -> str:
        return "".join(chunks(row, 0))

    return encode


_encode_line = _line_encoder()


@dataclass(frozen=True, slots=True)
class Event:
    """One row of a history: its fields are the columns, in file order (:data:`COLUMN_TYPES` is read from them).
    ``type`` must be one of :data:`EVENT_TYPES`."""

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
        if self.type not in _VALID_TYPES:
            raise ValueError(f"unknown event type {self.type!r}; valid types: {', '.join(EVENT_TYPES)}")
        if isinstance(self.ts_ns, bool) or not isinstance(self.ts_ns, int):
            raise ValueError(f"ts_ns must be an int (nanoseconds since the epoch), got {self.ts_ns!r}")
        if self.seq is not None and (isinstance(self.seq, bool) or not isinstance(self.seq, int)):
            raise ValueError(f"seq must be an int or None, got {self.seq!r}")

    def to_dict(self) -> dict[str, str | int | None]:
        """The event as a JSON-ready mapping with every column (absent values are ``None``)."""
        return {
            "ts_ns": self.ts_ns,
            "type": self.type,
            "process": self.process,
            "cluster": self.cluster,
            "topic": self.topic,
            "subscription": self.subscription,
            "producer": self.producer,
            "seq": self.seq,
            "key": self.key,
            "message_id": self.message_id,
            "detail": self.detail,
        }

    def to_json(self) -> str:
        """One JSON Lines line (without the newline): ``json.dumps(to_dict(), separators=(",", ":"),
        ensure_ascii=False)``, with the encoder made once (a journal writes one line per event of a run)."""
        return _encode_line(self.to_dict())

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


_KINDS: Final = {"int": "int64", "str": "string"}
"""The logical type of a column, by its field's annotation in :class:`Event` (``X | None``: nullable)."""


def _column_type(annotation: str) -> tuple[str, bool]:
    kind, _, none = annotation.partition(" | ")
    return _KINDS[kind], none == "None"


COLUMN_TYPES: Final[Mapping[str, tuple[str, bool]]] = {
    field.name: _column_type(str(field.type)) for field in fields(Event)
}
"""Column name -> (logical type, nullable), in file order: :class:`Event`'s fields."""
EVENT_COLUMNS: Final[tuple[str, ...]] = tuple(COLUMN_TYPES)
"""The columns of a history, in file order."""
REQUIRED_COLUMNS: Final[tuple[str, ...]] = tuple(name for name, (_, nullable) in COLUMN_TYPES.items() if not nullable)
"""The columns that are never null."""
INT_COLUMNS: Final[tuple[str, ...]] = tuple(name for name, (kind, _) in COLUMN_TYPES.items() if kind == "int64")
"""The integer columns."""

MIN_TS_NS: Final = 946_684_800 * 1_000_000_000
"""The earliest plausible ``ts_ns`` (2000-01-01T00:00:00Z): anything before is a unit mistake or garbage."""
MAX_TS_NS: Final = 4_102_444_800 * 1_000_000_000
"""The first implausible ``ts_ns`` (2100-01-01T00:00:00Z)."""

TAIL_WINDOW_BYTES: Final = 1 << 20
"""How far back from the end of a file :func:`truncated_tail` looks for the start of the last line."""


def truncated_tail(path: str | os.PathLike[str]) -> tuple[int, str] | None:
    """(line number, text) of the last line of a JSON Lines file when a run was killed while writing it, else None.

    A truncated line is the file's last line, without the newline that ends every whole line, and not a valid
    JSON object. A bad line that ends with a newline is not truncated: it is bad input. (The writer's readers in
    ``pytest_pulsar_ha.history`` use this function too: a killed run is readable up to its last event.)
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
