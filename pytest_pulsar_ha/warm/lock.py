"""One session at a time on a warm environment: an exclusive ``flock`` on its ``session.lock``, held for the
session and released by the kernel when the holder exits, however it exits. The file names the holder, so a
refusal says who has it."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from pytest_pulsar_ha.errors import PulsarHaError

LOCK_FILE = "session.lock"


class EnvironmentBusy(PulsarHaError):
    """Another session holds the environment."""


class SessionLock:
    """``with SessionLock(folder, "pytest session"):`` holds the environment in ``folder`` or raises
    :class:`EnvironmentBusy` at once, naming the holder."""

    def __init__(self, folder: Path, holder: str) -> None:
        self.path = folder / LOCK_FILE
        self.holder = holder
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held_by = os.pread(fd, 512, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise EnvironmentBusy(
                f"the warm environment in {self.path.parent} is in use by {held_by}; one session at a time uses "
                "one: wait for it to end, or start another environment (a different topology, or without reuse)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{self.holder} (pid {os.getpid()}, since {time.strftime('%H:%M:%S')})".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> SessionLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def holder(folder: Path) -> str | None:
    """Who holds the environment in ``folder`` now (what its holder wrote), or None when nobody does."""
    path = folder / LOCK_FILE
    if not path.exists():
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return os.pread(fd, 512, 0).decode(errors="replace").strip() or "a session"
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
