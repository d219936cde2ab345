"""The ``pulsar-ha`` command runs as a module too, the way tests and scripts start it."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["pytest_pulsar_ha.cli", "pytest_pulsar_ha"])
@pytest.mark.parametrize("command", ["migrate", "metadata-sync", "nightly", "smoke"])
def test_python_dash_m_runs_every_subcommand(module: str, command: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, command, "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert command in done.stdout
