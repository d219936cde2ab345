"""Clusters with token authentication, each with its own secret key: the providers switch credentials too."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pulsar
import pytest

from pulsar_ha_providers import AutoClusterFailover, ClusterEndpoint, ControlledClusterFailover, UrlProviderService
from pytest_pulsar_ha import ClusterSpec, HaSettings, build_environment
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.one_topic import OneTopicWorkload
from pytest_pulsar_ha.workload.replication_probe import prove_replication

pytestmark = pytest.mark.real_clusters


@pytest.fixture(scope="module")
def secure(pulsar_ha_settings: HaSettings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulsarHaEnvironment]:
    settings = HaSettings(
        clusters=(ClusterSpec("secure-a", auth="token"), ClusterSpec("secure-b", auth="token")),
        cache_dir=pulsar_ha_settings.cache_dir,
        pulsar_version=pulsar_ha_settings.pulsar_version,
    )
    with build_environment(settings, work_dir=tmp_path_factory.mktemp("secure"), progress=lambda m: None) as env:
        yield env


def endpoint(env: PulsarHaEnvironment, name: str) -> ClusterEndpoint:
    cluster = env.cluster(name)
    return ClusterEndpoint(cluster.service_url, name=name, token=cluster.token, admin_url=cluster.admin_url)


def test_each_cluster_accepts_only_its_own_token(secure: PulsarHaEnvironment) -> None:
    a, b = secure.cluster("secure-a"), secure.cluster("secure-b")
    assert a.token and b.token and a.token != b.token
    namespace = secure.create_geo_namespace()
    for auth in (None, b.authentication()):
        client = secure.client("secure-a", authentication=auth, operation_timeout_seconds=5)
        try:
            with pytest.raises(pulsar.PulsarException):
                client.create_producer(f"persistent://{namespace}/denied")
        finally:
            client.close()
    client = secure.client("secure-a", operation_timeout_seconds=5)  # with secure-a's own token
    try:
        client.create_producer(f"persistent://{namespace}/allowed").send(b"ok")
    finally:
        client.close()


def test_replication_authenticates_with_the_remote_token(secure: PulsarHaEnvironment) -> None:
    results = prove_replication(secure, secure.create_geo_namespace())
    assert all(r.ok for r in results), results


def test_auto_failover_switches_credentials_with_the_url(secure: PulsarHaEnvironment) -> None:
    provider = AutoClusterFailover(
        endpoint(secure, "secure-a"),
        [endpoint(secure, "secure-b")],
        check_interval=0.5,
        failover_delay=1.5,
        switch_back_delay=3,
    )
    client = secure.client(provider, operation_timeout_seconds=5)
    work = OneTopicWorkload(client, f"persistent://{secure.create_geo_namespace()}/auto").start()
    try:
        work.wait_for_acks(10)
        fault = time.time()
        with secure.cluster("secure-a").outage():
            time.sleep(6)
        time.sleep(3 + 5)  # switch_back_delay, then time to reconnect
        work.wait_for_acks(10)
        work.stop()
        work.attribute(secure)
        assert work.first_ack_on("secure-b", after=fault) is not None, "secure-b refused the switched client"
        assert work.first_ack_on("secure-a", after=fault + 6) is not None, "no switch back with secure-a's token"
        assert work.lost() == []
    finally:
        client.close()


def test_controlled_failover_takes_credentials_from_the_url_provider(
    secure: PulsarHaEnvironment, tmp_path: Path
) -> None:
    token_file = tmp_path / "b.token"
    token_file.write_text(secure.cluster("secure-b").token or "")
    configs = {
        "secure-a": {
            "serviceUrl": secure.cluster("secure-a").service_url,
            "authPluginClassName": "org.apache.pulsar.client.impl.auth.AuthenticationToken",
            "authParamsString": f"token:{secure.cluster('secure-a').token}",
        },
        "secure-b": {
            "serviceUrl": secure.cluster("secure-b").service_url,
            "authPluginClassName": "org.apache.pulsar.client.impl.auth.AuthenticationToken",
            "authParamsString": f"file://{token_file}",
        },
    }
    with UrlProviderService(configs, "secure-a") as service:
        provider = ControlledClusterFailover(endpoint(secure, "secure-a"), service.url, check_interval=0.5)
        client = secure.client(provider, operation_timeout_seconds=5)
        work = OneTopicWorkload(client, f"persistent://{secure.create_geo_namespace()}/controlled").start()
        try:
            work.wait_for_acks(10)
            assert provider.events.switches() == []  # same URL and same token: nothing to do
            switched = time.time()
            service.switch_to("secure-b")
            work.wait_for_acks(30)
            work.stop()
            work.attribute(secure)
            assert work.first_ack_on("secure-b", after=switched) is not None
            assert work.lost() == []
        finally:
            client.close()
