"""The fixtures from another repo's test directory, and cleanup after a run killed with SIGKILL (real clusters)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from pytest_pulsar_ha.history import PARTIAL_HISTORY, read_events_jsonl
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.settings import HaSettings
from spark_checks import check_history

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


KILLED_SCENARIO = """\
scenarios:
  - name: killed-mid-run
    description: A long workload on one cluster; the test kills the whole pytest run while it goes.
    topology:
      clusters: [cluster-a]
    workload:
      topics: [{name: journal}]
      rate: 20/s
      duration: 600s
    expect:
      - no_loss: true
"""


def _journal_with_acks(path: Path, acks: int, timeout: float) -> None:
    """Wait until the scenario's journal holds ``acks`` acknowledged sends and a receive."""
    deadline = time.monotonic() + timeout
    while True:
        text = path.read_text() if path.exists() else ""
        if text.count('"type":"ack"') >= acks and '"type":"receive"' in text:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{path}: fewer than {acks} acks and a receive after {timeout}s:\n{text[-2000:]}")
        time.sleep(0.5)


def test_a_run_killed_with_sigkill_leaves_its_history_and_is_cleaned_up_by_the_next_run(
    pytester: pytest.Pytester, cache_args: list[str], pulsar_ha_settings: HaSettings, pulsar_ha_spark: object
) -> None:
    evidence = pytester.path / "evidence"
    (pytester.path / "hold.pulsar-ha.yaml").write_text(KILLED_SCENARIO)
    victim = pytester.popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--pulsar-ha-clusters=1",
            f"--pulsar-ha-evidence-dir={evidence}",
            *cache_args,
            "hold.pulsar-ha.yaml",
        ],
        stdout=open(pytester.path / "victim.out", "wb"),  # noqa: SIM115 - closed with the process
        stderr=open(pytester.path / "victim.err", "wb"),  # noqa: SIM115
    )
    registry = PidRegistry(pulsar_ha_settings.cache_dir / "run")
    journal = evidence / "killed-mid-run" / PARTIAL_HISTORY
    try:
        _journal_with_acks(journal, 40, 300)
        records = [r for r in registry.records() if r.owner_pid == victim.pid]
        assert {r.name for r in records} == {"toxiproxy", "pulsar cluster-a"}
        members = [pid for r in records for pid in r.members()]
        assert members
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        time.sleep(1)
        assert [pid for r in records for pid in r.members()] == members, "orphans must survive the kill"

        # the killed run's history, up to the kill, is what the checker reads (no final history was written)
        assert not (journal.parent / "history.jsonl").exists()
        events = read_events_jsonl(journal)
        assert sum(e.type == "ack" for e in events) >= 40
        report = check_history(pulsar_ha_spark, journal)
        assert report.events == len(events)
        assert {v.name for v in report.verdicts} >= {"lost", "duplicates", "ordering"}

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
