"""The history format as the checker reads it: event kinds, columns, their types, and the truncated last line.

The history file is the only interface between the package that writes it (``pytest_pulsar_ha``) and this
checker; ``docs/history-format.md`` documents it. The checker keeps its own copy of the few names it needs, so
that ``spark_checks`` imports nothing from the writer's package (which imports ``spark_checks``: no cycle) and
can be installed and run alone on the machine that holds the histories. ``tests/spark/test_history_format_copy.py``
asserts that this copy equals the writer's, so the two cannot drift apart.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Final

SEND: Final = "send"
"""A send was invoked (``producer``, ``seq``, ``topic``, ``key``)."""
ACK: Final = "ack"
"""The send was acknowledged by ``cluster``."""
SEND_ERROR: Final = "send_error"
"""The send failed."""
RECEIVE: Final = "receive"
"""A consumer received a message from ``cluster`` on ``subscription``."""
PROBE: Final = "probe"
SWITCH: Final = "switch"
SWITCH_FAILED: Final = "switch_failed"
FAULT_START: Final = "fault_start"
FAULT_END: Final = "fault_end"
MIGRATION_START: Final = "migration_start"
MIGRATED: Final = "migrated"
MIGRATION_END: Final = "migration_end"
METADATA_WRITE: Final = "metadata_write"
METADATA_EVENT: Final = "metadata_event"
METADATA_READ: Final = "metadata_read"

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
"""Column name -> (logical type, nullable), in file order."""
EVENT_COLUMNS: Final[tuple[str, ...]] = tuple(COLUMN_TYPES)
"""The columns of a history, in file order."""
REQUIRED_COLUMNS: Final[tuple[str, ...]] = tuple(name for name, (_, nullable) in COLUMN_TYPES.items() if not nullable)
"""The columns that are never null."""

MIN_TS_NS: Final = 946_684_800 * 1_000_000_000
"""The earliest plausible ``ts_ns`` (2000-01-01T00:00:00Z): anything before is a unit mistake or garbage."""
MAX_TS_NS: Final = 4_102_444_800 * 1_000_000_000
"""The first implausible ``ts_ns`` (2100-01-01T00:00:00Z)."""

TAIL_WINDOW_BYTES: Final = 1 << 20
"""How far back from the end of a file :func:`truncated_tail` looks for the start of the last line."""


def truncated_tail(path: str | os.PathLike[str]) -> tuple[int, str] | None:
    """(line number, text) of the last line of a JSON Lines file when a run was killed while writing it, else None.

    A truncated line is the file's last line, without the newline that ends every whole line, and not a valid
    JSON object. A bad line that ends with a newline is not truncated: it is bad input. (The same rule as the
    writer's reader, ``pytest_pulsar_ha.history.truncated_tail``: a killed run is readable up to its last event.)
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
