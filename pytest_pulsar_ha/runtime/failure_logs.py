"""What the Pulsar processes logged while a test failed: ERROR and WARN lines of that time, in a few lines.

A failure's traceback says what the test saw (``Timeout``); the brokers' logs say why. For each process log
(``stdout.log``) under the session's work directories, the lines stamped inside the failed test's time are
counted and the last distinct ERROR lines (else WARN lines) are kept, without their timestamps. The workload's
Python (C++) client logs to ``clients.log`` in the work directory, stamped in local time: its lines say why a
client was slow to reconnect (a producer refused, a lookup retried).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

LOG_NAME = "stdout.log"
CLIENT_LOG_NAME = "clients.log"
TAIL_BYTES = 4_000_000
# 2026-11-26T06:33:08,543+0000 [thread] LEVEL logger - message
LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)[,.](\d{3})\S* \[([^\]]*)\] (ERROR|WARN)\s+(.*)$")
# 2026-11-28 07:34:32.752 WARN  [140366443873984] ProducerImpl:885 | message   (the C++ client, local time)
CLIENT_LINE = re.compile(r"^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)\.(\d{3}) (ERROR|WARN)\s+\[([^\]]*)\] (.*)$")


@dataclass(frozen=True)
class LogExcerpt:
    path: str
    errors: int
    warnings: int
    last: tuple[str, ...]

    def lines(self, width: int = 220) -> list[str]:
        head = f"{self.path}: {self.errors} ERROR, {self.warnings} WARN lines during the test"
        return [head] + [f"    {text[:width]}" for text in self.last]


def _stamp(seconds: float, local: bool = False) -> str:
    moment = datetime.fromtimestamp(seconds) if local else datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _parse(raw: str) -> tuple[str, str, str] | None:
    """(stamp as ``YYYY-MM-DDTHH:MM:SS``, level, message) of a broker or client log line, else None."""
    match = LINE.match(raw)
    if match is not None:
        return match.group(1), match.group(4), match.group(5).strip()
    match = CLIENT_LINE.match(raw)
    if match is not None:
        return f"{match.group(1)}T{match.group(2)}", match.group(4), match.group(6).strip()
    return None


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
    local = path.name == CLIENT_LOG_NAME
    low, high = _stamp(start, local), _stamp(stop + 1, local)
    errors: list[str] = []
    warnings: list[str] = []
    for raw in text.splitlines():
        parsed = _parse(raw)
        if parsed is None or not low <= parsed[0] <= high:
            continue
        message = f"{parsed[1]} {parsed[2]}"
        (errors if parsed[1] == "ERROR" else warnings).append(message)
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
    """:func:`excerpt` of every process log and client log under ``roots`` modified since ``start``, named
    relative to its root."""
    found = []
    for name in (LOG_NAME, CLIENT_LOG_NAME):
        for root, path in written_since(roots, name, start):
            item = excerpt(path, start, stop, keep, f"{root.name}/{path.relative_to(root)}")
            if item is not None:
                found.append(item)
    return found
