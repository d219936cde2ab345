"""The event schema of a history, as the writer uses it: the format's names (event types, columns and their
types, :class:`Event`), imported from their one definition, ``spark_checks.history_format``, and the writer's
own: the journal's file name, the file suffixes and the clock of ``ts_ns``.

``spark_checks`` is light at import time (no pyspark until a check runs) and imports nothing from this package.
"""

from __future__ import annotations

import time
from typing import Final

from spark_checks.history_format import ACK as ACK
from spark_checks.history_format import COLUMN_TYPES as COLUMN_TYPES
from spark_checks.history_format import EVENT_COLUMNS as EVENT_COLUMNS
from spark_checks.history_format import EVENT_TYPES as EVENT_TYPES
from spark_checks.history_format import FAULT_END as FAULT_END
from spark_checks.history_format import FAULT_START as FAULT_START
from spark_checks.history_format import INT_COLUMNS as INT_COLUMNS
from spark_checks.history_format import MAX_TS_NS as MAX_TS_NS
from spark_checks.history_format import MESSAGE_EVENT_TYPES as MESSAGE_EVENT_TYPES
from spark_checks.history_format import METADATA_EVENT as METADATA_EVENT
from spark_checks.history_format import METADATA_READ as METADATA_READ
from spark_checks.history_format import METADATA_WRITE as METADATA_WRITE
from spark_checks.history_format import MIGRATED as MIGRATED
from spark_checks.history_format import MIGRATION_END as MIGRATION_END
from spark_checks.history_format import MIGRATION_START as MIGRATION_START
from spark_checks.history_format import MIN_TS_NS as MIN_TS_NS
from spark_checks.history_format import PROBE as PROBE
from spark_checks.history_format import RECEIVE as RECEIVE
from spark_checks.history_format import REQUIRED_COLUMNS as REQUIRED_COLUMNS
from spark_checks.history_format import SEND as SEND
from spark_checks.history_format import SEND_ERROR as SEND_ERROR
from spark_checks.history_format import SWITCH as SWITCH
from spark_checks.history_format import SWITCH_FAILED as SWITCH_FAILED
from spark_checks.history_format import UNDO_START as UNDO_START
from spark_checks.history_format import Event as Event

PARTIAL_HISTORY: Final = "history.partial.jsonl"
"""A scenario's journal: every event appended as it happens (acks not yet attributed to a cluster); replaced by
``history.jsonl`` when the run ends, left behind (and readable by the checker) when the run was killed."""

JSONL_SUFFIX: Final = ".jsonl"
PARQUET_SUFFIX: Final = ".parquet"


def now_ns() -> int:
    """Wall-clock time in nanoseconds since the epoch (the unit of ``ts_ns``)."""
    return time.time_ns()
