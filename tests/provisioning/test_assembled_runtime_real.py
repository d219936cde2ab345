"""A Pulsar release without a served distribution, for real: assembled from Maven Central, started as two
geo-replicated clusters behind toxiproxy, and asked which version runs; one that cannot be assembled is refused
naming what is missing, before anything starts."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_pulsar, maven_lock
from pytest_pulsar_ha.provisioning.java_driver import ensure_java_driver
from pytest_pulsar_ha.runtime.backends import build_environment
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.workload.replication_probe import prove_replication

pytestmark = pytest.mark.real_clusters

ASSEMBLED = "4.2.4"
"""served here as broker jars, not as a distribution (../shared/notes/pulsar-versions-here.md)"""


@pytest.fixture(scope="module")
def assembled_environment() -> Iterator[PulsarHaEnvironment]:
    settings = HaSettings(clusters=(ClusterSpec("cluster-a"), ClusterSpec("cluster-b")), pulsar_version=ASSEMBLED)
    env = build_environment(settings)  # no work_dir: a temporary one of its own
    with env:
        yield env
    assert env.owns_work_dir
    assert not env.work_dir.exists(), "an environment's own temporary work directory is removed when it closes"


def test_an_assembled_release_runs_geo_replicated_clusters_that_say_their_version(
    assembled_environment: PulsarHaEnvironment,
) -> None:
    env = assembled_environment
    assert env.broker_versions() == {"cluster-a": ASSEMBLED, "cluster-b": ASSEMBLED}
    assert env.describe_pulsar() == f"{ASSEMBLED} (assembled from Maven artifacts); brokers answer {ASSEMBLED}"
    namespace = env.create_geo_namespace()
    results = prove_replication(env, namespace, timeout_seconds=60)
    assert len(results) == 2
    assert all(r.ok for r in results), results


def test_the_java_client_driver_is_built_against_the_same_release() -> None:
    dist = ensure_pulsar(ASSEMBLED, default_cache_dir(), lambda _: None)
    driver = ensure_java_driver(dist.version, default_cache_dir(), lambda _: None)
    assert driver.client_version == ASSEMBLED
    assert any(jar.endswith(f"/pulsar-client-{ASSEMBLED}.jar") for jar in driver.classpath.split(":"))


def test_a_release_that_cannot_be_assembled_is_refused_naming_the_missing_artifact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """5.0.1 without its lock (it has one, written from the published metadata: hidden here): Maven resolves it,
    where mvn is installed, and names what it lacks; without mvn the refusal says that Maven is needed for a
    version without a lock."""
    (tmp_path / "no-locks").mkdir()
    monkeypatch.setattr(maven_lock, "LOCKS", tmp_path / "no-locks")
    with pytest.raises(ProvisioningError) as info:
        ensure_pulsar("5.0.1", tmp_path / "cache", lambda _: None)
    message = str(info.value)
    if shutil.which("mvn") is None:
        assert "Maven (mvn) is needed to fetch Pulsar 5.0.1" in message
        return
    assert "Pulsar 5.0.1 cannot be assembled from Maven artifacts here" in message
    # Which artifact is missing depends on what the registry serves that day (bookkeeper's 4.18.2 pom once,
    # ZooKeeper's 3.9.6 parent pom later): the refusal must name one, and the chain from pulsar-broker to it.
    assert re.search(r"Maven Central does not serve [\w.\-]+:[\w.\-]+:(?:pom|jar):[\w.\-]+\.$", message, re.M)
    assert re.search(r"^needed by: org\.apache\.pulsar:pulsar-broker:jar:5\.0\.1 -> \S", message, re.M)
    assert "\x1b" not in message and "[m" not in message  # Maven's words, no terminal colour codes
