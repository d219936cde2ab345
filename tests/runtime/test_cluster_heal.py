"""A cluster heals through its capabilities (``Cluster.heal``): its clock back on the host's time, its processes
resumed and started; each capability heals itself, on stand-ins here (on real clusters: test_cluster_clock.py and
tests/nemesis/test_faults.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_pulsar_ha.runtime.clock import ClusterClock
from pytest_pulsar_ha.runtime.cluster import Processes


class Stand:
    def __init__(self, *, running: bool, paused: bool) -> None:
        self.running, self.stopped = running, paused
        self.calls: list[str] = []

    def kill(self) -> None: ...

    def pause(self) -> None: ...

    def log_tail(self, lines: int = 40) -> str:
        return ""

    def start(self) -> None:
        self.calls.append("start")
        self.running = True

    def resume(self) -> None:
        self.calls.append("resume")
        self.stopped = False

    def is_running(self) -> bool:
        return self.running

    def is_paused(self) -> bool:
        return self.stopped


def test_a_moved_clock_heals_back_to_the_hosts_time_and_an_unmoved_one_is_left_alone(tmp_path: Path) -> None:
    clock = ClusterClock(tmp_path / "cluster-a")
    clock.heal()
    assert not clock.file.exists(), "a clock no fault moved is not written"
    clock.set_offset(30)
    clock.heal()
    assert clock.offset_s() == 0.0


def test_processes_heal_by_resuming_what_is_paused_and_starting_what_is_not_running() -> None:
    for running, paused, calls in (
        (True, False, []),
        (True, True, ["resume"]),
        (False, False, ["start"]),
    ):
        stand = Stand(running=running, paused=paused)
        Processes(stand).heal()
        assert stand.calls == calls
