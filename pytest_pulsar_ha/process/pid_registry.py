"""Records of the process groups this package started, and the reaper for those of a killed run.

Every process is started in a new session (its own process group) with the environment variable
``PULSAR_HA_RUN_ID`` set to the run's id. A record file names the owner (the Python process that started it,
with its start time) and the group. When a run dies without teardown (SIGKILL), the next run finds records
whose owner is gone and kills exactly the processes of that group that carry that run id: never by name.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

RUN_ID_ENV = "PULSAR_HA_RUN_ID"


def process_start_ticks(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot (from /proc), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[19])


def live_start_ticks(pid: int) -> int | None:
    """:func:`process_start_ticks` of a process that still runs: None once it is gone or a zombie (killed, and
    not yet reaped by a parent that may never look: a keeper's parent is whatever adopted it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] == "Z" else int(fields[19])


def _process_group(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[2])


def live_group_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are not zombies (a killed process is gone, or a zombie until reaped)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _environ_has(pid: int, entry: bytes) -> bool:
    try:
        return entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


REAP_WAIT_SECONDS = 10.0
"""How long the reaper waits for a killed group's members to be gone (a large JVM takes a moment)."""


@dataclass(frozen=True)
class PidRecord:
    run_id: str
    name: str
    pgid: int
    owner_pid: int
    owner_start: int
    command: str

    def owner_alive(self) -> bool:
        """The owner still runs (a killed owner not yet reaped by its parent, a zombie, is dead)."""
        return live_start_ticks(self.owner_pid) == self.owner_start

    def members(self) -> list[int]:
        """Live processes of the recorded group that carry this record's run id."""
        marker = f"{RUN_ID_ENV}={self.run_id}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                pid = int(entry.name)
                if _process_group(pid) == self.pgid and _environ_has(pid, marker):
                    found.append(pid)
        return found


class PidRegistry:
    """A directory of :class:`PidRecord` files, one per started process group."""

    def __init__(self, directory: Path, run_id: str | None = None) -> None:
        self.directory = directory
        self.run_id = run_id or uuid.uuid4().hex[:12]
        directory.mkdir(parents=True, exist_ok=True)

    def _path(self, pgid: int) -> Path:
        return self.directory / f"{self.run_id}-{pgid}.json"

    def record(self, name: str, pgid: int, command: str) -> None:
        owner = os.getpid()
        rec = PidRecord(self.run_id, name, pgid, owner, process_start_ticks(owner) or 0, command)
        self._path(pgid).write_text(json.dumps(asdict(rec)))

    def forget(self, pgid: int) -> None:
        self._path(pgid).unlink(missing_ok=True)

    def records(self) -> list[PidRecord]:
        out = []
        for path in sorted(self.directory.glob("*.json")):
            try:
                out.append(PidRecord(**json.loads(path.read_text())))
            except (OSError, ValueError, TypeError):
                path.unlink(missing_ok=True)  # unreadable: a half-written record of a dead run
        return out

    def reap_orphans(self) -> list[PidRecord]:
        """Kill the process groups left by runs whose owner died; return the records that had live processes."""
        reaped = []
        for rec in self.records():
            if rec.owner_alive():
                continue  # another live run (e.g. a parallel pytest) owns it
            members = rec.members()
            deadline = time.monotonic() + REAP_WAIT_SECONDS
            while members:  # killed, and waited for: whoever reaps may reuse the ports at once
                for pid in members:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                if rec not in reaped:
                    reaped.append(rec)
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
                members = [pid for pid in rec.members() if pid in set(live_group_members(rec.pgid))]
            (self.directory / f"{rec.run_id}-{rec.pgid}.json").unlink(missing_ok=True)
        return reaped
