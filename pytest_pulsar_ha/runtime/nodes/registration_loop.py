"""Pulsar's bookie-registration lock loop after a standalone was killed and started again.

A ``pulsar standalone`` (4.0.8: RocksDB metadata store, bookie in the same process) that was killed with
SIGKILL keeps its bookie's registration ``/ledgers/available/<bookie>`` in the metadata store. On the next
start the bookie deletes it and takes the lock again, and sometimes the notifications of its own delete and
create invalidate the new lock, which is revalidated (delete, create) again: the loop of apache/pulsar#17759
("Infinite Loop Observed for ResourceLockImpl"), seen here on about half of the restarts of a killed
standalone. While it loops the bookie is registered one moment and gone the next: the broker answers its
health check, but ledger creations fail with "Not enough bookies" and topics time out, for as long as the
process lives (minutes, in every run seen). A graceful stop deletes the registration, and the next start is
clean.

The embedded backend watches for it while a restarted standalone gets ready (:class:`RegistrationLoopWatch`, the
first of its readiness checks, counts the invalidations in the lines the new process wrote: a handful after a
clean restart, hundreds within a second when it loops, long before the broker answers) and, when it loops,
stops the standalone gracefully and starts it again, saying so on stderr and in the process log. Production
clusters (ZooKeeper sessions, bookies of their own) do not take this path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_pulsar_ha.process.readiness import WaitStrategy

MARKER = "was invalidated"
RESOURCE = "Lock on resource /ledgers/available/"
LOOP_THRESHOLD = 100
"""Invalidations of the bookie's registration lock that mean a loop (a clean restart shows a handful)."""
UPSTREAM = "apache/pulsar#17759"


def registration_invalidations(log_path: Path, offset: int) -> int:
    """How many times the bookie's registration lock was invalidated in ``log_path`` after byte ``offset``."""
    try:
        with log_path.open("rb") as log:
            log.seek(offset)
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return 0
    return sum(1 for line in text.splitlines() if RESOURCE in line and MARKER in line)


def log_size(log_path: Path) -> int:
    try:
        return log_path.stat().st_size
    except OSError:
        return 0


class RegistrationLoop(Exception):
    """A restarted standalone's bookie-registration lock loops; its text says how many invalidations were seen."""


@dataclass
class RegistrationLoopWatch(WaitStrategy):
    """Passes while the bookie's registration lock was invalidated fewer than ``threshold`` times after byte
    ``offset`` of ``log_path``; raises :class:`RegistrationLoop` (ending the wait at once) when it loops."""

    log_path: Path = Path()
    offset: int = 0
    threshold: int = LOOP_THRESHOLD

    def describe(self) -> str:
        return f"no bookie-registration lock loop in {self.log_path.name}"

    def check(self) -> None:
        seen = registration_invalidations(self.log_path, self.offset)
        if seen >= self.threshold:
            raise RegistrationLoop(f"the bookie's registration lock was invalidated {seen} times ({UPSTREAM})")
