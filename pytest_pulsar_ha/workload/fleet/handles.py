"""The conductor's side of one fleet worker: its process, its connection, and what it said."""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def socket_address(stack: contextlib.ExitStack) -> str:
    """Where the workers' Unix socket goes: a private temporary folder (mode 0700) that ``stack`` removes when it
    closes. Never the run's evidence folder: a deep one makes the path too long to bind (Linux binds at most 107
    bytes: ``OSError: AF_UNIX path too long``, found by the kill matrix), and it may be on a file system that
    binds no socket at all."""
    return str(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pulsar-ha-fleet-"))) / "workers.sock")


def accept_worker(listener: Any, process: subprocess.Popen[bytes], timeout_s: float) -> Any:
    """The connection of the worker just started, or None when it exits or does not connect in time (the
    listener is closed then: nothing else connects to it)."""
    accepted: list[Any] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            accepted.append(listener.accept())

    thread = threading.Thread(target=accept, name="fleet accept", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while thread.is_alive() and process.poll() is None and time.monotonic() < deadline:
        thread.join(0.1)
    if not accepted:
        listener.close()
        thread.join(1)
    return accepted[0] if accepted else None


@dataclass
class WorkerHandle:
    index: int
    process: subprocess.Popen[bytes]
    conn: Any
    log_path: Path
    ready: threading.Event = field(default_factory=threading.Event)
    sent: threading.Event = field(default_factory=threading.Event)
    stopped: threading.Event = field(default_factory=threading.Event)
    failure: str | None = None
    paces: dict[str, tuple[int, int, float]] = field(default_factory=dict)
    relayed: list[tuple[str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def log_tail(self, lines: int = 12) -> str:
        try:
            text = self.log_path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return f"no log at {self.log_path}"
        return f"last lines of {self.log_path}: " + " | ".join(text) if text else f"{self.log_path} is empty"
