"""A 2-broker cluster geo-replicated with a standalone: every broker behind its own proxies (real processes)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pulsar
import pytest

from pytest_pulsar_ha.pips.failure_domains import lookup_topic, owner_id, set_anti_affinity_group
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.workload.replication_probe import prove_replication
from tests.clients import receive_payloads, send_until_acked

from .conftest import EnvironmentFactory

pytestmark = pytest.mark.real_clusters


@pytest.fixture(scope="module")
def env(start_environment: EnvironmentFactory) -> Iterator[PulsarHaEnvironment]:
    with start_environment(ClusterSpec("cluster-a", brokers=2), ClusterSpec("cluster-b")) as environment:
        yield environment


@pytest.fixture
def namespace(env: PulsarHaEnvironment) -> str:
    return env.create_geo_namespace()


def _owner(env: PulsarHaEnvironment, topic: str, listener: str = "external") -> dict[str, str]:
    a = env.cluster("cluster-a")
    return lookup_topic(a.brokers[0].direct_admin_url, f"{topic}?listenerName={listener}")


def test_each_broker_is_listed_by_the_load_manager_and_behind_its_own_proxy(env: PulsarHaEnvironment) -> None:
    a = env.cluster("cluster-a")
    assert sorted(a.admin.get("brokers/cluster-a")) == sorted(b.id for b in a.brokers)
    assert len({b.service_url for b in a.brokers}) == 2
    assert a.service_url == "pulsar://" + ",".join(b.service_url.removeprefix("pulsar://") for b in a.brokers)
    assert a.zookeeper is not None and a.bookie is not None
    assert env.cluster("cluster-b").zookeeper is None  # the standalone is unchanged
    registered = env.cluster("cluster-b").admin.get("clusters/cluster-a")
    assert registered["listenerName"] == "from_cluster_b"
    assert registered["brokerServiceUrl"].count(",") == 1  # one link proxy per broker of cluster-a


def test_lookups_answer_the_owner_s_own_proxies(env: PulsarHaEnvironment, namespace: str) -> None:
    a = env.cluster("cluster-a")
    topic = f"{namespace}/lookup"
    client = env.client("cluster-a")
    try:
        client.create_producer(f"persistent://{topic}").close()
    finally:
        client.close()
    external = _owner(env, topic)
    owner = a.broker(owner_id(external))
    assert external["brokerUrl"] == owner.service_url
    from_b = _owner(env, topic, "from_cluster_b")  # what cluster-b's replicator is told
    assert from_b["brokerUrl"] == f"pulsar://127.0.0.1:{owner.route.incoming['cluster-b'][1]}"


def test_replication_works_both_ways_through_the_proxies(env: PulsarHaEnvironment, namespace: str) -> None:
    results = prove_replication(env, namespace, timeout_seconds=60)
    assert [r for r in results if not r.ok] == []
    assert {(r.source, r.target) for r in results} == {("cluster-a", "cluster-b"), ("cluster-b", "cluster-a")}


def test_a_cluster_outage_cuts_every_broker(env: PulsarHaEnvironment, namespace: str) -> None:
    a = env.cluster("cluster-a")
    namespaces = [namespace, env.create_geo_namespace()]
    for ns in namespaces:  # one group: the load manager puts them on different brokers
        set_anti_affinity_group(a.admin, ns, "outage")
    client = env.client("cluster-a", operation_timeout_seconds=5)
    try:
        producers = [client.create_producer(f"persistent://{ns}/o", send_timeout_millis=3000) for ns in namespaces]
        for p in producers:
            p.send(b"before")
        owners = {owner_id(_owner(env, f"{ns}/o")) for ns in namespaces}
        assert owners == {b.id for b in a.brokers}, "the two topics must be served by both brokers"
        with a.outage():
            for p in producers:
                with pytest.raises(pulsar.PulsarException):
                    p.send(b"during")
        for p in producers:
            send_until_acked(p, b"after", deadline_seconds=90)
    finally:
        client.close()


def test_a_paused_bookie_stalls_writes_until_it_resumes(env: PulsarHaEnvironment, namespace: str) -> None:
    a = env.cluster("cluster-a")
    assert a.bookie is not None
    client = env.client("cluster-a", operation_timeout_seconds=5)
    try:
        producer = client.create_producer(f"persistent://{namespace}/bookie", send_timeout_millis=2000)
        producer.send(b"before")
        with a.bookie.paused(), pytest.raises(pulsar.PulsarException):
            producer.send(b"frozen")
        send_until_acked(producer, b"after", deadline_seconds=60)
    finally:
        client.close()


def test_a_killed_broker_s_topics_move_to_the_survivor_and_the_producer_keeps_sending(
    env: PulsarHaEnvironment, namespace: str
) -> None:
    """Runs last: the killed broker stays down (the module's environment stops right after)."""
    a = env.cluster("cluster-a")
    topic = f"{namespace}/kill"
    client = env.client("cluster-a", operation_timeout_seconds=10)
    acked: set[bytes] = set()
    try:
        # The subscription exists before the first send: it is what keeps acknowledged messages. (Created after
        # the kill, it would start at the first ledger still there: with no retention, the ledger of the messages
        # sent before the kill is trimmed once the replicator has sent them on, and Earliest no longer sees them.)
        consumer = client.subscribe(
            f"persistent://{topic}", "after-kill", initial_position=pulsar.InitialPosition.Earliest
        )
        producer = client.create_producer(f"persistent://{topic}", send_timeout_millis=5000)
        for i in range(10):
            payload = f"before-{i}-{uuid.uuid4()}".encode()
            producer.send(payload)
            acked.add(payload)
        victim = a.broker(owner_id(_owner(env, topic)))
        survivor = next(b for b in a.brokers if b is not victim)
        began = time.monotonic()
        victim.kill()
        took = send_until_acked(producer, b"after-kill", deadline_seconds=90)
        acked.add(b"after-kill")
        for i in range(10):
            payload = f"after-{i}-{uuid.uuid4()}".encode()
            producer.send(payload)
            acked.add(payload)
        print(f"first ack after the kill of {victim.id}: {took:.1f}s")
        answer = lookup_topic(survivor.direct_admin_url, f"{topic}?listenerName=external")
        assert owner_id(answer) == survivor.id and answer["brokerUrl"] == survivor.service_url
        seen = receive_payloads(consumer, lambda seen: acked <= seen, 60)
        if not acked <= seen:  # keep the evidence: which ledgers the survivor's managed ledger holds
            missing = sorted(p.decode() for p in acked - seen)
            stats = a.admin.get(f"persistent/{topic}/internalStats")
            raise AssertionError(
                f"{len(missing)} acknowledged message(s) not read back after the kill of "
                f"{victim.id}: {missing}; the survivor's managed ledger: "
                f"{[(led.get('ledgerId'), led.get('entries')) for led in stats.get('ledgers', [])]}, "
                f"entries added {stats.get('entriesAddedCounter')}, state {stats.get('state')}"
            )
        print(f"all {len(acked)} acknowledged messages read back {time.monotonic() - began:.1f}s after the kill")
        assert a.admin.get("brokers/cluster-a") == [survivor.id]  # the harness's admin skipped the dead one
    finally:
        client.close()
