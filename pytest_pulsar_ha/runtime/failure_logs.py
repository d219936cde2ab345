"""What the Pulsar processes logged while a test failed: ERROR and WARN lines of that time, in a few lines.

A failure's traceback says what the test saw (``Timeout``); the brokers' logs say why. For each process log
(``stdout.log``) under the session's work directories, the lines stamped inside the failed test's time are
counted and the last distinct ERROR lines (else WARN lines) are kept, without their timestamps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

LOG_NAME = "stdout.log"
TAIL_BYTES = 4_000_000
# 2026-11-26T06:33:08,543+0000 [thread] LEVEL logger - message
LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)[,.](\d{3})\S* \[([^\]]*)\] (ERROR|WARN)\s+(.*)$")


@dataclass(frozen=True)
class LogExcerpt:
    path: str
    errors: int
    warnings: int
    last: tuple[str, ...]

    def lines(self, width: int = 220) -> list[str]:
        head = f"{self.path}: {self.errors} ERROR, {self.warnings} WARN lines during the test"
        return [head] + [f"    {text[:width]}" for text in self.last]


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def tail_text(path: Path, limit: int) -> str | None:
    """The last ``limit`` bytes of ``path`` as text (bad bytes replaced); None when it cannot be read."""
    try:
        with path.open("rb") as log:
            size = log.seek(0, 2)
            log.seek(max(0, size - limit))
            return log.read().decode("utf-8", "replace")
    except OSError:
        return None


def written_since(roots: Iterable[Path], pattern: str, start: float) -> Iterator[tuple[Path, Path]]:
    """``(root, path)`` for every file matching ``pattern`` under ``roots`` modified since ``start``."""
    for root in roots:
        for path in sorted(root.rglob(pattern)):
            try:
                if path.stat().st_mtime >= start:
                    yield root, path
            except OSError:
                continue


def excerpt(path: Path, start: float, stop: float, keep: int = 2, label: str | None = None) -> LogExcerpt | None:
    """The ERROR/WARN lines of ``path`` stamped in ``[start, stop]`` (epoch seconds, whole seconds compared);
    None when there are none. Only the last ``TAIL_BYTES`` of the file are read."""
    text = tail_text(path, TAIL_BYTES)
    if text is None:
        return None
    low, high = _stamp(start), _stamp(stop + 1)
    errors: list[str] = []
    warnings: list[str] = []
    for raw in text.splitlines():
        match = LINE.match(raw)
        if match is None or not low <= match.group(1) <= high:
            continue
        message = f"{match.group(4)} {match.group(5).strip()}"
        (errors if match.group(4) == "ERROR" else warnings).append(message)
    if not errors and not warnings:
        return None
    chosen = errors or warnings
    distinct: list[str] = []
    for message in reversed(chosen):
        if message not in distinct:
            distinct.append(message)
        if len(distinct) == keep:
            break
    return LogExcerpt(label or str(path), len(errors), len(warnings), tuple(reversed(distinct)))


def excerpts(roots: Iterable[Path], start: float, stop: float, keep: int = 2) -> list[LogExcerpt]:
    """:func:`excerpt` of every process log under ``roots`` modified since ``start``, named relative to its root."""
    found = []
    for root, path in written_since(roots, LOG_NAME, start):
        item = excerpt(path, start, stop, keep, f"{root.name}/{path.relative_to(root)}")
        if item is not None:
            found.append(item)
    return found
