"""Readiness as wait-strategy objects: a check, a timeout and a poll interval.

A strategy polls until its check passes. If the process it waits for dies, the wait ends at once with its exit
code; if time runs out, the error carries the command line, the last log lines and a hint.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.process.processes import ManagedProcess


class NotReady(Exception):
    """Raised by a check that is not satisfied yet; its text says what was seen."""


@dataclass
class WaitStrategy:
    """Poll ``check`` until it passes; subclasses define ``check``."""

    timeout: float = 180.0
    poll_interval: float = 0.5
    hint: str = ""

    def check(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:
        return type(self).__name__

    def wait(self, process: ManagedProcess | None = None) -> None:
        deadline = time.monotonic() + self.timeout
        last = "no check ran yet"
        while True:
            if process is not None and not process.is_running():
                raise StartupError(self._report(process, f"exited with code {process.exit_code()}", last))
            try:
                self.check()
                return
            except NotReady as exc:
                last = str(exc)
            if time.monotonic() >= deadline:
                raise StartupError(self._report(process, f"not ready after {self.timeout:.0f}s", last))
            time.sleep(self.poll_interval)

    def _report(self, process: ManagedProcess | None, what: str, last: str) -> str:
        name = process.name if process else "service"
        lines = [f"{name} {what} (waiting for {self.describe()}; last check: {last})"]
        if process is not None:
            lines.append(f"command: {process.command_line}")
            lines.append(f"log: {process.log_path}")
            errors = process.first_errors().rstrip()
            if errors:
                lines.append("first error lines:\n" + errors)
            tail = process.log_tail(30).rstrip()
            if tail:
                lines.append("last log lines:\n" + tail)
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


@dataclass
class TcpWait(WaitStrategy):
    """Ready when a TCP connection to ``host:port`` is accepted."""

    host: str = "127.0.0.1"
    port: int = 0

    def describe(self) -> str:
        return f"TCP {self.host}:{self.port}"

    def check(self) -> None:
        try:
            with socket.create_connection((self.host, self.port), timeout=min(2.0, self.timeout)):
                return
        except OSError as exc:
            raise NotReady(f"connect failed: {exc}") from exc


@dataclass
class ZooKeeperWait(WaitStrategy):
    """Ready when the ZooKeeper server at ``host:port`` answers ``imok`` to the four-letter command ``ruok``."""

    host: str = "127.0.0.1"
    port: int = 0

    def describe(self) -> str:
        return f"ZooKeeper 'ruok' -> 'imok' on {self.host}:{self.port}"

    def check(self) -> None:
        try:
            with socket.create_connection((self.host, self.port), timeout=min(2.0, self.timeout)) as sock:
                sock.sendall(b"ruok")
                answer = sock.recv(64)
        except OSError as exc:
            raise NotReady(f"ruok failed: {exc}") from exc
        if answer != b"imok":
            raise NotReady(f"ruok answered {answer!r}")


def http_get(url: str, timeout: float = 5.0, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """GET ``url``; return (status, body). Connection errors raise OSError."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=timeout) as response:
            return int(response.status), response.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode(errors="replace")


@dataclass
class HttpWait(WaitStrategy):
    """Ready when GET ``url`` answers 200 and ``accept(body)`` is true."""

    url: str = ""
    accept: Callable[[str], bool] = field(default=lambda body: True)
    headers: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        return f"HTTP 200 from {self.url}"

    def check(self) -> None:
        try:
            status, body = http_get(self.url, timeout=min(5.0, self.timeout), headers=self.headers)
        except OSError as exc:
            raise NotReady(f"GET {self.url}: {exc}") from exc
        if status != 200:
            raise NotReady(f"GET {self.url}: HTTP {status} {body[:200]}")
        if not self.accept(body):
            raise NotReady(f"GET {self.url}: unexpected body {body[:200]}")


def json_contains(item: str) -> Callable[[str], bool]:
    """A body check: the JSON body is a list (or a string) that contains ``item``."""

    def accept(body: str) -> bool:
        try:
            return item in json.loads(body)
        except ValueError:
            return False

    return accept


@dataclass
class AllOf(WaitStrategy):
    """Ready when each strategy passes, in order, within one shared timeout."""

    strategies: list[WaitStrategy] = field(default_factory=list)

    def describe(self) -> str:
        return " then ".join(s.describe() for s in self.strategies)

    def check(self) -> None:
        for strategy in self.strategies:
            strategy.check()
