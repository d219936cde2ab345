"""The history of a scenario: one table of events, the only input of the checker (``spark_checks``).

A history is written as JSON Lines (``.jsonl``, one JSON object per line, streamed as events happen; for small
runs) or as Parquet (``.parquet``, explicit schema; for large runs, or converted from the JSON Lines file at the
end). The format is described in ``docs/history-format.md`` and defined once, in ``spark_checks.history_format``
(:mod:`.events` imports its names from there).

This module is light at import time: no pyarrow nor pyspark import happens until a Parquet file is written.
"""

from .events import (
    ACK,
    COLUMN_TYPES,
    EVENT_COLUMNS,
    EVENT_TYPES,
    FAULT_END,
    FAULT_START,
    INT_COLUMNS,
    JSONL_SUFFIX,
    MAX_TS_NS,
    MESSAGE_EVENT_TYPES,
    METADATA_EVENT,
    METADATA_READ,
    METADATA_WRITE,
    MIGRATED,
    MIGRATION_END,
    MIGRATION_START,
    MIN_TS_NS,
    PARQUET_SUFFIX,
    PARTIAL_HISTORY,
    PROBE,
    RECEIVE,
    REQUIRED_COLUMNS,
    SEND,
    SEND_ERROR,
    SWITCH,
    SWITCH_FAILED,
    UNDO_START,
    Event,
    now_ns,
)
from .files import (
    TAIL_WINDOW_BYTES,
    arrow_schema,
    iter_events_jsonl,
    jsonl_to_parquet,
    read_events_jsonl,
    truncated_tail,
    write_events_jsonl,
    write_events_parquet,
)
from .sink import EventLog
from .writer import HistoryWriter

__all__ = [
    "ACK",
    "COLUMN_TYPES",
    "EVENT_COLUMNS",
    "EVENT_TYPES",
    "FAULT_END",
    "FAULT_START",
    "INT_COLUMNS",
    "JSONL_SUFFIX",
    "MAX_TS_NS",
    "MESSAGE_EVENT_TYPES",
    "METADATA_EVENT",
    "METADATA_READ",
    "METADATA_WRITE",
    "MIGRATED",
    "MIGRATION_END",
    "MIGRATION_START",
    "MIN_TS_NS",
    "PARQUET_SUFFIX",
    "PARTIAL_HISTORY",
    "PROBE",
    "RECEIVE",
    "REQUIRED_COLUMNS",
    "SEND",
    "SEND_ERROR",
    "SWITCH",
    "SWITCH_FAILED",
    "TAIL_WINDOW_BYTES",
    "UNDO_START",
    "Event",
    "EventLog",
    "HistoryWriter",
    "arrow_schema",
    "iter_events_jsonl",
    "jsonl_to_parquet",
    "now_ns",
    "read_events_jsonl",
    "truncated_tail",
    "write_events_jsonl",
    "write_events_parquet",
]
