"""A run killed with SIGKILL while its multi-broker cluster comes up leaves every process to the next run."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from pytest_pulsar_ha.process.pid_registry import PidRecord, PidRegistry
from pytest_pulsar_ha.settings import HaSettings

pytestmark = pytest.mark.real_clusters

SERVICES = {"toxiproxy", "zookeeper cluster-a", "bookie cluster-a", "broker cluster-a/0", "broker cluster-a/1"}


def _records_of(registry: PidRegistry, owner: int) -> list[PidRecord]:
    return [r for r in registry.records() if r.owner_pid == owner]


def test_every_process_of_a_killed_multi_broker_run_is_reaped_by_the_next_run(
    pytester: pytest.Pytester, pulsar_ha_settings: HaSettings
) -> None:
    cache_args = ["--pulsar-ha-cache-dir", str(pulsar_ha_settings.cache_dir)]
    pytester.makepyfile(test_hold="def test_hold(pulsar_ha):\n    import time\n    time.sleep(900)\n")
    victim = pytester.popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--pulsar-ha-clusters=1",
            "--pulsar-ha-brokers=2",
            *cache_args,
            "test_hold.py",
        ],
        stdout=open(pytester.path / "victim.out", "w"),  # noqa: SIM115 - closed with the process
        stderr=open(pytester.path / "victim.err", "w"),  # noqa: SIM115
    )
    registry = PidRegistry(pulsar_ha_settings.cache_dir / "run")
    try:
        deadline = time.monotonic() + 400
        # The last broker starts only once ZooKeeper, the bookie and broker 0 are ready: kill the run then,
        # in the middle of bring-up, with every kind of process alive.
        while {r.name for r in _records_of(registry, victim.pid)} != SERVICES:
            if time.monotonic() > deadline or victim.poll() is not None:
                raise AssertionError(
                    f"the victim run did not start {sorted(SERVICES)}; it has "
                    f"{sorted(r.name for r in _records_of(registry, victim.pid))}; "
                    f"stderr: {(pytester.path / 'victim.err').read_text()[-2000:]}"
                )
            time.sleep(0.5)
        records = _records_of(registry, victim.pid)
        # Each group's leader is the process itself (bin/pulsar execs java); helpers of a starting script come
        # and go, so compare the leaders, not every member.
        leaders = {r.name for r in records if r.pgid in r.members()}
        assert leaders == SERVICES
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        time.sleep(1)
        assert {r.name for r in records if r.pgid in r.members()} == SERVICES, "orphans must survive the kill"

        pytester.makepyfile(test_next="def test_next(pulsar_ha):\n    assert pulsar_ha.clusters\n")
        result = pytester.runpytest_subprocess("--pulsar-ha-clusters=1", *cache_args, "test_next.py", timeout=400)
        result.assert_outcomes(passed=1)
        for name in SERVICES:
            assert f"reaped leftover {name} (pgid" in result.stderr.str()
        assert [pid for r in records for pid in r.members()] == []
        assert _records_of(registry, victim.pid) == []
    finally:
        if victim.poll() is None:
            victim.kill()
        for record in _records_of(registry, victim.pid):
            for pid in record.members():
                os.kill(pid, signal.SIGKILL)
