"""The runtime's own contract tests, the kill and pause faults, a moved cluster clock (libfaketime in the image)
and a shipped failover scenario, run again with
``--pulsar-ha-backend docker``: the same test functions and scenario file, in a pytest process of its own (the
backend is a session option), on one 2-cluster environment of containers.

The embedded backend runs the same selection in the main session; this is the docker row of that matrix.
"""

from __future__ import annotations

import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_pulsar_ha.settings import HaSettings

pytestmark = [pytest.mark.docker, pytest.mark.real_clusters]

ROOT = Path(__file__).resolve().parents[3]
SELECTION = [
    "tests/runtime/test_geo_replication.py",
    "tests/nemesis/test_faults.py::test_kill_and_start_keep_acknowledged_data",
    "tests/nemesis/test_faults.py::test_pause_freezes_the_cluster_and_resume_recovers",
    "tests/runtime/test_cluster_clock.py::test_a_moved_clock_shows_in_the_brokers_answers_and_leaves_their_timeouts_alone",
    "scenarios/primary-outage.pulsar-ha.yaml",
]
ONLY_BASE_CASES = "not primary-outage["
"""the scenario's base case (auto failover on an outage of the primary and back), not its variants"""
EXPECTED = 5 + 2 + 1 + 1


def test_contract_tests_faults_and_a_failover_scenario_pass_on_containers(
    tmp_path: Path, pulsar_image: str, pulsar_ha_settings: HaSettings
) -> None:
    junit = tmp_path / "docker-backend.xml"
    command = [
        sys.executable,
        "-m",
        "pytest",
        *SELECTION,
        "-k",
        ONLY_BASE_CASES,
        "--pulsar-ha-backend=docker",
        f"--pulsar-ha-image={pulsar_image}",
        "--pulsar-ha-clusters=2",
        f"--pulsar-ha-cache-dir={pulsar_ha_settings.cache_dir}",
        f"--pulsar-ha-evidence-dir={tmp_path / 'evidence'}",
        f"--junitxml={junit}",
        "-p",
        "no:cacheprovider",
        "--tb=short",
        "--durations=0",
    ]
    began = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    took = time.monotonic() - began
    output = result.stdout[-6000:] + result.stderr[-3000:]
    print(f"docker backend run: {took:.0f}s\n{result.stdout[-4000:]}")
    assert result.returncode == 0, output
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None, output
    counts = {key: int(suite.get(key, "0")) for key in ("tests", "failures", "errors", "skipped")}
    assert counts["failures"] == counts["errors"] == counts["skipped"] == 0, (counts, output)
    assert counts["tests"] == EXPECTED, (counts, output)  # every selected test ran (none lost)
    assert "backend=docker" in result.stdout and f"image={pulsar_image}" in result.stdout
    assert "passed       primary-outage" in result.stdout
