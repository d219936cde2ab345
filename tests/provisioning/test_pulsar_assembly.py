"""The assembled Pulsar runtime's pure parts: the Maven project, Maven's "not found" answers (recorded here from
real runs, the repository's address replaced), labels, substitutions, and the choice between the distribution and
an assembly (with a stand-in ``mvn`` on PATH that answers as Maven Central did; no cluster, no network)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_pulsar_ha.errors import ConfigurationError, ProvisioningError
from pytest_pulsar_ha.provisioning import maven_lock, pulsar_assembly
from pytest_pulsar_ha.provisioning.pulsar_distribution import assembled_name, describe_runtime, ensure_pulsar
from pytest_pulsar_ha.settings import HaSettings, parse_substitutions

DATA = Path(__file__).parent / "data"
POM = "{http://maven.apache.org/POM/4.0.0}"


def _managed(pom: str) -> list[tuple[str, str, str]]:
    root = ET.fromstring(pom)
    deps = root.findall(f"{POM}dependencyManagement/{POM}dependencies/{POM}dependency")
    return [
        (d.findtext(f"{POM}groupId", ""), d.findtext(f"{POM}artifactId", ""), d.findtext(f"{POM}version", ""))
        for d in deps
    ]


def test_the_pom_imports_pulsars_own_parent_as_bom_and_depends_on_the_broker() -> None:
    root = ET.fromstring(pulsar_assembly.assembly_pom("4.2.4"))
    (bom,) = root.findall(f"{POM}dependencyManagement/{POM}dependencies/{POM}dependency")
    assert [bom.findtext(f"{POM}{tag}") for tag in ("groupId", "artifactId", "version", "type", "scope")] == [
        "org.apache.pulsar",
        "pulsar",
        "4.2.4",
        "pom",
        "import",
    ]
    (broker,) = root.findall(f"{POM}dependencies/{POM}dependency")
    assert (broker.findtext(f"{POM}artifactId"), broker.findtext(f"{POM}version")) == ("pulsar-broker", "4.2.4")


def test_substitutions_come_before_the_bom_so_that_they_win() -> None:
    pom = pulsar_assembly.assembly_pom(
        "5.0.1", {"org.apache.zookeeper:zookeeper": "3.9.5", "org.apache.bookkeeper:bookkeeper-server": "4.18.0"}
    )
    assert _managed(pom) == [
        ("org.apache.bookkeeper", "bookkeeper-server", "4.18.0"),
        ("org.apache.zookeeper", "zookeeper", "3.9.5"),
        ("org.apache.pulsar", "pulsar", "5.0.1"),
    ]


@pytest.mark.parametrize(
    ("pins", "wrong"),
    [({"bookkeeper-server": "4.18.0"}, "bookkeeper-server"), ({"a:b": "4.18.0</version>"}, "</version>")],
)
def test_a_bad_substitution_is_refused_naming_it(pins: dict[str, str], wrong: str) -> None:
    with pytest.raises(ProvisioningError, match="expected group:artifact=version") as info:
        pulsar_assembly.assembly_pom("5.0.1", pins)
    assert wrong in str(info.value)


def test_maven_naming_a_missing_pom_of_a_dependency_is_read_with_its_chain() -> None:
    output = (DATA / "maven-missing-bookkeeper-pom.txt").read_text()
    assert pulsar_assembly.missing_artifacts(output) == ["org.apache.bookkeeper:bookkeeper:pom:4.18.2"]
    assert pulsar_assembly.dependency_chain(output) == (
        "org.apache.pulsar:pulsar-broker:jar:5.0.1 -> org.apache.pulsar:managed-ledger:jar:5.0.1 -> "
        "org.apache.pulsar:pulsar-common:jar:5.0.1 -> org.apache.bookkeeper:bookkeeper-common-allocator:jar:4.18.2"
    )


def test_maven_answering_from_its_cache_of_failures_is_read_too() -> None:
    output = (DATA / "maven-missing-cached.txt").read_text()
    assert pulsar_assembly.missing_artifacts(output) == ["org.apache.bookkeeper:bookkeeper:pom:4.18.2"]


def test_a_distribution_that_is_not_served_is_recognised() -> None:
    output = (DATA / "maven-no-distribution.txt").read_text()
    assert pulsar_assembly.missing_artifacts(output) == [
        "org.apache.pulsar:pulsar-server-distribution:tar.gz:bin:4.2.4"
    ]


@given(st.text(max_size=400))
def test_reading_mavens_output_never_fails_on_any_text(text: str) -> None:
    found = pulsar_assembly.missing_artifacts(text)
    assert all(":" in coordinate for coordinate in found)
    assert len(found) == len(set(found))


def test_labels_never_pass_a_substituted_runtime_off_as_the_release() -> None:
    assert pulsar_assembly.label("4.2.4", {}) == "4.2.4 (assembled from Maven artifacts)"
    pinned = pulsar_assembly.label("5.0.1", {"org.apache.bookkeeper:bookkeeper-server": "4.18.0"})
    assert pinned.startswith("5.0.1 (assembled from Maven artifacts; NOT the release: substituted ")
    assert "org.apache.bookkeeper:bookkeeper-server 4.18.0" in pinned


def test_substitution_options_are_parsed_and_bad_ones_name_their_source() -> None:
    assert parse_substitutions("b:c=2, a:b=1,") == (("a:b", "1"), ("b:c", "2"))
    assert parse_substitutions("") == ()
    with pytest.raises(ConfigurationError, match=r"--pulsar-ha-pulsar-substitute: 'zookeeper=3\.9\.5'"):
        parse_substitutions("zookeeper=3.9.5", "--pulsar-ha-pulsar-substitute")


def test_the_header_says_how_the_version_is_had_from_the_cache_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PULSAR_HA_PULSAR_HOME", raising=False)
    assert describe_runtime("4.2.4", tmp_path) == "4.2.4 (not fetched yet)"
    (tmp_path / "pulsar" / "apache-pulsar-4.0.8").mkdir(parents=True)
    (tmp_path / "pulsar" / "apache-pulsar-4.0.8" / ".pytest-pulsar-ha-complete").write_text("4.0.8\n")
    assert describe_runtime("4.0.8", tmp_path) == "4.0.8"
    assembled = tmp_path / "pulsar" / assembled_name("4.2.4", {})
    assembled.mkdir()
    (assembled / pulsar_assembly.MARKER).write_text(json.dumps({"origin": "assembled", "version": "4.2.4"}))
    assert describe_runtime("4.2.4", tmp_path) == "4.2.4 (assembled from Maven artifacts)"
    settings = HaSettings(pulsar_version="4.2.4", cache_dir=tmp_path)
    assert "pulsar=4.2.4 (assembled from Maven artifacts) " in settings.describe()
    pinned = HaSettings(pulsar_version="4.2.4", cache_dir=tmp_path, pulsar_substitutions=(("a:b", "1"),))
    assert "NOT the release: substituted a:b 1" in pinned.describe()


# -- the choice, with a stand-in mvn ------------------------------------------------------------------------

FAKE_MVN = """#!/usr/bin/env bash
# answers as Maven Central did here: no distribution of any version; the broker's artifacts of {served} are served
echo "$@" >> "{calls}"
goal=""
for arg in "$@"; do
  case "$arg" in
    *:copy|*:copy-dependencies) goal="$arg" ;;
    -Dartifact=*) artifact="${{arg#-Dartifact=}}" ;;
    -DoutputDirectory=*) out="${{arg#-DoutputDirectory=}}" ;;
  esac
done
if [ "${{goal##*:}}" = copy ]; then
  echo "[ERROR] Failed to execute goal (default-cli) on project standalone-pom: Unable to find/resolve artifact. \
Could not find artifact $artifact in central (https://maven-central.example/maven2) -> [Help 1]"
  exit 1
fi
grep -q "<version>{served}</version>" pom.xml || {{ cat "{data}/maven-missing-bookkeeper-pom.txt"; exit 1; }}
mkdir -p "$out" && touch "$out/org.apache.pulsar-pulsar-broker-{served}.jar"
"""


@pytest.fixture
def fake_mvn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "mvn-calls.txt"
    mvn = bin_dir / "mvn"
    mvn.write_text(FAKE_MVN.format(served="4.2.4", calls=calls, data=DATA))
    mvn.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("PULSAR_HA_PULSAR_HOME", raising=False)
    (tmp_path / "no-locks").mkdir()
    monkeypatch.setattr(maven_lock, "LOCKS", tmp_path / "no-locks")  # Maven's route: the versions without a lock
    return calls


def test_a_version_without_a_distribution_is_assembled_once_and_then_read_from_the_cache(
    tmp_path: Path, fake_mvn: Path
) -> None:
    said: list[str] = []
    dist = ensure_pulsar("4.2.4", tmp_path / "cache", said.append)
    assert dist.origin == "assembled"
    assert dist.label == "4.2.4 (assembled from Maven artifacts)"
    assert dist.launcher.read_text() == (pulsar_assembly.TEMPLATES / "pulsar").read_text()
    assert os.access(dist.launcher, os.X_OK)
    assert sorted(p.name for p in (dist.home / "conf").iterdir()) == sorted(pulsar_assembly.CONF_FILES)
    assert any("no binary distribution of Pulsar 4.2.4 is served" in line for line in said)
    calls = fake_mvn.read_text().splitlines()
    assert len(calls) == 2  # the distribution asked for once, then the assembly
    again = ensure_pulsar("4.2.4", tmp_path / "cache", said.append)
    assert (again.home, again.origin) == (dist.home, "assembled")
    assert len(fake_mvn.read_text().splitlines()) == 2  # nothing asked of Maven the second time


def test_substitutions_assemble_a_runtime_of_their_own_labelled_as_not_the_release(
    tmp_path: Path, fake_mvn: Path
) -> None:
    plain = ensure_pulsar("4.2.4", tmp_path / "cache", lambda _: None)
    pinned = ensure_pulsar("4.2.4", tmp_path / "cache", lambda _: None, {"org.apache.zookeeper:zookeeper": "3.9.5"})
    assert pinned.home != plain.home
    assert "NOT the release: substituted org.apache.zookeeper:zookeeper 3.9.5" in pinned.label
    assert "<version>3.9.5</version>" in (pinned.home / "pom.xml").read_text()


def test_a_version_that_cannot_be_assembled_fails_naming_the_missing_artifact(tmp_path: Path, fake_mvn: Path) -> None:
    with pytest.raises(ProvisioningError) as info:
        ensure_pulsar("5.0.1", tmp_path / "cache", lambda _: None)
    message = str(info.value)
    assert "Pulsar 5.0.1 cannot be assembled" in message
    assert "does not serve org.apache.bookkeeper:bookkeeper:pom:4.18.2" in message
    assert "needed by: org.apache.pulsar:pulsar-broker:jar:5.0.1 -> " in message
    assert not list((tmp_path / "cache" / "pulsar").glob("assembled-*"))  # nothing half-made left behind
