"""A process started in its own process group, logged to a file, stopped by the code that started it."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.process.pid_registry import RUN_ID_ENV, PidRegistry, live_group_members


def tail_lines(path: Path, count: int = 40) -> str:
    """The last ``count`` lines of a text file ('' if it does not exist)."""
    try:
        with path.open("r", errors="replace") as handle:
            return "".join(deque(handle, maxlen=count))
    except OSError:
        return ""


STOP_SECONDS = 5.0
"""How long a pause waits for every thread of the group to be stopped."""
STOPPED_STATES = frozenset("TtZX")
"""A thread's ``/proc`` state once it no longer runs: stopped (by a signal or a tracer), a zombie, dead."""


def running_threads(pgid: int) -> list[str]:
    """The threads (``pid/tid state``) of process group ``pgid`` that are not stopped: each member's tasks as
    ``/proc/<pid>/task/<tid>/stat`` says (a member or thread gone meanwhile is not running)."""
    running = []
    for pid in live_group_members(pgid):
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            except OSError:
                continue
            state = stat.rsplit(")", 1)[1].split()[0]
            if state not in STOPPED_STATES:
                running.append(f"{pid}/{tid} {state}")
    return running


GROUP_EXIT_SECONDS = 5.0
"""How long a kill waits for the members of the group after its leader (SIGKILL is delivered asynchronously)."""
ERROR_LINE = re.compile(r"\bERROR\b|Exception|Error:|Address already in use")


def first_errors(path: Path, count: int = 8) -> str:
    """The first ``count`` lines of a log that look like an error, each once: a process that failed while
    starting usually says why long before its last lines, which are its shutdown."""
    found: list[str] = []
    try:
        with path.open("r", errors="replace") as handle:
            for line in handle:
                if ERROR_LINE.search(line) and line not in found:
                    found.append(line)
                    if len(found) >= count:
                        break
    except OSError:
        return ""
    return "".join(found)


class ManagedProcess:
    """One external program: started in a new session, recorded in the pid registry, stopped by group."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        log_path: Path,
        registry: PidRegistry,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.cwd = cwd
        self.log_path = log_path
        self.registry = registry
        self.env = dict(env or {})
        self._popen: subprocess.Popen[bytes] | None = None
        self._finished = False  # the group was killed and its leader reaped: never signal that pgid again
        self.paused = False

    @property
    def command_line(self) -> str:
        return shlex.join(self.argv)

    @property
    def pid(self) -> int | None:
        return self._popen.pid if self._popen else None

    def start(self) -> None:
        if self.is_running():
            raise RuntimeError(f"{self.name} is already running (pid {self.pid})")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **self.env, RUN_ID_ENV: self.registry.run_id}
        with self.log_path.open("ab") as log:
            log.write(f"\n=== pytest-pulsar-ha starts: {self.command_line}\n".encode())
            log.flush()
            self._popen = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.paused = False
        self._finished = False
        self.registry.record(self.name, self._popen.pid, self.command_line)

    def note(self, text: str) -> None:
        """Write a line of the harness's own into the process log (between the process's lines)."""
        with self.log_path.open("ab") as log:
            log.write(f"=== pytest-pulsar-ha: {text}\n".encode())

    def is_running(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    def exit_code(self) -> int | None:
        return self._popen.poll() if self._popen else None

    def signal_group(self, sig: signal.Signals) -> None:
        if self._popen is None or self._finished:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._popen.pid, sig)

    def pause(self) -> None:
        """SIGSTOP the group and return once every thread of every member is stopped: the kernel stops each
        thread when it next runs, so a broker thread could still answer a request for a moment after ``killpg``
        returned (a send made right after a pause was once acknowledged). Raises :class:`RuntimeError` naming the
        threads still running after :data:`STOP_SECONDS`."""
        self.signal_group(signal.SIGSTOP)
        self.paused = True
        if self._popen is None or self._finished:
            return
        deadline = time.monotonic() + STOP_SECONDS
        running = running_threads(self._popen.pid)
        while running and time.monotonic() < deadline:
            time.sleep(0.002)
            running = running_threads(self._popen.pid)
        if running:
            raise RuntimeError(
                f"{self.name}: {len(running)} thread(s) of process group {self._popen.pid} still ran "
                f"{STOP_SECONDS:g}s after SIGSTOP: {', '.join(running[:8])}"
            )

    def resume(self) -> None:
        self.signal_group(signal.SIGCONT)
        self.paused = False

    def is_paused(self) -> bool:
        return self.paused

    def kill(self) -> None:
        """SIGKILL the whole group and wait until every member is gone (a crash, as far as the program can tell).

        The leader is reaped here; the other members die asynchronously (a CI run once saw a child of a killed
        shell still running right after the leader was reaped), so this waits for them too, up to a few
        seconds, before the group's record is forgotten."""
        if self._popen is None or self._finished:
            return
        self.signal_group(signal.SIGKILL)
        self._popen.wait()
        pgid = self._popen.pid
        deadline = time.monotonic() + GROUP_EXIT_SECONDS
        while live_group_members(pgid) and time.monotonic() < deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)  # members forked after the first signal
            time.sleep(0.02)
        self.paused = False
        self._finished = True
        self.registry.forget(self._popen.pid)

    def stop(self, grace_seconds: float = 15.0) -> None:
        """SIGTERM the group, wait up to ``grace_seconds``, then SIGKILL what is left."""
        if self._popen is None or self._finished:
            return
        if self.paused:
            self.resume()  # a stopped JVM cannot handle SIGTERM
        self.signal_group(signal.SIGTERM)
        deadline = time.monotonic() + grace_seconds
        while self._popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        self.kill()  # also reaps group members that outlived the leader

    def run_to_completion(self, timeout: float, hint: str = "") -> None:
        """Start, wait for the exit; raise StartupError (command, last log lines, ``hint``) unless it exits 0."""
        self.start()
        try:
            code = self._popen.wait(timeout=timeout) if self._popen else None
        except subprocess.TimeoutExpired:
            self.kill()
            raise StartupError(self._failure(f"did not finish within {timeout:.0f}s", hint)) from None
        self._finished = True  # the leader is reaped: its pid may be reused, so no signal to that group
        if self._popen is not None:
            self.registry.forget(self._popen.pid)
        if code != 0:
            raise StartupError(self._failure(f"exited with code {code}", hint))

    def _failure(self, what: str, hint: str) -> str:
        lines = [f"{self.name} {what}", f"command: {self.command_line}", f"log: {self.log_path}"]
        errors = self.first_errors().rstrip()
        if errors:
            lines.append("first error lines:\n" + errors)
        tail = self.log_tail(30).rstrip()
        if tail:
            lines.append("last log lines:\n" + tail)
        if hint:
            lines.append(f"hint: {hint}")
        return "\n".join(lines)

    def log_tail(self, lines: int = 40) -> str:
        return tail_lines(self.log_path, lines)

    def first_errors(self, count: int = 8) -> str:
        return first_errors(self.log_path, count)
