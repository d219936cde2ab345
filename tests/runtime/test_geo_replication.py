"""Geo-replication between real clusters, every client connection through toxiproxy."""

from __future__ import annotations

import json
import time

import pulsar
import pytest

from pytest_pulsar_ha.process.readiness import http_get
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings.clusters import ordered_pairs
from pytest_pulsar_ha.workload.client_setup import create_with_retries
from pytest_pulsar_ha.workload.replication_probe import prove_replication
from tests.clients import receive_payloads

pytestmark = pytest.mark.real_clusters


def test_message_produced_on_a_is_consumed_on_b_and_the_reverse(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    results = prove_replication(pulsar_ha, geo_namespace, timeout_seconds=60)
    assert {(r.source, r.target) for r in results} == set(ordered_pairs(pulsar_ha.names))
    assert len(results) == len(pulsar_ha.names) * (len(pulsar_ha.names) - 1) >= 2
    failed = [r for r in results if not r.ok]
    assert not failed, failed


def test_clusters_are_registered_in_each_other_through_link_proxies(pulsar_ha: PulsarHaEnvironment) -> None:
    a, b = pulsar_ha.cluster("cluster-a"), pulsar_ha.cluster("cluster-b")
    registered = a.admin.get("clusters/cluster-b")
    assert registered["listenerName"] == "from_cluster_a"
    assert registered["brokerServiceUrl"] != b.direct_service_url  # a proxy, not the broker itself
    assert registered["brokerServiceUrl"] != b.service_url  # and not the clients' proxy either


def _wait_for_replicators(pulsar_ha: PulsarHaEnvironment, topic_path: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    seen: dict[str, object] = {}
    while time.monotonic() < deadline:
        connected = True
        for name in pulsar_ha.names:
            try:
                replication = pulsar_ha.cluster(name).admin.get(f"{topic_path}/stats").get("replication", {})
            except Exception as exc:  # the topic is not on this cluster yet
                seen[name] = str(exc)
                connected = False
                continue
            seen[name] = {other: r.get("connected") for other, r in replication.items()}
            connected &= all(replication.get(o, {}).get("connected") for o in pulsar_ha.names if o != name)
        if connected:
            return
        time.sleep(0.2)
    raise AssertionError(f"the replicators of {topic_path} did not connect within {timeout_s:g}s: {seen}")


def test_clients_learn_only_proxied_addresses(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    a = pulsar_ha.cluster("cluster-a")
    topic = f"persistent://{geo_namespace}/lookup"
    client = pulsar_ha.client("cluster-a")
    try:
        client.create_producer(topic).close()
    finally:
        client.close()
    # Pulsar 4.0.8 coalesces lookups of one bundle in flight together whatever their listener
    # (NamespaceService.findBrokerServiceUrl keys them by bundle: apache/pulsar#26244, fixed after 4.0.8 by
    # #26245). A lookup made while cluster-b's replicator looks the new topic up through its own listener can
    # answer that listener's address (once in a CI rehearsal: the from_cluster_b proxy). This test is about our
    # listeners, so it looks up once the replicators of the topic are connected both ways.
    _wait_for_replicators(pulsar_ha, f"persistent/{geo_namespace}/lookup")
    url = f"{a.direct_admin_url}/lookup/v2/topic/persistent/{geo_namespace}/lookup?listenerName=external"
    status, body = http_get(url)
    assert status == 200, body
    assert json.loads(body)["brokerUrl"] == a.service_url


def test_geo_namespace_is_fresh_and_replicated_everywhere(pulsar_ha: PulsarHaEnvironment) -> None:
    first, second = pulsar_ha.create_geo_namespace(), pulsar_ha.create_geo_namespace()
    assert first != second
    for cluster in pulsar_ha.clusters.values():
        assert sorted(cluster.admin.get(f"namespaces/{first}/replication")) == sorted(pulsar_ha.names)


def test_replicated_subscription_is_enabled(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    topic = f"persistent://{geo_namespace}/repl-sub"
    client = pulsar_ha.client("cluster-a")
    try:
        consumer = create_with_retries(
            lambda: client.subscribe(
                topic,
                "shared-state",
                replicate_subscription_state_enabled=True,
                initial_position=pulsar.InitialPosition.Earliest,
            )
        )
        producer = create_with_retries(lambda: client.create_producer(topic))
        producer.send(b"x")
        assert receive_payloads(consumer, lambda seen: b"x" in seen, 30) == {b"x"}
        stats = pulsar_ha.cluster("cluster-a").admin.get(f"persistent/{geo_namespace}/repl-sub/stats")
        assert stats["subscriptions"]["shared-state"]["isReplicated"] is True
    finally:
        client.close()
