"""A runtime classpath resolved from published metadata alone (Gradle's rules, no Maven), on a repository made in
the test: Gradle module metadata before a pom, the highest version requested winning, a platform's constraints,
exclusions, a pom's parent chain with its managed versions and scopes, a parent that is not served read as the
newest older one (and said), and a Kotlin multiplatform root leading to its JVM module. Then the committed 5.0.1
lock, written that way."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.provisioning import lockgen
from pytest_pulsar_ha.provisioning.maven_lock import parse_lock, read_lock
from pytest_pulsar_ha.provisioning.metadata_resolve import Dependency, Resolver, version_key


def _path(group: str, artifact: str, version: str, extension: str) -> str:
    return f"{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.{extension}"


def _module(group: str, artifact: str, version: str, dependencies: list[dict[str, Any]], **extra: Any) -> str:
    variant = {
        "name": "runtimeElements",
        "attributes": {"org.gradle.usage": "java-runtime", "org.gradle.category": "library"},
        "dependencies": dependencies,
        "files": [{"name": f"{artifact}-{version}.jar", "url": f"{artifact}-{version}.jar"}],
        **extra,
    }
    api = {**variant, "name": "apiElements", "attributes": {"org.gradle.usage": "java-api"}, "dependencies": []}
    component = {"group": group, "module": artifact, "version": version}
    return json.dumps({"formatVersion": "1.1", "component": component, "variants": [api, variant]})


def _dep(group: str, artifact: str, version: str = "", **extra: Any) -> dict[str, Any]:
    return {"group": group, "module": artifact, **({"version": {"requires": version}} if version else {}), **extra}


def _pom(group: str, artifact: str, version: str, body: str, parent: tuple[str, str, str] | None = None) -> str:
    up = ""
    if parent:
        g, a, v = parent
        up = f"<parent><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version></parent>"
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0">'
        f"{up}<groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
        f"<version>{version}</version>{body}</project>"
    )


def _pom_dep(group: str, artifact: str, version: str = "", extra: str = "") -> str:
    v = f"<version>{version}</version>" if version else ""
    return f"<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>{v}{extra}</dependency>"


REPOSITORY: dict[str, str] = {
    _path("org.example", "broker", "5.0.1", "module"): _module(
        "org.example",
        "broker",
        "5.0.1",
        [
            _dep("org.example", "common", "5.0.1"),
            _dep("com.lib", "util", "1.2"),
            _dep("org.bk", "server", "4.18.2", excludes=[{"group": "io.grpc", "module": "*"}]),
            _dep("com.bom", "bom", "2.0", attributes={"org.gradle.category": "platform"}),
            _dep("com.bom", "json"),
            _dep("com.kmp", "okio", "3.0"),
        ],
    ),
    _path("org.example", "common", "5.0.1", "module"): _module(
        "org.example", "common", "5.0.1", [_dep("com.lib", "util", "1.10"), _dep("com.bom", "json", "1.5")]
    ),
    _path("com.lib", "util", "1.10", "pom"): _pom("com.lib", "util", "1.10", ""),
    _path("com.lib", "util", "1.2", "pom"): _pom("com.lib", "util", "1.2", _pom_dep("com.old", "gone", "1")),
    _path("com.bom", "bom", "2.0", "pom"): _pom(
        "com.bom",
        "bom",
        "2.0",
        "<packaging>pom</packaging><dependencyManagement><dependencies>"
        f"{_pom_dep('com.bom', 'json', '2.0')}{_pom_dep('com.bom', 'unused', '9')}"
        "</dependencies></dependencyManagement>",
    ),
    _path("com.bom", "json", "2.0", "pom"): _pom("com.bom", "json", "2.0", ""),
    _path("com.bom", "json", "1.5", "pom"): _pom("com.bom", "json", "1.5", ""),
    _path("org.bk", "server", "4.18.2", "pom"): _pom(
        "org.bk",
        "server",
        "4.18.2",
        "<dependencies>"
        + _pom_dep("io.grpc", "grpc-core", "1.0")
        + _pom_dep("org.bk", "test-utils")
        + _pom_dep("org.bk", "native", "${project.version}", "<classifier>linux-x86_64</classifier>")
        + _pom_dep("org.bk", "proto")
        + _pom_dep("org.bk", "optional-thing", "1", "<optional>true</optional>")
        + "</dependencies>",
        parent=("org.bk", "bookkeeper", "4.18.2"),
    ),
    _path("org.bk", "bookkeeper", "4.18.0", "pom"): _pom(
        "org.bk",
        "bookkeeper",
        "4.18.0",
        "<packaging>pom</packaging><properties><proto.version>3.1</proto.version></properties>"
        "<dependencyManagement><dependencies>"
        + _pom_dep("org.bk", "test-utils", "4.18.0", "<scope>test</scope>")
        + _pom_dep("org.bk", "proto", "${proto.version}")
        + "</dependencies></dependencyManagement>",
    ),
    "org/bk/bookkeeper/maven-metadata.xml": "<metadata><versioning><versions><version>4.17.0</version>"
    "<version>4.18.0</version><version>4.19.0</version></versions></versioning></metadata>",
    _path("org.bk", "native", "4.18.2", "pom"): _pom("org.bk", "native", "4.18.2", ""),
    _path("org.bk", "proto", "3.1", "pom"): _pom("org.bk", "proto", "3.1", ""),
    _path("com.kmp", "okio", "3.0", "module"): json.dumps(
        {
            "component": {"group": "com.kmp", "module": "okio", "version": "3.0"},
            "variants": [
                {
                    "name": "jvmRuntimeElements-published",
                    "attributes": {"org.gradle.usage": "java-runtime", "org.gradle.category": "library"},
                    "available-at": {
                        "url": "../../okio-jvm/3.0/okio-jvm-3.0.module",
                        "group": "com.kmp",
                        "module": "okio-jvm",
                        "version": "3.0",
                    },
                }
            ],
        }
    ),
    _path("com.kmp", "okio-jvm", "3.0", "module"): json.dumps(
        {
            "component": {
                "url": "../../okio/3.0/okio-3.0.module",
                "group": "com.kmp",
                "module": "okio",
                "version": "3.0",
            },
            "variants": [
                {
                    "name": "jvmRuntimeElements-published",
                    "attributes": {"org.gradle.usage": "java-runtime", "org.gradle.category": "library"},
                    "files": [{"name": "okio-jvm-3.0.jar", "url": "okio-jvm-3.0.jar"}],
                }
            ],
        }
    ),
}


def test_the_runtime_classpath_follows_gradles_rules() -> None:
    asked: list[str] = []

    def fetch(path: str) -> bytes | None:
        asked.append(path)
        text = REPOSITORY.get(path)
        return text.encode() if text is not None else None

    found = Resolver(fetch).resolve([Dependency("org.example", "broker", "5.0.1")])
    assert [str(c) for c in found.artifacts] == [
        "com.bom:json:2.0",  # its version from the platform: higher than common's 1.5
        "com.kmp:okio-jvm:3.0",  # the multiplatform root leads to its JVM module
        "com.lib:util:1.10",  # 1.10 > 1.2 (numerically); 1.2's own dependency com.old:gone drops with it
        "org.bk:native:4.18.2:linux-x86_64",
        "org.bk:proto:3.1",  # its version from the parent read in place of the one not served
        "org.bk:server:4.18.2",
        "org.example:broker:5.0.1",
        "org.example:common:5.0.1",
    ]  # not io.grpc (excluded), org.bk:test-utils (managed as test), optional-thing, nor com.bom:unused
    assert found.substituted_parents == {"org.bk:bookkeeper:4.18.2": "4.18.0"}
    assert _path("org.bk", "bookkeeper", "4.18.2", "pom") in asked  # asked for first, then the older one read


def test_a_left_out_module_is_not_walked_and_an_unversioned_one_is_named() -> None:
    def fetch(path: str) -> bytes | None:
        text = REPOSITORY.get(path)
        return text.encode() if text is not None else None

    found = Resolver(fetch).resolve([Dependency("org.example", "broker", "5.0.1")], frozenset({("org.bk", "*")}))
    assert not [c for c in found.artifacts if c.group == "org.bk"] and found.substituted_parents == {}
    lonely = {_path("a", "b", "1", "module"): _module("a", "b", "1", [_dep("c", "d")])}
    with pytest.raises(LookupError, match="no version is declared for c:d"):
        Resolver(lambda p: lonely[p].encode() if p in lonely else None).resolve([Dependency("a", "b", "1")])


def test_versions_order_as_gradle_orders_them() -> None:
    ordered = ["1.0-rc1", "1.0", "1.0.1", "1.2", "1.10", "4.2.18.Final", "4.2.19.Final", "33.7.1-jre"]
    assert sorted(ordered, key=version_key) == ordered
    assert version_key("1.0.Final") == version_key("1.0")


def test_the_committed_5_0_1_lock_is_the_published_metadatas_runtime() -> None:
    """Written by ``lockgen pulsar 5.0.1 --resolver metadata`` (its header says which parents were read in place of
    ones not served and which jars are not served here): Pulsar's own modules at 5.0.1, one version of each
    library, ZooKeeper 3.9.6 and BookKeeper 4.18.2 as the release names them."""
    entries = read_lock("pulsar", "5.0.1")
    assert entries is not None
    versions = {(e.coordinate.group, e.coordinate.artifact): e.coordinate.version for e in entries}
    assert versions[("org.apache.pulsar", "pulsar-broker")] == "5.0.1"
    assert {v for (g, _), v in versions.items() if g == "org.apache.pulsar"} == {"5.0.1"}
    assert versions[("org.apache.zookeeper", "zookeeper")] == "3.9.6"
    assert versions[("org.apache.bookkeeper", "bookkeeper-server")] == "4.18.2"
    assert ("org.apache.logging.log4j", "log4j-slf4j2-impl") in versions
    kinds = [(e.coordinate.group, e.coordinate.artifact, e.coordinate.classifier) for e in entries]
    assert len(set(kinds)) == len(kinds)
    assert 300 <= len(entries) <= 340 and 230e6 < sum(e.size for e in entries) < 280e6


def test_lockgen_writes_the_published_runtime_as_a_lock_naming_what_it_read_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lockgen pulsar --resolver metadata`` on a ``file://`` repository: each jar's entry from its ``.sha1`` and
    size; a jar that is not served refuses, or with ``--allow-missing`` is left out and named in the header."""
    repository = tmp_path / "repository"
    for path, text in {**REPOSITORY, **_renamed("org.example", "broker", "pulsar-broker")}.items():
        (repository / path).parent.mkdir(parents=True, exist_ok=True)
        (repository / path).write_text(text)
    found = Resolver(lambda p: (repository / p).read_bytes() if (repository / p).is_file() else None).resolve(
        [Dependency("org.apache.pulsar", "pulsar-broker", "5.0.1")]
    )
    for coordinate in found.artifacts:
        if coordinate.artifact != "native":  # not served
            jar = repository / coordinate.path
            jar.write_bytes(coordinate.artifact.encode())
            jar.with_name(jar.name + ".sha1").write_text(hashlib.sha1(jar.read_bytes()).hexdigest() + "  x.jar\n")
    monkeypatch.setenv("PULSAR_HA_MAVEN_REPOSITORY", repository.as_uri())
    monkeypatch.delenv("PULSAR_HA_LOCKGEN_KEEP", raising=False)
    argv = ["pulsar", "5.0.1", "--resolver", "metadata", "--locks", str(tmp_path / "locks"), "--exclude", "com.kmp:*"]
    assert lockgen.main(argv) == 2  # org.bk:native is not served
    assert lockgen.main([*argv, "--allow-missing"]) == 0
    text = (tmp_path / "locks" / "pulsar-5.0.1.lock").read_text()
    assert "#   org.bk:bookkeeper:4.18.2 (not served) read as 4.18.0\n" in text
    assert "# not served here, left out: org.bk:native:4.18.2:linux-x86_64\n" in text
    assert "# left out: com.kmp:*\n" in text
    entries = {str(e.coordinate): e for e in parse_lock(text)}
    assert "com.kmp:okio-jvm:3.0" not in entries
    broker = entries["org.apache.pulsar:pulsar-broker:5.0.1"]
    assert (broker.size, broker.sha1) == (13, hashlib.sha1(b"pulsar-broker").hexdigest())


def _renamed(group: str, artifact: str, new_artifact: str) -> dict[str, str]:
    """The test repository's root module under Pulsar's coordinates (lockgen resolves org.apache.pulsar)."""
    variants = json.loads(REPOSITORY[_path(group, artifact, "5.0.1", "module")])["variants"]
    (runtime,) = [v for v in variants if v["name"] == "runtimeElements"]
    module = _module("org.apache.pulsar", new_artifact, "5.0.1", runtime["dependencies"])
    return {_path("org.apache.pulsar", new_artifact, "5.0.1", "module"): module}


def test_the_drivers_roots_take_the_unshaded_client_where_the_shaded_one_is_not_served() -> None:
    served = {"org/apache/pulsar/pulsar-client/4.2.4/pulsar-client-4.2.4.pom"}
    fetch = lambda path: b"<project/>" if path in served else None  # noqa: E731
    shaded = {(r.group, r.artifact, r.version) for r in lockgen._driver_roots("4.2.4", fetch)}
    assert ("org.apache.pulsar", "pulsar-client", "4.2.4") in shaded
    unshaded = {(r.group, r.artifact, r.version) for r in lockgen._driver_roots("5.0.1", fetch)}
    assert ("org.apache.pulsar", "pulsar-client-original", "5.0.1") in unshaded
    assert {a for _, a, _ in unshaded} == {"pulsar-client-original", "jackson-databind", "slf4j-simple"}


def test_the_committed_5_0_1_driver_lock_has_the_unshaded_client() -> None:
    """pulsar-client 5.0.1 (shaded) is not served: the driver is built on pulsar-client-original 5.0.1, the same
    client classes with their dependencies unshaded, and the versions the broker's lock has."""
    entries = read_lock("java-driver", "5.0.1")
    assert entries is not None
    versions = {(e.coordinate.group, e.coordinate.artifact): e.coordinate.version for e in entries}
    assert versions[("org.apache.pulsar", "pulsar-client-original")] == "5.0.1"
    assert ("org.apache.pulsar", "pulsar-client") not in versions
    assert ("org.slf4j", "slf4j-simple") in versions and ("com.fasterxml.jackson.core", "jackson-databind") in versions
    broker = {
        (e.coordinate.group, e.coordinate.artifact): e.coordinate.version for e in read_lock("pulsar", "5.0.1") or []
    }
    assert versions[("io.netty", "netty-handler")] == broker[("io.netty", "netty-handler")] == "4.2.19.Final"
