"""The nemesis of a scenario: applies faults on a schedule, records them, and always undoes them.

A fault is a context manager (from :class:`~pytest_pulsar_ha.runtime.cluster.Cluster` or the environment). The schedule
is a list of (start, end) offsets in seconds; one thread enters each fault at its start and leaves it at its
end, writing ``fault_start`` / ``fault_end`` events. :meth:`Nemesis.stop` leaves every fault still in force,
whatever happened (Chaos Toolkit's rollbacks).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pytest_pulsar_ha.history import FAULT_END, FAULT_START, Event, EventLog, now_ns


@dataclass(frozen=True)
class ScheduledFault:
    index: int
    label: str  # e.g. "#0 outage cluster-a"
    cluster: str | None
    start_s: float
    end_s: float
    make: Callable[[], contextlib.AbstractContextManager[object]]


@dataclass
class FaultTimes:
    started_ns: int | None = None
    ended_ns: int | None = None


class Nemesis:
    def __init__(self, faults: list[ScheduledFault], log: EventLog) -> None:
        self.faults = faults
        self.log = log
        self.times = {f.index: FaultTimes() for f in faults}
        self.errors: list[str] = []
        self._open: dict[int, contextlib.ExitStack] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self, t0: float) -> None:
        self._thread = threading.Thread(target=self._run, args=(t0,), name="nemesis", daemon=True)
        self._thread.start()

    def _run(self, t0: float) -> None:
        actions = sorted(
            [(f.start_s, 1, f) for f in self.faults] + [(f.end_s, 0, f) for f in self.faults],
            key=lambda a: (a[0], a[1]),
        )
        for offset, is_start, fault in actions:
            if self._stop.wait(max(0.0, t0 + offset - time.monotonic())):
                return
            if is_start:
                self._begin(fault)
            else:
                self._end(fault)

    def _begin(self, fault: ScheduledFault) -> None:
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(fault.make())
        except Exception as exc:
            self.errors.append(f"{fault.label} could not be applied: {exc}")
            return
        with self._lock:
            self._open[fault.index] = stack
        ts = now_ns()
        self.times[fault.index].started_ns = ts
        self.log.add(Event(ts, FAULT_START, "nemesis", cluster=fault.cluster, detail=fault.label))

    def _end(self, fault: ScheduledFault) -> None:
        with self._lock:
            stack = self._open.pop(fault.index, None)
        if stack is None:
            return
        try:
            stack.close()
        except Exception as exc:
            self.errors.append(f"{fault.label} could not be undone: {exc}")
        ts = now_ns()
        self.times[fault.index].ended_ns = ts
        self.log.add(Event(ts, FAULT_END, "nemesis", cluster=fault.cluster, detail=fault.label))

    def wait(self, timeout: float) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self) -> None:
        """Stop the schedule and undo every fault still in force."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=120)
        with self._lock:
            still_open = sorted(self._open)
        by_index = {f.index: f for f in self.faults}
        for index in still_open:
            self._end(by_index[index])
