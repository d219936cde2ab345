"""The fixtures from another repo's test directory, and cleanup after a run killed with SIGKILL (real clusters)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from pytest_pulsar_ha.pid_registry import PidRegistry
from pytest_pulsar_ha.settings import HaSettings

pytestmark = pytest.mark.real_clusters


@pytest.fixture
def cache_args(pulsar_ha_settings: HaSettings) -> list[str]:
    # pytester gives the inner run its own HOME: point it at the provisioned cache explicitly.
    return ["--pulsar-ha-cache-dir", str(pulsar_ha_settings.cache_dir)]


def test_fixtures_work_from_a_separate_test_directory(pytester: pytest.Pytester, cache_args: list[str]) -> None:
    pytester.makepyfile(
        test_other_repo="""
        import pulsar

        def test_produce_on_one_consume_on_the_other(pulsar_ha, geo_namespace):
            assert list(pulsar_ha.clusters) == ["east", "west"]
            east, west = pulsar_ha.clusters["east"], pulsar_ha.clusters["west"]
            assert east.service_url.startswith("pulsar://") and west.admin_url.startswith("http://")
            topic = f"persistent://{geo_namespace}/reuse"
            c_east = pulsar.Client(east.service_url, **pulsar_ha.client_options)
            c_west = pulsar.Client(west.service_url, **pulsar_ha.client_options)
            try:
                consumer = c_west.subscribe(topic, "s", initial_position=pulsar.InitialPosition.Earliest)
                c_east.create_producer(topic).send(b"across")
                assert consumer.receive(timeout_millis=60000).data() == b"across"
            finally:
                c_east.close()
                c_west.close()

        def test_same_environment_is_reused(pulsar_ha, geo_namespace):
            assert geo_namespace.startswith("pulsar-ha/")
        """
    )
    result = pytester.runpytest_subprocess("--pulsar-ha-clusters=east,west", *cache_args, timeout=400)
    result.assert_outcomes(passed=2)
    assert result.stdout.str().count("pulsar-ha: backend=embedded clusters=east,west") == 1
    assert result.stderr.str().count("[pulsar-ha] starting east, west (brokers=1)") == 1


def _wait_for(path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear within {timeout}s")
        time.sleep(0.5)


def test_a_run_killed_with_sigkill_is_cleaned_up_by_the_next_run(
    pytester: pytest.Pytester, cache_args: list[str], pulsar_ha_settings: HaSettings
) -> None:
    ready = pytester.path / "ready"
    pytester.makepyfile(
        test_hold=f"""
        import os, time
        from pathlib import Path

        def test_hold(pulsar_ha):
            Path({str(ready)!r}).write_text(str(os.getpid()))
            time.sleep(900)
        """
    )
    victim = pytester.popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--pulsar-ha-clusters=1",
            *cache_args,
            "test_hold.py",
        ],
        stdout=open(pytester.path / "victim.out", "wb"),  # noqa: SIM115 - closed with the process
        stderr=open(pytester.path / "victim.err", "wb"),  # noqa: SIM115
    )
    registry = PidRegistry(pulsar_ha_settings.cache_dir / "run")
    try:
        _wait_for(ready, 300)
        records = [r for r in registry.records() if r.owner_pid == victim.pid]
        assert {r.name for r in records} == {"toxiproxy", "pulsar cluster-a"}
        members = [pid for r in records for pid in r.members()]
        assert members
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        time.sleep(1)
        assert [pid for r in records for pid in r.members()] == members, "orphans must survive the kill"

        pytester.makepyfile(test_next="def test_next(pulsar_ha):\n    assert pulsar_ha.clusters\n")
        result = pytester.runpytest_subprocess("--pulsar-ha-clusters=1", *cache_args, "test_next.py", timeout=400)
        result.assert_outcomes(passed=1)
        for name in ("pulsar cluster-a", "toxiproxy"):
            assert f"reaped leftover {name} (pgid" in result.stderr.str()
        assert [pid for r in records for pid in r.members()] == []
    finally:
        if victim.poll() is None:
            victim.kill()
        for record in registry.records():
            if record.owner_pid == victim.pid:
                for pid in record.members():
                    os.kill(pid, signal.SIGKILL)
