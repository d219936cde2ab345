"""The scenario workload on the Java client: the driver of ``drivers/java`` (built by
:mod:`pytest_pulsar_ha.provisioning.java_driver`) run as a subprocess of its own process group.

The driver reads a JSON configuration (:func:`driver_config`) and writes every send, ack, send error, receive
and switch of Java's provider as a JSON line of the history format on its stdout; each line is added to the
run's sink as it arrives, so the journal, the attribution (which cluster stored each message id's payload) and
every check apply unchanged. Control lines (``{"control": ...}``) say where the driver is. Commands go to its
stdin (``stop_sending``, ``stop``); closing stdin stops it too, and whatever does not exit in time is killed
with its whole group. The driver's own log (Java's provider and client) is ``java-client.log`` beside the
history.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.history import ACK, RECEIVE, SEND_ERROR, Event, EventLog
from pytest_pulsar_ha.history.events import EVENT_COLUMNS
from pytest_pulsar_ha.process.pid_registry import RUN_ID_ENV, PidRegistry
from pytest_pulsar_ha.workload.attribution import attribute_log

START_TIMEOUT_S = 150.0
"""How long the driver may take to start the JVM and create every producer and consumer (its own set-up retries
for 90 s)."""
EXIT_TIMEOUT_S = 60.0
"""How long ``stop`` waits for the driver to close everything and exit before its process group is killed."""


def _event(data: dict[str, Any]) -> Event | None:
    """The event of one line of the driver (None when a column has the wrong type or is unknown)."""
    if set(data) - set(EVENT_COLUMNS):
        return None
    ts_ns, type_, process, seq = data.get("ts_ns"), data.get("type"), data.get("process"), data.get("seq")
    if not isinstance(ts_ns, int) or not isinstance(type_, str) or not isinstance(process, str):
        return None
    if seq is not None and not isinstance(seq, int):
        return None
    text = {column: data.get(column) for column in EVENT_COLUMNS[3:] if column != "seq"}
    if any(value is not None and not isinstance(value, str) for value in text.values()):
        return None
    try:
        return Event(ts_ns, type_, process, seq=seq, **text)
    except ValueError:  # an unknown event type
        return None


class JavaDriverError(RuntimeError):
    """The Java driver could not start, or reported an error."""


class JavaWorkload:
    """The Java driver as a workload (the runner uses it as it uses
    :class:`~pytest_pulsar_ha.workload.single_process.SingleProcessWorkload`): ``start``, ``stop_sending``,
    ``drain``, ``stop``, ``attribute_acks``."""

    def __init__(
        self,
        command: list[str],
        config: dict[str, Any],
        log: EventLog,
        evidence_dir: Path,
        registry: PidRegistry | None = None,
    ) -> None:
        self.command = command
        self.config = config
        self.log = log
        self.evidence_dir = evidence_dir
        self.registry = registry
        self.hung_closes: list[str] = []
        """producers and consumers whose close() did not return (reported by the driver)"""
        self.callback_errors: list[str] = []
        """lines of the driver that could not be read as events, and errors it reported"""
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._acked: set[tuple[str, int]] = set()
        self._received: set[tuple[str, int]] = set()
        self._controls: dict[str, threading.Event] = {
            name: threading.Event() for name in ("started", "sending_stopped", "stopped")
        }
        self._errors: list[str] = []
        self._stderr: Any = None
        self.provider_initialized_s: float | None = None
        """when the driver's client handed itself to its provider (``time.monotonic()``; Java's System.nanoTime()
        reads the same clock on Linux), or None without a provider"""

    # -- running the driver ----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the driver and return once every producer and consumer exists (raise with its log otherwise)."""
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        config_path = self.evidence_dir / "java-driver.json"
        config_path.write_text(json.dumps(self.config, indent=2) + "\n")
        self._stderr = (self.evidence_dir / "java-client.log").open("ab")
        env = dict(os.environ)
        if self.registry is not None:
            env[RUN_ID_ENV] = self.registry.run_id
        self._process = subprocess.Popen(
            [*self.command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            start_new_session=True,
            env=env,
        )
        if self.registry is not None:
            self.registry.record("java-driver", self._process.pid, " ".join(self.command))
        self._reader = threading.Thread(target=self._read, name="java-driver output", daemon=True)
        self._reader.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._controls["started"].wait(0.2):
            if self._process.poll() is not None or self._errors or time.monotonic() > deadline:
                self.stop()
                why = "; ".join(self._errors) or (
                    f"it exited with {self._process.returncode}"
                    if self._process.returncode is not None
                    else f"it did not start within {START_TIMEOUT_S:g}s"
                )
                raise JavaDriverError(f"the Java driver did not start: {why} (log: {self._log_tail()})")

    def _log_tail(self, lines: int = 15) -> str:
        path = self.evidence_dir / "java-client.log"
        with contextlib.suppress(OSError):
            tail = path.read_text(errors="replace").splitlines()[-lines:]
            return f"{path}, last lines:\n" + "\n".join(tail)
        return str(path)

    def _read(self) -> None:
        stdout = self._process.stdout if self._process is not None else None
        if stdout is None:
            return
        for raw in stdout:
            line = raw.decode(errors="replace").strip()
            if line:
                self._line(line)

    def _line(self, line: str) -> None:
        try:
            data = json.loads(line)
        except ValueError:
            self.callback_errors.append(f"a line of the Java driver is not JSON: {line[:200]!r}")
            return
        if not isinstance(data, dict):
            self.callback_errors.append(f"a line of the Java driver is not a JSON object: {line[:200]!r}")
            return
        control = data.get("control")
        if control is not None:
            self._control(str(control), data.get("detail"))
            return
        event = _event(data)
        if event is None:
            self.callback_errors.append(f"a line of the Java driver is not a history event: {line[:200]!r}")
            return
        self.log.add(event)
        if event.producer is not None and event.seq is not None:
            key = (event.producer, event.seq)
            with self._lock:
                if event.type == ACK:
                    self._acked.add(key)
                elif event.type == RECEIVE:
                    self._received.add(key)
                elif event.type == SEND_ERROR:
                    self._acked.discard(key)

    def _control(self, control: str, detail: Any) -> None:
        if control == "hung_close":
            self.hung_closes.append(str(detail))
        elif control == "error":
            self._errors.append(str(detail))
            self.callback_errors.append(f"the Java driver: {detail}")
        elif control == "provider_initialized_ns":
            try:
                nanos = int(str(detail))
            except ValueError:
                self.callback_errors.append(f"the Java driver: a provider_initialized_ns that is no number: {detail!r}")
                return
            self.provider_initialized_s = nanos / 1e9 if nanos >= 0 else None
        elif control in self._controls:
            self._controls[control].set()

    def _command(self, command: str) -> None:
        process = self._process
        if process is None or process.stdin is None or process.poll() is not None:
            return
        with contextlib.suppress(OSError, ValueError):  # the driver is gone: nothing to tell it
            process.stdin.write(command.encode() + b"\n")
            process.stdin.flush()

    # -- the workload's life -----------------------------------------------------------------------------

    def stop_sending(self, timeout_s: float | None = None) -> None:
        """Stop issuing sends and wait until the driver's producers have flushed (every send in flight
        acknowledged or failed); bounded like the Python workload's: send timeout + 10 s (60 s without one)."""
        if timeout_s is None:
            timeout_s = (int(self.config.get("sendTimeoutMs", 0)) / 1000 or 50.0) + 10.0
        self._command("stop_sending")
        self._controls["sending_stopped"].wait(timeout_s + 5.0)

    def drain(self, timeout_s: float) -> bool:
        """Wait until every acknowledged send was received once, or the time is up."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if self._acked <= self._received:
                    return True
            time.sleep(0.2)
        return False

    def drain_held(self) -> int:
        """Acknowledged sends not received yet."""
        with self._lock:
            return len(self._acked - self._received)

    def stop(self) -> None:
        """Tell the driver to close everything and exit; kill its process group if it has not exited within
        :data:`EXIT_TIMEOUT_S`. Safe to call twice."""
        process = self._process
        if process is None:
            return
        self._command("stop")
        with contextlib.suppress(OSError, ValueError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.hung_closes.append(f"java driver: did not exit within {EXIT_TIMEOUT_S:g}s of stop (killed)")
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # its whole group, before the leader is reaped
            process.wait()
        if self._reader is not None:
            self._reader.join(10)
        if self.registry is not None:
            self.registry.forget(process.pid)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._process = None

    def rate_shortfalls(self) -> list[str]:
        """None known here: the Java driver paces its own producers and reports no lag."""
        return []

    def attribute_acks(self, admins: dict[str, AdminClient], seeded: Mapping[int, str] | None = None) -> None:
        """The acknowledging cluster of every ack and the delivering cluster of every receive, as for the Python
        workload (:func:`~pytest_pulsar_ha.workload.attribution.attribute_log`)."""
        attribute_log(self.log, admins, seeded)
