"""A plain ``pip install`` of the built wheel is enough: the wheel is built from this checkout, installed into a
fresh virtual environment outside it, and ``pulsar-ha provision`` is run from another folder. It exits 0 and builds
the Java client driver from the sources the wheel ships (pytest_pulsar_ha/drivers/java), without mvn. Then a
scenario written in that folder, as another repository would keep one, runs the Java client on two real clusters
with that venv's pytest (the plugin comes in through its entry point).

A few minutes (the environment's dependencies install from pip's cache; the runtime and toxiproxy come from the
shared cache when ``make setup`` has run): mark ``wheel``, run by ``make wheel``, not by ``make test``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_pulsar_ha.provisioning.java_driver import JAVA_FILES

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.wheel


def _run(command: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    output = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{output}"
    return done.stdout + done.stderr


def test_a_pip_installed_wheel_provisions_from_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)], tmp_path, 600)
    (wheel,) = dist.glob("pytest_pulsar_ha-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, 300)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], tmp_path, 900)
    elsewhere = tmp_path / "another-repository"
    elsewhere.mkdir()
    installed = _run(
        [str(venv / "bin" / "python"), "-c", "import pytest_pulsar_ha; print(pytest_pulsar_ha.__file__)"],
        elsewhere,
        60,
    )
    package = Path(installed.strip().splitlines()[-1]).parent
    assert ROOT not in package.parents, package  # the installed copy, not this checkout
    assert sorted(p.name for p in (package / "drivers" / "java" / JAVA_FILES).rglob("*.java"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = _run([str(venv / "bin" / "pulsar-ha"), "provision"], elsewhere, 1800, env)
    assert "Java client driver (pulsar-client 4.2.4): " in out
    assert "not at" not in out  # the driver's sources were found in the installed package
    (elsewhere / "java_client.pulsar-ha.yaml").write_text(JAVA_CLIENT_SCENARIO)
    ran = _run(
        [str(venv / "bin" / "python"), "-m", "pytest", "java_client.pulsar-ha.yaml", "-p", "no:cacheprovider"],
        elsewhere,
        1200,
        env,
    )
    assert "passed       java-client-from-the-wheel" in ran and "1 passed" in ran, ran[-3000:]


JAVA_CLIENT_SCENARIO = """\
scenarios:
  - name: java-client-from-the-wheel
    description: The Java client driver, built by a plain pip install's provision, sends and receives on cluster-a.
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: none, primary: cluster-a}
    client: {kind: java}
    workload: {rate: 20/s, duration: 8s}
    expect:
      - no_loss: true
      - ordering: {per: producer}
"""
