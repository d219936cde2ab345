"""The fault primitives (the nemesis) against real clusters, observed from real clients."""

from __future__ import annotations

import socket
import time
import uuid
from urllib.parse import urlparse

import pulsar
import pytest

from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.client_setup import create_with_retries
from tests.clients import receive_payloads, send_until_acked

pytestmark = pytest.mark.real_clusters


def _client(env: PulsarHaEnvironment, name: str) -> pulsar.Client:
    return env.client(name, operation_timeout_seconds=5)


def _earliest(client: pulsar.Client, topic: str, sub: str = "check") -> pulsar.Consumer:
    """A set-up step: retried while the cluster warms up (a restarted one loads its topics on first use)."""
    return create_with_retries(lambda: client.subscribe(topic, sub, initial_position=pulsar.InitialPosition.Earliest))


def _send_fails(producer: pulsar.Producer, payload: bytes) -> bool:
    try:
        producer.send(payload)
    except pulsar.PulsarException:
        return True
    return False


def test_outage_stops_acks_of_a_connected_producer_and_it_recovers(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    topic = f"persistent://{geo_namespace}/outage"
    client = _client(pulsar_ha, "cluster-a")
    try:
        producer = client.create_producer(topic, send_timeout_millis=3000)
        producer.send(b"before")
        with pulsar_ha.cluster("cluster-a").outage():
            assert _send_fails(producer, b"during-1")
            assert _send_fails(producer, b"during-2")
        took = send_until_acked(producer, b"after", deadline_seconds=90)
        consumer = _earliest(client, topic)
        seen = receive_payloads(consumer, lambda s: {b"before", b"after"} <= s, 30)
        assert {b"before", b"after"} <= seen
        print(f"first ack after the outage ended: {took:.1f}s")
    finally:
        client.close()


def test_outage_leaves_the_other_cluster_serving(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    client = _client(pulsar_ha, "cluster-b")
    try:
        producer = client.create_producer(f"persistent://{geo_namespace}/b-alive", send_timeout_millis=5000)
        producer.send(b"before")  # the topic exists before the outage (a new one: the test below)
        with pulsar_ha.cluster("cluster-a").outage():
            producer.send(b"b still works")
            with pytest.raises(OSError):
                port = urlparse(pulsar_ha.cluster("cluster-a").service_url).port
                socket.create_connection(("127.0.0.1", port or 0), timeout=2).close()
    finally:
        client.close()


NEW_TOPIC_WAITS_FOR_REMOTES = {"4.0.8": False, "4.2.4": True}
"""Whether a topic created in a replicated namespace while a remote cluster is unreachable fails to load, per
version seen (the test below; findings page: new-topic-waits-for-remotes). On 4.2.4 the broker's log retries
"Could not get connection while getPartitionedTopicMetadata" against the unreachable cluster meanwhile. The likely
cause, not confirmed further: 4.2's replicator checks the remote topic before it starts
(GeoPersistentReplicator.prepareCreateProducer: createRemoteTopicIfDoesNotExist), where 4.0.8 skips that check
when createTopicToRemoteClusterForReplication is on (the default)."""


def test_a_new_topic_during_a_remote_outage_as_each_version_does(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    version = pulsar_ha.broker_versions()["cluster-b"]
    if version not in NEW_TOPIC_WAITS_FOR_REMOTES:
        pytest.skip(f"no behaviour recorded for Pulsar {version} (seen: {', '.join(NEW_TOPIC_WAITS_FOR_REMOTES)})")
    client = _client(pulsar_ha, "cluster-b")
    try:
        with pulsar_ha.cluster("cluster-a").outage():
            try:
                client.create_producer(f"persistent://{geo_namespace}/new-in-outage").send(b"new")
                waited = False
            except pulsar.Timeout:  # the operation timeout (5 s): the topic did not load
                waited = True
        assert waited == NEW_TOPIC_WAITS_FOR_REMOTES[version], f"Pulsar {version}"
        producer = create_with_retries(lambda: client.create_producer(f"persistent://{geo_namespace}/new-in-outage"))
        producer.send(b"after the outage")  # once every remote answers, the topic loads on any version
    finally:
        client.close()


def test_faults_are_undone_when_the_test_body_fails(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    a = pulsar_ha.cluster("cluster-a")
    with pytest.raises(RuntimeError), a.outage(), a.latency(2000):
        raise RuntimeError("a failing test inside the faults")
    client = _client(pulsar_ha, "cluster-a")
    try:
        producer = client.create_producer(f"persistent://{geo_namespace}/undone", send_timeout_millis=3000)
        began = time.monotonic()
        producer.send(b"x")
        assert time.monotonic() - began < 2.0, "the latency toxic must be gone"
    finally:
        client.close()


def test_replication_cut_stops_one_direction_only_and_catches_up(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    topic = f"persistent://{geo_namespace}/cut"
    a, b = _client(pulsar_ha, "cluster-a"), _client(pulsar_ha, "cluster-b")
    try:
        on_a, on_b = _earliest(a, topic), _earliest(b, topic)
        pa, pb = a.create_producer(topic), b.create_producer(topic)
        pa.send(b"warm-a")
        pb.send(b"warm-b")  # replicators connected both ways before the cut
        assert receive_payloads(on_b, lambda s: b"warm-a" in s, 60) >= {b"warm-a"}
        assert receive_payloads(on_a, lambda s: b"warm-b" in s, 60) >= {b"warm-b"}
        with pulsar_ha.replication_cut("cluster-a", "cluster-b"):
            pa.send(b"a-during-cut")  # clients are unaffected: acknowledged by a
            pb.send(b"b-during-cut")
            assert b"b-during-cut" in receive_payloads(on_a, lambda s: b"b-during-cut" in s, 60)
            assert b"a-during-cut" not in receive_payloads(on_b, lambda s: False, 8)
        assert b"a-during-cut" in receive_payloads(on_b, lambda s: b"a-during-cut" in s, 120)
    finally:
        a.close()
        b.close()


def test_kill_and_start_keep_acknowledged_data(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    topic = f"persistent://{geo_namespace}/durable"
    a = pulsar_ha.cluster("cluster-a")
    payloads = {f"m{i}-{uuid.uuid4()}".encode() for i in range(20)}
    client = _client(pulsar_ha, "cluster-a")
    try:
        producer = client.create_producer(topic)
        for payload in payloads:
            producer.send(payload)
    finally:
        client.close()
    a.kill()
    assert not a.node.is_running()
    a.start()
    client = _client(pulsar_ha, "cluster-a")
    try:
        consumer = _earliest(client, topic, "after-restart")
        assert receive_payloads(consumer, lambda s: payloads <= s, 60) >= payloads
    finally:
        client.close()


def test_pause_freezes_the_cluster_and_resume_recovers(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    topic = f"persistent://{geo_namespace}/paused"
    a = pulsar_ha.cluster("cluster-a")
    client = _client(pulsar_ha, "cluster-a")
    try:
        producer = client.create_producer(topic, send_timeout_millis=2000)
        producer.send(b"before")
        with a.paused():
            assert _send_fails(producer, b"frozen")
        send_until_acked(producer, b"after", deadline_seconds=60)
    finally:
        client.close()


def test_hang_accepts_tcp_but_nothing_is_answered(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    a = pulsar_ha.cluster("cluster-a")
    port = urlparse(a.service_url).port or 0
    with a.hang():
        socket.create_connection(("127.0.0.1", port), timeout=2).close()  # the listener still accepts
        client = pulsar_ha.client("cluster-a", operation_timeout_seconds=3)
        try:
            with pytest.raises(pulsar.PulsarException):
                client.create_producer(f"persistent://{geo_namespace}/hung")
        finally:
            client.close()


def test_latency_delays_every_acknowledgement(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    client = _client(pulsar_ha, "cluster-a")
    try:
        producer = client.create_producer(f"persistent://{geo_namespace}/slow")
        producer.send(b"warm")
        with pulsar_ha.cluster("cluster-a").latency(400):
            began = time.monotonic()
            producer.send(b"slow")
            assert time.monotonic() - began >= 0.4
    finally:
        client.close()


def test_heal_undoes_faults_left_in_force(pulsar_ha: PulsarHaEnvironment, geo_namespace: str) -> None:
    a = pulsar_ha.cluster("cluster-a")
    a.pause()
    pulsar_ha.network.disable(["cluster-a-client"])
    pulsar_ha.heal()
    assert not a.node.is_paused()
    client = _client(pulsar_ha, "cluster-a")
    try:
        producer = client.create_producer(f"persistent://{geo_namespace}/healed", send_timeout_millis=10000)
        send_until_acked(producer, b"ok", deadline_seconds=60)
    finally:
        client.close()
