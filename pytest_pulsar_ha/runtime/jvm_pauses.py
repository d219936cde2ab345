"""The JVM's stop-the-world pauses of each Pulsar process, logged by the JVM and read back for a failed test.

A broker that stops every thread for half a second (a garbage collection, a deoptimisation) answers nothing
meanwhile: a probe times out, a send waits. Each process the embedded backend starts logs its safepoints
(``-Xlog:safepoint``, UTC-stamped) to ``jvm-pauses-<pid>.log`` beside its other logs; a failed real-cluster test
lists the pauses over :data:`NOTABLE_S` that ended during it, so a late switch can be told from a frozen broker.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pytest_pulsar_ha.runtime.failure_logs import tail_text, written_since

PAUSE_LOG_GLOB = "jvm-pauses-*.log"
NOTABLE_S = 0.1
"""Pauses shorter than this are not listed (a healthy G1 collection of a test-sized heap takes milliseconds)."""
TAIL_BYTES = 2_000_000

# [2026-11-28T04:28:29.412+0000] Safepoint "G1CollectForAllocation", Time since last: 4144208 ns,
#   Reaching safepoint: 1883 ns, Cleanup: 8993 ns, At safepoint: 8872957 ns, Total: 8883833 ns
LINE = re.compile(r'^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4})\] Safepoint "([^"]*)".*\bTotal: (\d+) ns')


def pause_log_option(log_dir: Path) -> str:
    """The JVM option that logs every safepoint of a process to ``log_dir`` (two files of 10 MB at most)."""
    return f"-Xlog:safepoint:file={log_dir / 'jvm-pauses-%p.log'}:utctime:filecount=2,filesize=10m"


@dataclass(frozen=True)
class JvmPause:
    ended: float
    """When the pause ended, seconds since the epoch."""
    seconds: float
    cause: str

    def describe(self) -> str:
        stamp = datetime.fromtimestamp(self.ended, UTC).strftime("%H:%M:%S.%f")[:-3]
        return f"{self.seconds:.2f}s ({self.cause}), ended {stamp} UTC"


def pauses(path: Path, start: float, stop: float, notable_s: float = NOTABLE_S) -> list[JvmPause]:
    """The pauses of at least ``notable_s`` logged in ``path`` that ended in ``[start, stop]`` (epoch seconds).
    Only the last :data:`TAIL_BYTES` of the file are read; lines that are not safepoint lines are skipped."""
    text = tail_text(path, TAIL_BYTES)
    if text is None:
        return []
    found = []
    for raw in text.splitlines():
        match = LINE.match(raw)
        if match is None:
            continue
        seconds = int(match.group(3)) / 1e9
        if seconds < notable_s:
            continue
        ended = datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
        if start <= ended <= stop:
            found.append(JvmPause(ended, seconds, match.group(2)))
    return found


def pause_lines(roots: Iterable[Path], start: float, stop: float, keep: int = 3) -> list[str]:
    """For every process log directory under ``roots`` with notable pauses in ``[start, stop]``: how many, and
    the longest ``keep`` of them; named relative to the root's parent, like the broker log excerpts."""
    lines: list[str] = []
    by_dir: dict[tuple[Path, Path], list[JvmPause]] = {}
    for root, path in written_since(roots, PAUSE_LOG_GLOB, start):
        by_dir.setdefault((root, path.parent), []).extend(pauses(path, start, stop))
    for (root, directory), found in by_dir.items():
        if found:
            label = f"{root.name}/{directory.relative_to(root)}"
            longest = sorted(found, key=lambda p: -p.seconds)[:keep]
            lines.append(f"{label}: the JVM stopped {len(found)} time(s) for {NOTABLE_S:g}s or more during the test")
            lines.extend(f"    {pause.describe()}" for pause in longest)
    return lines
