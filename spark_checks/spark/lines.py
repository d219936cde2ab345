"""The line-level side of reading a JSON Lines history, in plain Python: truncated last lines and ``file:line``.

Spark reads the lines (:mod:`spark_checks.spark.load`); this module only looks at local files where Spark cannot tell
a line number: it finds the last line a killed run left half-written (skipped, and counted), and, when Spark
found bad lines, names the first of them as ``file:line: problem`` by applying the same rules to each line
(:func:`line_problem`: the JSON types Spark accepts and the rules of ``docs/history-format.md``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..history_format import (
    COLUMN_TYPES,
    EVENT_TYPES,
    MAX_TS_NS,
    MESSAGE_EVENT_TYPES,
    MIN_TS_NS,
    RECEIVE,
    REQUIRED_COLUMNS,
    truncated_tail,
)

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
DEFAULT_LOCATED = 5
"""How many bad lines an error message names."""


@dataclass(frozen=True)
class Tail:
    """The truncated last line of one file: where it is and its text (as Spark's corrupt record shows it)."""

    path: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def local_files(path: str, suffixes: Iterable[str]) -> list[Path] | None:
    """The files Spark reads for ``path`` when it is local (a file, or a directory's visible files), else None."""
    if "://" in path and not path.startswith("file:"):
        return None
    local = Path(path.removeprefix("file:"))
    if local.is_file():
        return [local]
    if local.is_dir():
        wanted = tuple(suffixes)
        return sorted(
            entry
            for entry in local.iterdir()
            if entry.is_file() and not entry.name.startswith((".", "_")) and entry.name.lower().endswith(wanted)
        )
    return None


def truncated_tails(files: Iterable[Path]) -> list[Tail]:
    """The truncated last line of each file that has one (see :func:`spark_checks.history_format.truncated_tail`)."""
    tails = []
    for path in files:
        found = truncated_tail(path)
        if found is not None:
            tails.append(Tail(path, *found))
    return tails


def _is_int64(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and INT64_MIN <= value <= INT64_MAX


def line_problem(text: str) -> str | None:
    """What is wrong with one line of a JSON Lines history (None: a valid event, or a blank line).

    The JSON types are judged as Spark reads them: an integer column takes a JSON integer that fits in 64 bits
    (not a float, a string or a boolean); a text column takes any JSON value, as its text.
    """
    if not text.strip():
        return None
    try:
        data = json.loads(text.strip())
    except ValueError as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(data, dict):
        return f"not a JSON object (a JSON {type(data).__name__})"
    for name, (kind, _) in COLUMN_TYPES.items():
        value = data.get(name)
        if value is not None and kind == "int64" and not _is_int64(value):
            return f"{name} must be an integer (int64), found {value!r}"
    for name in REQUIRED_COLUMNS:
        if data.get(name) is None:
            return f"{name} is missing or null"
    kind = data["type"] if isinstance(data["type"], str) else json.dumps(data["type"])
    if kind not in EVENT_TYPES:
        return f"unknown event type {kind!r} (valid: {', '.join(EVENT_TYPES)})"
    if kind in MESSAGE_EVENT_TYPES and (data.get("producer") is None or data.get("seq") is None):
        return f"a {kind} event needs producer and seq"
    if kind == RECEIVE and data.get("subscription") is None:
        return "a receive event needs subscription"
    ts_ns = data["ts_ns"]
    if not MIN_TS_NS <= ts_ns < MAX_TS_NS:
        return f"ts_ns {ts_ns} is not between 2000-01-01 and 2100-01-01 (nanoseconds since the epoch)"
    return None


def bad_lines(files: Iterable[Path], *, skip: Iterable[Tail] = (), limit: int = DEFAULT_LOCATED) -> Iterator[str]:
    """``file:line: problem`` for the first ``limit`` bad lines of local JSON Lines files (``skip``: known tails)."""
    skipped = {(tail.path, tail.line) for tail in skip}
    found = 0
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as stream:
            for number, line in enumerate(stream, start=1):
                if (path, number) in skipped:
                    continue
                problem = line_problem(line)
                if problem is not None:
                    yield f"{os.fspath(path)}:{number}: {problem}"
                    found += 1
                    if found >= limit:
                        return
