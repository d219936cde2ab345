"""Pinning a fault half an interval before a provider check: the grid's arithmetic and the nemesis' moments."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pulsar_ha_providers.periodic import PeriodicProvider
from pytest_pulsar_ha.nemesis.scheduler import Nemesis, ScheduledFault
from pytest_pulsar_ha.scenario.tick_grid import TickGrid

moments = st.floats(min_value=0, max_value=1e6, allow_nan=False)
origins = st.floats(min_value=-1e5, max_value=1e5, allow_nan=False)
intervals = st.floats(min_value=0.01, max_value=60, allow_nan=False)


@given(origins, intervals, moments)
def test_a_pinned_moment_is_half_an_interval_before_a_check_and_within_one_interval(
    origin: float, interval: float, t: float
) -> None:
    grid = TickGrid(origin, interval)
    pinned = grid.pin(t)
    assert t - 1e-6 <= pinned < t + interval + 1e-6
    assert grid.next_tick(pinned) - pinned == pytest.approx(interval / 2, abs=1e-6 * max(1.0, abs(pinned)))


@given(origins, intervals, moments)
def test_the_next_tick_is_on_the_grid_and_strictly_later(origin: float, interval: float, t: float) -> None:
    grid = TickGrid(origin, interval)
    tick = grid.next_tick(t)
    assert t < tick <= t + interval + 1e-6
    k = (tick - origin) / interval
    assert k == pytest.approx(round(k), abs=1e-6 * max(1.0, abs(k)))


def test_a_grid_needs_a_positive_interval() -> None:
    with pytest.raises(ValueError, match="positive interval"):
        TickGrid(0.0, 0.0)


def _fault(index: int, start: float, end: float, **pins: object) -> ScheduledFault:
    return ScheduledFault(index, f"#{index}", None, start, end, contextlib.nullcontext, **pins)  # type: ignore[arg-type]


def test_a_pinned_start_moves_its_end_by_as_much() -> None:
    grid = TickGrid(0.1, 0.5)
    nemesis = Nemesis([_fault(0, 6.0, 18.0, pin_start=True)], log=None)  # type: ignore[arg-type]
    (start, _, _), (end, _, _) = nemesis.moments(100.0, grid)
    assert start == pytest.approx(106.35)  # 100 + 6 = 106.0 -> the next moment I/2 before a check (106.6)
    assert end - start == pytest.approx(12.0)


def test_a_pinned_end_is_moved_a_quiet_one_is_left_to_the_fault_and_an_unpinned_one_stays() -> None:
    grid = TickGrid(0.0, 1.0)
    faults = [
        _fault(0, 1.0, 5.1, pin_end=True),
        _fault(1, 2.0, 6.1, pin_end=True, quiet=contextlib.nullcontext),
        _fault(2, 3.0, 7.1),
    ]
    ends = {f.index: when for when, is_start, f in Nemesis(faults, log=None).moments(0.0, grid) if not is_start}  # type: ignore[arg-type]
    assert ends == pytest.approx({0: 5.5, 1: 6.1, 2: 7.1})


def test_without_a_grid_nothing_moves() -> None:
    faults = [_fault(0, 1.03, 5.07, pin_start=True, pin_end=True)]
    assert [m for m, _, _ in Nemesis(faults, log=None).moments(10.0, None)] == pytest.approx([11.03, 15.07])  # type: ignore[arg-type]


class _Recorder(PeriodicProvider):
    interval = 0.05

    def __init__(self) -> None:
        super().__init__()
        self.ticks: list[float] = []
        self.done = threading.Event()

    def initial_service_info(self) -> None:
        return None

    def tick(self, scheduled_at: float | None = None) -> None:
        assert scheduled_at is not None
        self.ticks.append(scheduled_at)
        if len(self.ticks) == 2:
            time.sleep(0.12)  # an overrun: the moments it missed are skipped, the grid stays
        if len(self.ticks) >= 6:
            self.done.set()


def test_our_providers_tick_on_the_multiples_of_their_interval() -> None:
    provider = _Recorder()
    provider.initialize(lambda info: None)
    try:
        assert provider.done.wait(5)
    finally:
        provider.close()
    assert provider.tick_grid == (0.0, 0.05)
    for tick in provider.ticks:
        assert tick / 0.05 == pytest.approx(round(tick / 0.05), abs=1e-6)
    gaps = [round((b - a) / 0.05) for a, b in zip(provider.ticks, provider.ticks[1:], strict=False)]
    assert gaps[0] == 1 and gaps[1] >= 3 and all(g >= 1 for g in gaps)


def test_a_quiet_end_keeps_clients_off_until_the_cluster_settled_and_records_the_end_at_a_pinned_moment() -> None:
    from pytest_pulsar_ha.history import FAULT_END, FAULT_START, UNDO_START, EventLog

    steps: list[tuple[str, float]] = []
    undo_began: list[int] = []

    @contextlib.contextmanager
    def fault() -> Iterator[None]:
        steps.append(("applied", time.monotonic()))
        yield
        undo_began.append(time.time_ns())
        steps.append(("undone", time.monotonic()))

    @contextlib.contextmanager
    def clients_cut() -> Iterator[None]:
        steps.append(("cut", time.monotonic()))
        yield
        steps.append(("reopened", time.monotonic()))

    def settle() -> None:
        steps.append(("settled", time.monotonic()))

    grid = TickGrid(0.0, 0.2)
    log = EventLog()
    quiet = ScheduledFault(0, "#0 kill c", "c", 0.0, 0.05, fault, pin_end=True, quiet=clients_cut, settle=settle)
    nemesis = Nemesis([quiet], log, grid=lambda: grid)
    nemesis.start(time.monotonic())
    nemesis.wait(5)
    assert [name for name, _ in steps] == ["applied", "cut", "undone", "settled", "reopened"]
    (end,) = [e for e in log.snapshot() if e.type == FAULT_END]
    reopened = dict(steps)["reopened"]
    assert end.detail == "#0 kill c" and grid.pin(dict(steps)["settled"]) <= reopened + 1e-3
    assert abs((grid.next_tick(reopened) - reopened) - 0.1) < 0.02  # half an interval before a check
    assert any("clients kept off" in note for note in nemesis.notes)
    # the history says when the undo began (the real end), before the undo, named as the fault's start is
    kinds = [(e.type, e.detail, e.cluster) for e in log.snapshot()]
    assert kinds == [(t, "#0 kill c", "c") for t in (FAULT_START, UNDO_START, FAULT_END)]
    (undo,) = [e for e in log.snapshot() if e.type == UNDO_START]
    assert undo.ts_ns <= undo_began[0] and undo.ts_ns < end.ts_ns


def test_a_cold_end_is_recorded_when_the_undo_begins_not_once_it_returned() -> None:
    """A restart's undo returns once the cluster is ready: a cold end (clients meet it as it recovers) records
    the moment the processes were started again; any other end, the moment the undo returned."""
    from pytest_pulsar_ha.history import FAULT_END, EventLog

    undoing: list[int] = []

    @contextlib.contextmanager
    def slow_restart() -> Iterator[None]:
        yield
        undoing.append(time.time_ns())
        time.sleep(0.3)  # waits for the restarted cluster to be ready

    ends = []
    for cold in (True, False):
        log = EventLog()
        fault = ScheduledFault(0, "#0 kill c", "c", 0.0, 0.05, slow_restart, end_at_undo=cold)
        nemesis = Nemesis([fault], log)
        nemesis.start(time.monotonic())
        nemesis.wait(5)
        (end,) = [e for e in log.snapshot() if e.type == FAULT_END]
        ends.append(end.ts_ns - undoing[-1])
        assert [e.type for e in log.snapshot()] == ["fault_start", "fault_end"]  # no undo_start: not a quiet end
    cold_lag, returned_lag = ends
    assert cold_lag < 0.1e9 and returned_lag >= 0.3e9
