"""The nemesis of a scenario: applies faults on a schedule, records them, and always undoes them.

A fault is a context manager (from :class:`~pytest_pulsar_ha.runtime.cluster.Cluster` or the environment). The schedule
is a list of (start, end) offsets in seconds; one thread enters each fault at its start and leaves it at its
end, writing ``fault_start`` / ``fault_end`` events. :meth:`Nemesis.stop` leaves every fault still in force,
whatever happened (Chaos Toolkit's rollbacks).

A fault a switch window is measured from is *pinned* when the provider's check grid is known
(:mod:`~pytest_pulsar_ha.scenario.tick_grid`): its start (or end) moves to the next moment half an interval
before a check (by less than one interval; a pinned start moves its end with it). A pinned end of a fault that
leaves the cluster recovering (a restart, a resumed freeze) is a *quiet* end: the cluster's client proxies are
closed, the fault undone, the cluster settled (its topics loaded again), and the proxies opened at the pinned
moment, which is the recorded end. Pulsar's recovery time then stays out of the provider's switch-back window;
how long it took is kept in :attr:`Nemesis.notes`, and the history records when the undo began (``undo_start``,
before the undo), so the switch back can also be reported from the real end (:mod:`pytest_pulsar_ha.checks.figures`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pytest_pulsar_ha.history import FAULT_END, FAULT_START, UNDO_START, Event, EventLog, now_ns
from pytest_pulsar_ha.scenario.tick_grid import TickGrid


@dataclass(frozen=True)
class ScheduledFault:
    index: int
    label: str  # e.g. "#0 outage cluster-a"
    cluster: str | None
    start_s: float
    end_s: float
    make: Callable[[], contextlib.AbstractContextManager[object]]
    pin_start: bool = False
    pin_end: bool = False
    quiet: Callable[[], contextlib.AbstractContextManager[object]] | None = None
    """for a quiet end: what keeps clients off the cluster while it recovers"""
    settle: Callable[[], None] | None = None
    """for a quiet end: returns once the recovered cluster serves the workload's topics"""
    end_at_undo: bool = False
    """a cold end: the recorded end is when the undo begins (the processes started again, resumed, the hang
    lifted), not once it returned (a restart waits for the cluster to be ready): clients meet it recovering"""


@dataclass
class FaultTimes:
    started_ns: int | None = None
    ended_ns: int | None = None


class Nemesis:
    def __init__(
        self,
        faults: list[ScheduledFault],
        log: EventLog,
        grid: Callable[[], TickGrid | None] = lambda: None,
    ) -> None:
        self.faults = faults
        self.log = log
        self.grid = grid
        self.notes: list[str] = []
        """what the schedule did beyond the YAML's offsets: pinned moments, quiet ends"""
        self.times = {f.index: FaultTimes() for f in faults}
        self.errors: list[str] = []
        self._open: dict[int, contextlib.ExitStack] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self, t0: float) -> None:
        self._thread = threading.Thread(target=self._run, args=(t0,), name="nemesis", daemon=True)
        self._thread.start()

    def moments(self, t0: float, grid: TickGrid | None) -> list[tuple[float, int, ScheduledFault]]:
        """(when, 1 for a start / 0 for an end, fault) in the order the nemesis acts, pins applied."""
        actions: list[tuple[float, int, ScheduledFault]] = []
        for fault in self.faults:
            start, end = t0 + fault.start_s, t0 + fault.end_s
            if grid is not None and fault.pin_start:
                pinned = grid.pin(start)
                start, end = pinned, end + (pinned - start)
            if grid is not None and fault.pin_end and fault.quiet is None:
                end = grid.pin(end)
            actions += [(start, 1, fault), (end, 0, fault)]
        return sorted(actions, key=lambda a: (a[0], a[1]))

    def _run(self, t0: float) -> None:
        grid = self.grid()
        if grid is not None and any(f.pin_start or f.pin_end for f in self.faults):
            self.notes.append(f"faults pinned half an interval before a provider check (every {grid.interval_s:g}s)")
        for when, is_start, fault in self.moments(t0, grid):
            if self._stop.wait(max(0.0, when - time.monotonic())):
                return
            if is_start:
                self._begin(fault)
            elif grid is not None and fault.pin_end and fault.quiet is not None:
                self._end_quietly(fault, grid)
            else:
                self._end(fault)

    def _end_quietly(self, fault: ScheduledFault, grid: TickGrid) -> None:
        quiet = fault.quiet
        if quiet is None:
            self._end(fault)
            return
        began = time.monotonic()
        try:
            with quiet():
                self._end(fault, quiet=True)
                if fault.settle is not None:
                    fault.settle()
                settled = time.monotonic()
                self._stop.wait(max(0.0, grid.pin(settled) - time.monotonic()))
        except Exception as exc:
            self.errors.append(f"{fault.label}: its quiet end failed: {exc}")
            return
        ts = now_ns()
        self.times[fault.index].ended_ns = ts
        self.log.add(Event(ts, FAULT_END, "nemesis", cluster=fault.cluster, detail=fault.label))
        self.notes.append(
            f"{fault.label}: clients kept off for {settled - began:.1f}s while the cluster recovered; "
            "the recorded end is when they could reach it again"
        )

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

    def _end(self, fault: ScheduledFault, *, quiet: bool = False) -> None:
        """Undo ``fault`` and record its ``fault_end``; a quiet end records its ``undo_start`` instead, and its
        caller (:meth:`_end_quietly`) the ``fault_end`` once the cluster settled."""
        with self._lock:
            stack = self._open.pop(fault.index, None)
        if stack is None:
            return
        undone = now_ns()
        if quiet:
            self.log.add(Event(undone, UNDO_START, "nemesis", cluster=fault.cluster, detail=fault.label))
        try:
            stack.close()
        except Exception as exc:
            self.errors.append(f"{fault.label} could not be undone: {exc}")
        if quiet:
            return
        ts = undone if fault.end_at_undo else now_ns()
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
