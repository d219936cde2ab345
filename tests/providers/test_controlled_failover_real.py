"""ControlledClusterFailover on real clusters, driven through the URL-provider service."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable

import pytest

from pulsar_ha_providers import ClusterEndpoint, ControlledClusterFailover, UrlProviderService
from pulsar_ha_providers.url_provider_service import MISBEHAVIOURS
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.one_topic import OneTopicWorkload

pytestmark = pytest.mark.real_clusters

CHECK = 0.5
RECONNECT_SLACK = 5.0


def operator_switch(service: UrlProviderService, cluster: str) -> None:
    """What an administrator does: POST /admin/switch/<cluster> to the URL provider."""
    request = urllib.request.Request(f"{service.url}admin/switch/{cluster}", method="POST", data=b"")
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 200


def controlled(endpoint: Callable[[str], ClusterEndpoint], service: UrlProviderService) -> ControlledClusterFailover:
    return ControlledClusterFailover(endpoint("cluster-a"), service.url, check_interval=CHECK)


def test_operator_switch_and_back(
    pulsar_ha: PulsarHaEnvironment,
    url_provider: UrlProviderService,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    provider = controlled(endpoint, url_provider)
    work = run_workload(provider)
    work.wait_for_acks(20)
    assert provider.events.switches() == [], "the first poll returns the current cluster: no reconnect"
    switched_at = time.time()
    operator_switch(url_provider, "cluster-b")
    work.wait_for_acks(60)
    back_at = time.time()
    operator_switch(url_provider, "cluster-a")
    work.wait_for_acks(60)
    work.stop()
    work.attribute(pulsar_ha)
    hi = CHECK + provider.request_timeout + RECONNECT_SLACK
    first_b = work.first_ack_on("cluster-b", after=switched_at)
    assert first_b is not None and 0 <= first_b.ts - switched_at <= hi, first_b
    first_a = work.first_ack_on("cluster-a", after=back_at)
    assert first_a is not None and 0 <= first_a.ts - back_at <= hi, first_a
    assert work.clusters_between(0, switched_at) == {"cluster-a"}
    assert work.lost() == []
    assert [s.to_cluster for s in provider.events.switches()] == [
        pulsar_ha.cluster("cluster-b").service_url,
        pulsar_ha.cluster("cluster-a").service_url,
    ]


def test_bad_answers_never_switch_a_live_client(
    pulsar_ha: PulsarHaEnvironment,
    url_provider: UrlProviderService,
    endpoint: Callable[[str], ClusterEndpoint],
    run_workload: Callable[..., OneTopicWorkload],
) -> None:
    provider = controlled(endpoint, url_provider)
    work = run_workload(provider)
    work.wait_for_acks(10)
    url_provider.switch_to("cluster-b")  # pending, hidden behind each bad answer in turn
    began = time.time()
    for kind in MISBEHAVIOURS:
        url_provider.misbehave(kind)
        time.sleep(3 * CHECK)
    ended = time.time()
    url_provider.misbehave(None)
    work.wait_for_acks(40)
    work.stop()
    work.attribute(pulsar_ha)
    assert work.clusters_between(began, ended) == {"cluster-a"}
    assert provider.events.switches()[0].ts >= ended
    assert work.first_ack_on("cluster-b", after=ended) is not None
    errors = {e.error for e in provider.events.recent if getattr(e, "ok", True) is False}
    assert len(errors) >= len(MISBEHAVIOURS) - 1  # 'missing' and 'empty' serviceUrl read the same
    assert work.lost() == []
