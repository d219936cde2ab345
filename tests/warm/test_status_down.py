"""``pulsar-ha status`` and ``down`` without clusters: nothing warm, a stale state (a keeper that is gone), a file
that is not a state, and several environments (``down`` then needs one named, or ``--all``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pulsar_ha.cli import main
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.warm.description import EnvironmentDescription
from pytest_pulsar_ha.warm.state import STATE_FILE, WarmState, WarmStore


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WarmStore:
    monkeypatch.setenv("PULSAR_HA_CACHE_DIR", str(tmp_path))
    return WarmStore(tmp_path)


def _stale(store: WarmStore, *names: str) -> str:
    description = EnvironmentDescription.of(HaSettings(clusters=tuple(ClusterSpec(n) for n in names)))
    store.write(WarmState(description, 2**22 + 7, 1, 0.0, "/nowhere"))  # no such pid
    return description.digest


def test_nothing_warm_is_said_so(store: WarmStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status"]) == 0
    assert "no warm environment (pulsar-ha up starts one)" in capsys.readouterr().out
    assert main(["down"]) == 0
    assert "no warm environment to stop" in capsys.readouterr().out


def test_a_stale_environment_is_shown_with_why_and_down_removes_it(
    store: WarmStore, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = _stale(store, "cluster-a", "cluster-b")
    assert main(["status", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["status"] == "stale" and "is not running (a reboot, or it was killed)" in entry["why"]
    main(["status"])
    out = capsys.readouterr().out
    assert f"{digest}  stale  pulsar 4.2.4, embedded, cluster-a:1,cluster-b:1, heap 512m" in out
    assert f"(pulsar-ha down {digest} removes it)" in out
    assert main(["down"]) == 0
    assert store.digests() == []


def test_a_file_that_is_not_a_state_is_stale_with_the_reason_and_reap_removes_it(
    store: WarmStore, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = store.directory("0123456789abcdef")
    folder.mkdir(parents=True)
    (folder / STATE_FILE).write_text("{not json")
    main(["status"])
    assert "0123456789abcdef  stale" in capsys.readouterr().out
    assert main(["reap"]) == 0
    assert "removed the stale warm environment 0123456789abcdef (its keeper is gone)" in capsys.readouterr().out
    assert store.digests() == []


def test_down_with_several_needs_one_named_or_all(store: WarmStore, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _stale(store, "cluster-a"), _stale(store, "east", "west")
    assert main(["down"]) == 2
    assert f"2 warm environments ({', '.join(sorted([first, second]))}): name one, or --all" in capsys.readouterr().err
    assert main(["down", "ffffffffffffffff"]) == 2
    assert "no warm environment 'ffffffffffffffff'; pulsar-ha status lists them" in capsys.readouterr().err
    assert main(["down", first]) == 0 and store.digests() == [second]
    assert main(["down", "--all"]) == 0 and store.digests() == []


def test_a_session_of_other_settings_never_finds_a_running_environment_of_different_ones(store: WarmStore) -> None:
    """What --pulsar-ha-reuse asks before it attaches: only an environment of its own description is one to use.
    The running one here is of two standalones (its keeper: this process, alive); another version, another broker
    count, auth or broker setting finds none, and would start one of its own."""
    import dataclasses
    import os

    from pytest_pulsar_ha.process.pid_registry import process_start_ticks
    from pytest_pulsar_ha.warm.up import running

    settings = HaSettings(clusters=(ClusterSpec("cluster-a"), ClusterSpec("cluster-b")), cache_dir=store.root.parent)
    description = EnvironmentDescription.of(settings)
    store.write(WarmState(description, os.getpid(), process_start_ticks(os.getpid()) or 0, 0.0, "/w"))
    said: list[str] = []
    found = running(settings, said.append)
    assert isinstance(found, WarmState) and found.digest == description.digest
    for other in (
        dataclasses.replace(settings, pulsar_version="4.0.8"),
        dataclasses.replace(settings, clusters=(ClusterSpec("cluster-a", brokers=2), ClusterSpec("cluster-b"))),
        dataclasses.replace(settings, clusters=(ClusterSpec("cluster-a", auth="token"), ClusterSpec("cluster-b"))),
        dataclasses.replace(
            settings, clusters=(ClusterSpec("cluster-a", broker_settings={"a": "b"}), ClusterSpec("cluster-b"))
        ),
    ):
        assert running(other, said.append) is None
    assert running(settings, said.append, instance="gw0") is None  # another xdist worker's share
    assert said == [] and store.digests() == [description.digest]  # nothing removed on the way
