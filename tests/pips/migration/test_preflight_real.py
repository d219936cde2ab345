"""On real clusters: the preflight catches each problem it claims (one test per problem), prepare fixes what it
can, and a prepared migration has no problem left."""

from __future__ import annotations

import dataclasses
import socket

import pulsar
import pytest

from pytest_pulsar_ha.pips.migration import ClusterMigration, PreflightProblem, preflight, prepare
from tests.pips.migration.conftest import MIGRATION_CLUSTERS, Sides, endpoint

pytestmark = pytest.mark.pulsar_ha_clusters(*MIGRATION_CLUSTERS)


def codes(problems: list[PreflightProblem]) -> list[str]:
    return [p.code for p in problems]


def only(problems: list[PreflightProblem], code: str) -> PreflightProblem:
    found = [p for p in problems if p.code == code]
    assert len(found) == 1, problems
    return found[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_green_unreachable(sides: Sides) -> None:
    ns = sides.blue_namespace()
    down = dataclasses.replace(sides.green, admin_url=f"http://127.0.0.1:{free_port()}", timeout=3)
    assert codes(preflight(sides.blue, down, [ns]))[:1] == ["green-unreachable"]
    misnamed = dataclasses.replace(sides.green, name="purple")
    problem = only(preflight(sides.blue, misnamed, [ns]), "green-unreachable")
    assert "knows no cluster named 'purple'" in problem.what


def test_tenant_missing(sides: Sides) -> None:
    ns = sides.blue_namespace()
    problems = preflight(sides.blue, sides.green, [ns])
    assert only(problems, "tenant-missing").where == sides.tenant
    assert only(problems, "namespace-missing").where == ns  # and what is under it
    assert prepare(sides.blue, sides.green, [ns], problems)[0].startswith(f"created tenant {sides.tenant} on green")
    info = sides.green.admin().get(f"tenants/{sides.tenant}")
    assert info["allowedClusters"] == ["green", "dc3"]  # blue's list, green's own choice: never blue
    assert preflight(sides.blue, sides.green, [ns]) == []


def test_tenant_disallows_green(sides: Sides) -> None:
    ns = sides.blue_namespace()
    sides.green_tenant(allowed=["dc3"])
    problems = preflight(sides.blue, sides.green, [ns])
    assert only(problems, "tenant-disallows-green").where == sides.tenant
    prepare(sides.blue, sides.green, [ns], problems)
    assert "green" in sides.green.admin().get(f"tenants/{sides.tenant}")["allowedClusters"]
    assert preflight(sides.blue, sides.green, [ns]) == []


def test_namespace_missing(sides: Sides) -> None:
    ns = sides.blue_namespace(replication=["blue", "dc3"])
    sides.green_tenant()
    problems = preflight(sides.blue, sides.green, [ns])
    assert codes(problems) == ["namespace-missing"]
    assert "namespaces create" in problems[0].fix and "--clusters green,dc3" in problems[0].fix
    prepare(sides.blue, sides.green, [ns], problems)
    assert sides.green.admin().get(f"namespaces/{ns}")["replication_clusters"] == ["green", "dc3"]
    assert preflight(sides.blue, sides.green, [ns]) == []


def test_partitioned_topic_missing(sides: Sides) -> None:
    ns = sides.blue_namespace()
    sides.green_namespace()
    sides.blue.admin().put(f"persistent/{ns}/orders/partitions", 3)
    problems = preflight(sides.blue, sides.green, [ns])
    assert codes(problems) == ["partitioned-topic-missing"]
    assert problems[0].where == f"persistent://{ns}/orders"
    prepare(sides.blue, sides.green, [ns], problems)
    assert sides.green.admin().get(f"persistent/{ns}/orders/partitions")["partitions"] == 3
    assert preflight(sides.blue, sides.green, [ns]) == []


def test_partition_count_differs(sides: Sides) -> None:
    ns = sides.blue_namespace()
    sides.green_namespace()
    sides.blue.admin().put(f"persistent/{ns}/orders/partitions", 3)
    sides.green.admin().put(f"persistent/{ns}/orders/partitions", 2)
    problems = preflight(sides.blue, sides.green, [ns])
    assert codes(problems) == ["partition-count-differs"]
    assert "3 partitions on blue and 2 on green" in problems[0].what
    assert prepare(sides.blue, sides.green, [ns], problems) == [
        f"raised the partitions of persistent://{ns}/orders on green from 2 to 3"
    ]
    assert preflight(sides.blue, sides.green, [ns]) == []


def test_subscription_missing_and_its_position_on_green(sides: Sides) -> None:
    ns = sides.blue_namespace()
    sides.green_namespace()
    topic = f"persistent://{ns}/orders"
    sides.blue.admin().put(f"persistent/{ns}/orders/subscription/audit", {"ledgerId": -1, "entryId": -1})
    reader_client = sides.env.client("blue")
    try:  # a reader's non-durable cursor is not a subscription to move
        reader_client.create_reader(topic, pulsar.MessageId.earliest)
        problems = preflight(sides.blue, sides.green, [ns])
    finally:
        reader_client.close()
    assert codes(problems) == ["subscription-missing"]
    assert problems[0].where == f"{topic}/subscription/audit"
    assert prepare(sides.blue, sides.green, [ns], problems) == [
        f"created subscription audit of {topic} on green at earliest"
    ]
    # what the rule is for: a message written to green before the consumer arrives is kept for it
    client = pulsar.Client(sides.env.cluster("green").service_url, **sides.env.client_options)
    try:
        client.create_producer(topic).send(b"written-before-the-consumer")
        consumer = client.subscribe(topic, "audit")  # the default initial position is latest
        assert consumer.receive(timeout_millis=10000).data() == b"written-before-the-consumer"
    finally:
        client.close()
    assert preflight(sides.blue, sides.green, [ns]) == []


def test_migration_check_off(sides: Sides) -> None:
    """green has the default clusterMigrationCheckDurationSeconds=0: as the blue side, it would never migrate."""
    ns = sides.blue_namespace()
    sides.green_namespace()
    as_blue = endpoint(sides.env, "green")
    as_green = endpoint(sides.env, "blue")
    problem = only(preflight(as_blue, as_green, [ns]), "migration-check-off")
    assert "clusterMigrationCheckDurationSeconds is 0" in problem.what
    assert "migration-check-off" not in codes(preflight(sides.blue, sides.green, [ns]))


def test_replicated_between_blue_and_green(sides: Sides) -> None:
    ns = sides.blue_namespace(replication=["blue", "green"])
    problem = only(preflight(sides.blue, sides.green, [ns]), "replicated-between-blue-and-green")
    assert problem.where == ns and "set-clusters" in problem.fix and "--clusters blue" in problem.fix


def test_replicated_from_green_to_blue(sides: Sides) -> None:
    ns = sides.blue_namespace()
    sides.green_tenant(allowed=["blue", "green", "dc3"])
    sides.green.admin().put(f"namespaces/{ns}", {"replication_clusters": ["green", "blue"]})
    problem = only(preflight(sides.blue, sides.green, [ns]), "replicated-between-blue-and-green")
    assert problem.what.startswith("on green")


def test_replication_clusters_differ(sides: Sides) -> None:
    ns = sides.blue_namespace(replication=["blue", "dc3"])
    sides.green_namespace(replication=["green"])
    problem = only(preflight(sides.blue, sides.green, [ns]), "replication-clusters-differ")
    assert "to dc3, green does not" in problem.what and "--clusters green,dc3" in problem.fix


def test_target_url_unusable(sides: Sides) -> None:
    ns = sides.blue_namespace()
    sides.green_namespace()
    closed = dataclasses.replace(sides.green, broker_service_url=f"pulsar://127.0.0.1:{free_port()}")
    problem = only(preflight(sides.blue, closed, [ns]), "target-url-unusable")
    assert "nothing accepts TCP connections" in problem.what
    without = endpoint(sides.env, "green", broker_url=False)  # the body 4.0.8 would accept
    problem = only(preflight(sides.blue, without, [ns]), "target-url-unusable")
    assert "no brokerServiceUrl" in problem.what
    assert preflight(sides.blue, sides.green, [ns]) == []


def test_not_on_blue(sides: Sides) -> None:
    problem = only(preflight(sides.blue, sides.green, [f"{sides.tenant}/nowhere"]), "not-on-blue")
    assert problem.where == f"{sides.tenant}/nowhere"


def test_the_whole_cluster_scope_is_every_namespace_but_pulsars_own(sides: Sides) -> None:
    ns = sides.blue_namespace()
    scope = ClusterMigration(sides.blue, sides.green).scope()
    assert ns in scope and "public/default" in scope
    assert not [n for n in scope if n.startswith("pulsar/") or n == "public/functions"]
