"""Locked artifacts without Maven: the lock format, the committed locks, and fetching from a repository (here a
``file://`` one made in the test, with the layout of a Maven repository): in parallel, sha1- and size-checked, kept in
the cache's store and not fetched twice; a runtime laid out from a lock with no ``mvn`` anywhere."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning import maven_fetch, maven_lock, pulsar_assembly
from pytest_pulsar_ha.provisioning.lockgen import parse_resolved
from pytest_pulsar_ha.provisioning.maven_lock import (
    Coordinate,
    LockEntry,
    format_lock,
    parse_lock,
    read_lock,
    settings_mirror,
)
from pytest_pulsar_ha.provisioning.pulsar_distribution import ensure_pulsar


def test_coordinates_name_their_repository_path_and_their_lib_name() -> None:
    plain = Coordinate.parse("com.google.guava:guava:33.4.0-jre")
    assert plain.path == "com/google/guava/guava/33.4.0-jre/guava-33.4.0-jre.jar"
    assert plain.lib_name == "com.google.guava.guava-33.4.0-jre.jar"  # mvn copy-dependencies -Dmdep.prependGroupId
    native = Coordinate.parse("io.netty:netty-transport-native-epoll:4.1.136.Final:linux-x86_64")
    assert native.file_name == "netty-transport-native-epoll-4.1.136.Final-linux-x86_64.jar"
    tarball = Coordinate.parse("org.apache.pulsar:pulsar-server-distribution:4.0.8:bin@tar.gz")
    assert tarball.path.endswith("4.0.8/pulsar-server-distribution-4.0.8-bin.tar.gz")
    for text in ("com.google.guava:guava:33.4.0-jre", str(native), str(tarball)):
        assert str(Coordinate.parse(text)) == text
    with pytest.raises(ValueError, match="not group:artifact:version"):
        Coordinate.parse("guava:33.4.0")


def test_a_lock_reads_back_what_was_written_and_bad_lines_are_named() -> None:
    entries = [
        LockEntry(Coordinate("b", "x", "1"), "a" * 40, 3),
        LockEntry(Coordinate("a", "y", "2", "c"), "b" * 40, 5),
    ]
    text = format_lock(entries, "two jars\nsecond line")
    assert text.startswith("# two jars\n# second line\na:y:2:c ")
    assert parse_lock(text) == sorted(entries, key=lambda e: e.coordinate)
    with pytest.raises(ProvisioningError, match="line 2: expected"):
        parse_lock("# header\na:b:1 nothex 3\n", "x.lock")
    with pytest.raises(ProvisioningError, match=r"listed twice: a\.b-1\.jar"):
        parse_lock(f"a:b:1 {'a' * 40} 1\na:b:1 {'b' * 40} 2\n")


@pytest.mark.parametrize("version", ["4.2.4"])
def test_the_committed_runtime_lock_is_the_mvn_assembly(version: str) -> None:
    """The lock of 4.2.4 was written from what the Maven assembly resolved (327 jars; 0 sha1 differences against
    the lib/ Maven assembled, when the lock was written)."""
    entries = read_lock("pulsar", version)
    assert entries is not None
    coordinates = {str(e.coordinate) for e in entries}
    assert f"org.apache.pulsar:pulsar-broker:{version}" in coordinates
    assert len(entries) == 327 and 240e6 < sum(e.size for e in entries) < 270e6
    kinds = [(e.coordinate.group, e.coordinate.artifact, e.coordinate.classifier) for e in entries]
    assert len(set(kinds)) == len(kinds)  # one version of each library (the BOM's), never a mix


@pytest.mark.parametrize("version", ["4.0.8", "4.2.4"])
def test_each_locked_client_version_has_the_drivers_classpath(version: str) -> None:
    entries = read_lock("java-driver", version)
    assert entries is not None
    names = {(e.coordinate.group, e.coordinate.artifact): e.coordinate.version for e in entries}
    assert names[("org.apache.pulsar", "pulsar-client")] == version
    assert ("org.slf4j", "slf4j-simple") in names and ("com.fasterxml.jackson.core", "jackson-databind") in names


def test_the_repository_is_the_env_then_a_settings_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = tmp_path / ".m2" / "settings.xml"
    settings.parent.mkdir()
    settings.write_text(
        "<settings><mirrors>"
        "<mirror><id>x</id><mirrorOf>other</mirrorOf><url>https://other.example/</url></mirror>"
        "<mirror><id>m</id><mirrorOf>central</mirrorOf><url>https://mirror.example/maven2/</url></mirror>"
        "</mirrors></settings>"
    )
    assert settings_mirror(settings) == "https://mirror.example/maven2/"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(maven_lock.REPOSITORY_ENV, raising=False)
    assert maven_lock.repository_url() == "https://mirror.example/maven2"
    monkeypatch.setenv(maven_lock.REPOSITORY_ENV, "file:///srv/repo/")
    assert maven_lock.repository_url() == "file:///srv/repo"
    settings.unlink()
    monkeypatch.delenv(maven_lock.REPOSITORY_ENV)
    assert maven_lock.repository_url().startswith("https://")  # Maven Central, as jgo defines it


def _publish(repo: Path, coordinate: Coordinate, data: bytes) -> LockEntry:
    path = repo / coordinate.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return LockEntry(coordinate, hashlib.sha1(data).hexdigest(), len(data))


def _repository(tmp_path: Path, count: int) -> tuple[str, list[LockEntry]]:
    repo = tmp_path / "repo"
    entries = [_publish(repo, Coordinate(f"org.g{i % 3}", f"a{i}", "1.0"), os.urandom(1000 + i)) for i in range(count)]
    return repo.as_uri(), entries


def test_locked_files_are_fetched_checked_and_kept(tmp_path: Path) -> None:
    base, entries = _repository(tmp_path, 30)
    said: list[str] = []
    paths = maven_fetch.fetch_locked(entries, tmp_path / "cache", said.append, "test", base=base, interval=0)
    assert all(paths[e].read_bytes() == (tmp_path / "repo" / e.coordinate.path).read_bytes() for e in entries)
    assert said[-1].startswith("test: 30 files (0 MB) in ") and said[-1].endswith("sha1 checked")
    assert any("/30 files" in line for line in said[1:-1])  # progress while it ran
    said.clear()
    assert maven_fetch.fetch_locked(entries, tmp_path / "cache", said.append, "test", base="file:///gone") == paths
    assert said == []  # all in the store: nothing fetched, nothing said


def test_a_file_that_differs_from_the_lock_or_is_missing_is_refused(tmp_path: Path) -> None:
    base, entries = _repository(tmp_path, 3)
    wrong = LockEntry(entries[0].coordinate, "0" * 40, entries[0].size)
    missing = LockEntry(Coordinate("org.g", "absent", "1"), "1" * 40, 1)
    with pytest.raises(ProvisioningError) as failed:
        maven_fetch.fetch_locked([wrong, missing, *entries[1:]], tmp_path / "cache", lambda _: None, "t", base=base)
    message = str(failed.value)
    assert "2 of 4 files could not be had" in message
    assert f"{wrong.coordinate} from {base}" in message and "does not match the lock" in message
    assert "org.g:absent:1 is not served" in message
    store = maven_fetch.store_dir(tmp_path / "cache")
    assert not (store / wrong.coordinate.path).exists()  # nothing unchecked kept
    assert not list(store.rglob("*.part"))


def test_a_locked_runtime_is_laid_out_without_maven(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base, entries = _repository(tmp_path, 5)
    broker = _publish(tmp_path / "repo", Coordinate("org.apache.pulsar", "pulsar-broker", "9.9.9"), b"broker")
    locks = tmp_path / "locks"
    locks.mkdir()
    (locks / "pulsar-9.9.9.lock").write_text(format_lock([*entries, broker], "test"))
    monkeypatch.setattr(maven_lock, "LOCKS", locks)
    monkeypatch.setenv(maven_lock.REPOSITORY_ENV, base)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no mvn (nor anything else) on PATH
    monkeypatch.delenv("PULSAR_HA_PULSAR_HOME", raising=False)
    monkeypatch.setattr("pytest_pulsar_ha.provisioning.pulsar_distribution.find_java", lambda *a: Path("/j/bin/java"))
    dist = ensure_pulsar("9.9.9", tmp_path / "cache", lambda _: None)
    assert dist.origin == "assembled" and dist.label == "9.9.9 (assembled from Maven artifacts)"
    lib = sorted(p.name for p in (dist.home / "lib").iterdir())
    assert lib == sorted(e.coordinate.lib_name for e in [*entries, broker])
    assert (dist.home / "lib" / "org.apache.pulsar.pulsar-broker-9.9.9.jar").read_bytes() == b"broker"
    assert sorted(p.name for p in (dist.home / "conf").iterdir()) == sorted(pulsar_assembly.CONF_FILES)
    marker = json.loads((dist.home / pulsar_assembly.MARKER).read_text())
    assert marker["jars"] == 6 and len(marker["lock"]) == 16
    again = ensure_pulsar("9.9.9", tmp_path / "cache", lambda _: None)
    assert (
        again.home == dist.home
        and (dist.home / pulsar_assembly.MARKER).read_text() == json.dumps(marker, indent=2) + "\n"
    )
    (locks / "pulsar-9.9.9.lock").write_text(format_lock([*entries[1:], broker], "written again"))
    said: list[str] = []
    relaid = ensure_pulsar("9.9.9", tmp_path / "cache", said.append)  # the lock changed: laid out again from it
    assert relaid.home == dist.home and any("from its lock (5 jars" in line for line in said)
    assert sorted(p.name for p in (dist.home / "lib").iterdir()) == sorted(
        e.coordinate.lib_name for e in [*entries[1:], broker]
    )


def test_mvn_dependency_list_output_becomes_lock_entries(tmp_path: Path) -> None:
    jar = tmp_path / "netty-epoll.jar"
    jar.write_bytes(b"x")
    listing = (
        "\nThe following files have been resolved:\n"
        f"   org.apache.pulsar:pulsar-broker:jar:4.2.4:compile:{jar} -- module pulsar.broker (auto)\n"
        f"   io.netty:netty-transport-native-epoll:jar:linux-x86_64:4.1.136.Final:runtime:{jar}\n"
    )
    resolved = parse_resolved(listing)
    assert [str(c) for c, _ in resolved] == [
        "org.apache.pulsar:pulsar-broker:4.2.4",
        "io.netty:netty-transport-native-epoll:4.1.136.Final:linux-x86_64",
    ]
    assert all(path == jar for _, path in resolved)
