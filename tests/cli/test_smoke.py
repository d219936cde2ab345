"""``pulsar-ha smoke`` on real processes: one cluster of two brokers (ZooKeeper, bookie, brokers), the workload
driver's sends acknowledged by that cluster and received, everything stopped at the end."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.real_clusters
def test_smoke_on_a_two_broker_cluster_lists_its_brokers_and_passes() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest_pulsar_ha", "smoke", "--clusters", "1", "--brokers", "2"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "brokers=2" in out
    assert out.count("    broker ") == 2, out
    assert "sends acknowledged (by cluster-a), 0 lost" in out
    assert "PASS" in out


def test_smoke_refuses_a_bad_broker_count_before_starting_anything() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest_pulsar_ha", "smoke", "--brokers", "zero"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "--brokers='zero' is not a broker count" in run.stdout + run.stderr
    assert "started" not in run.stdout
