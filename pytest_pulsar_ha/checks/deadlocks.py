"""A broker that deadlocked: how its health check says so, the JVM's dump of the deadlock in its log, and which
known Pulsar defect the dump shows.

A broker's health check (``GET /admin/v2/brokers/health``) asks the JVM for deadlocked threads and answers
HTTP 500 ``Deadlocked threads detected. <thread>(tid=N), ...`` when there are any; the broker logs the JVM's
thread dump beside it, which ends with the block ``Found one Java-level deadlock:`` ... ``Found N deadlock.``
A deadlock never resolves, so the harness stops waiting for that cluster, keeps the block as evidence and names
the defect when its frames match one of :data:`KNOWN_DEADLOCKS`.

A broker's log appends across restarts and earlier runs, so a block is this deadlock's only when it is of this run
(the log record just above it is dated at or after the run's start) and its threads are the ones the health check
names; the newest such block is read, never an older one in place of a cut-off newer one of other threads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from pytest_pulsar_ha.scenario.known_deadlocks import KNOWN_DEADLOCKS, KnownDeadlock

__all__ = ["KNOWN_DEADLOCKS", "Deadlock", "KnownDeadlock", "deadlock_block", "read_deadlock"]

HEALTH_MARK = "Deadlocked threads detected"
BLOCK_START = "Found one Java-level deadlock:"
BLOCK_END = re.compile(r"^Found \d+ deadlocks?\.\s*$", re.MULTILINE)
THREADS = re.compile(r"Deadlocked threads detected\.\s*((?:[^,\"\\\n]+\(tid=\d+\)(?:,\s*)?)+)")
BLOCK_THREAD = re.compile(r'^"([^"\n]+)":\s*$', re.MULTILINE)
STACKS_HEADING = "Java stack information for the threads listed above:"
RECORD_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})[,.](\d{3})(Z|[+-]\d{2}:?\d{2})", re.MULTILINE)


@dataclass(frozen=True)
class Deadlock:
    """One cluster's deadlock: the threads its health check named, the JVM's block from its log (empty when the
    backend keeps no logs) and the known defect it matches (None when none does)."""

    cluster: str
    threads: tuple[str, ...]
    block: str
    known: KnownDeadlock | None
    before_faults: bool = False
    """found by the steady-state check before the faults: an error of the environment, never the scenario's"""

    def describe(self) -> str:
        threads = ", ".join(self.threads) or "threads not named"
        if self.before_faults:
            what = f"known: {self.known.name}" if self.known is not None else "not a deadlock this harness knows"
            return (
                f"Pulsar was deadlocked on {self.cluster} ({threads}) before the faults started ({what}): the "
                "environment was broken before the scenario ran; the JVM's dump is in the evidence"
            )
        if self.known is not None:
            seen = ", ".join(self.known.seen_on)
            return (
                f"Pulsar deadlocked on {self.cluster} ({threads}): {self.known.summary} ({self.known.upstream}; "
                f"seen on Pulsar {seen})"
            )
        hint = "the JVM's dump is in the evidence" if self.block else "the broker's log has the JVM's dump"
        return (
            f"Pulsar deadlocked on {self.cluster} ({threads}), not a deadlock this harness knows: {hint}; "
            "report it upstream (https://github.com/apache/pulsar/issues) with the dump"
        )


def is_deadlock_answer(text: str) -> bool:
    """Whether a health check's answer (or the error that carries it) says the JVM has deadlocked threads."""
    return HEALTH_MARK in text


def deadlocked_threads(text: str) -> tuple[str, ...]:
    """The threads a health check's answer names, ``("pulsar-io-18-3(tid=133)", ...)``; empty when it names none."""
    found = THREADS.search(text)
    if found is None:
        return ()
    return tuple(part.strip() for part in found.group(1).split(",") if part.strip())


def thread_name(named: str) -> str:
    """``pulsar-io-18-3(tid=133)`` -> ``pulsar-io-18-3``."""
    return re.sub(r"\(tid=\d+\)$", "", named.strip())


def block_threads(block: str) -> frozenset[str]:
    """The threads a JVM deadlock block lists (its first part, before the stacks)."""
    head = block.split(STACKS_HEADING, 1)[0]
    return frozenset(BLOCK_THREAD.findall(head))


def record_time(log: str, before: int) -> float | None:
    """The time (seconds since the epoch) of the last dated log record that starts before offset ``before``;
    None when there is none (or its date cannot be read)."""
    dated = list(RECORD_TIME.finditer(log, 0, before))
    if not dated:
        return None
    day, clock, millis, zone = dated[-1].groups()
    zone = "+00:00" if zone == "Z" else zone if ":" in zone else f"{zone[:3]}:{zone[3:]}"
    try:
        return datetime.fromisoformat(f"{day}T{clock}.{millis}{zone}").timestamp()
    except ValueError:
        return None


def deadlock_block(log: str, threads: tuple[str, ...] = (), since: float | None = None) -> str:
    """The newest complete ``Found one Java-level deadlock:`` ... ``Found N deadlock.`` block of ``log`` that is
    this deadlock's: when ``threads`` (as the health check names them) are given, every thread the block lists is
    one of them; when ``since`` (seconds since the epoch) is given, the log record above the block is dated at or
    after it. Empty when no block is."""
    named = {thread_name(t) for t in threads}
    start = log.rfind(BLOCK_START)
    while start != -1:
        end = BLOCK_END.search(log, start)
        block = log[start : end.end()].strip() if end is not None else ""
        if block and (not threads or (bool(block_threads(block)) and block_threads(block) <= named)):
            when = record_time(log, start) if since is not None else None
            if since is None or (when is not None and when >= since):
                return block
        start = log.rfind(BLOCK_START, 0, start)
    return ""


def known_deadlock(block: str) -> KnownDeadlock | None:
    """The known deadlock whose every frame is in ``block``, or None."""
    for known in KNOWN_DEADLOCKS:
        if block and all(frame in block for frame in known.frames):
            return known
    return None


def read_deadlock(
    cluster: str, answer: str, log: str, *, since: float | None = None, before_faults: bool = False
) -> Deadlock:
    """The deadlock of ``cluster`` from its health check's ``answer`` and its broker ``log`` (any tail of it):
    the block of the threads the answer names, logged at or after ``since`` (the run's start) when given. A
    health check that names no thread matches no block."""
    threads = deadlocked_threads(answer)
    block = deadlock_block(log, threads, since) if threads else ""
    return Deadlock(cluster, threads, block, known_deadlock(block), before_faults)
