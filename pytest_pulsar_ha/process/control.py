"""The process-control protocol (:class:`Controls`: kill, start, pause, resume, is_running, is_paused, log_tail) and
the one base that implements it for everything that is not itself a process (:class:`Controlled`).

A process (:class:`~pytest_pulsar_ha.process.processes.ManagedProcess`, a container) does the verbs; a service, a
node, a broker or a cluster handle has processes and forwards each verb to them, through :class:`Controlled`: each
verb is written once, there. What differs between them is which processes they have (:meth:`Controlled.processes`)
and how they come up (:meth:`Controlled._start_ready`: a readiness wait, an ordered start). A class that answers the
verbs in another way (over the warm keeper's socket, by refusing) derives its answers from :data:`VERBS`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol


class Controls(Protocol):
    """What a fault can do to a process, a broker or a whole cluster, and what the harness asks of it."""

    def kill(self) -> None:
        """SIGKILL (a crash) to every process; data is kept for :meth:`start`."""

    def start(self) -> None:
        """Start it again (same ports and data) and return once it is ready."""

    def pause(self) -> None:
        """SIGSTOP to every process: connections stay open, nothing answers."""

    def resume(self) -> None:
        """SIGCONT to every process a pause stopped."""

    def is_running(self) -> bool:
        """Every process runs."""

    def is_paused(self) -> bool:
        """Some process is paused."""

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the log (of each process, under its name, where there are several)."""


def protocol_members(protocol: type) -> tuple[str, ...]:
    """The methods a protocol class declares, in their order (its own, not its bases')."""
    return tuple(name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_"))


VERBS: tuple[str, ...] = protocol_members(Controls)
"""The verbs of :class:`Controls`: what the warm keeper's socket accepts, what a refusing node refuses."""


class Controlled:
    """:class:`Controls` over :meth:`processes` (by default the one ``process``): the verbs, written once.

    Kill and pause go to the processes last to first (the brokers before what they stand on), resume and start
    first to last; a composite is running when every process runs and paused when any is."""

    process: Controls

    def processes(self) -> Sequence[Controls]:
        """The processes in start order."""
        return [self.process]

    def _start_ready(self) -> None:
        """Start the processes and return once they are ready (a class with a readiness wait or an order of its own
        replaces this)."""
        for process in self.processes():
            process.start()

    def kill(self) -> None:
        """SIGKILL (a crash) to every process; data is kept for :meth:`start`."""
        for process in reversed(self.processes()):
            process.kill()

    def start(self) -> None:
        """Start it again (same ports and data) and return once it is ready."""
        self._start_ready()

    def pause(self) -> None:
        """SIGSTOP to every process: connections stay open, nothing answers."""
        for process in reversed(self.processes()):
            process.pause()

    def resume(self) -> None:
        """SIGCONT to every process a pause stopped."""
        for process in self.processes():
            process.resume()

    def is_running(self) -> bool:
        """Every process runs."""
        return all(process.is_running() for process in self.processes())

    def is_paused(self) -> bool:
        """Some process is paused."""
        return any(process.is_paused() for process in self.processes())

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the log (of each process, under its name, where there are several)."""
        processes = self.processes()
        if len(processes) == 1:
            return processes[0].log_tail(lines)
        return "\n".join(f"--- {getattr(p, 'name', '')}\n{p.log_tail(lines)}" for p in processes)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Paused for the block, resumed after it."""
        self.pause()
        try:
            yield
        finally:
            self.resume()

    @contextmanager
    def killed(self) -> Iterator[None]:
        """Killed for the block, started again after it."""
        self.kill()
        try:
            yield
        finally:
            self.start()
