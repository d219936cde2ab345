"""On real clusters: ``pulsar-ha migrate start --dry-run`` prints a readable plan and changes nothing; one real
migration through :class:`ClusterMigration` (Python producer and consumer redirected from blue to green, no
message lost), and what rollback really does in Pulsar 4.0.8."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pulsar
import pytest

from pytest_pulsar_ha.errors import AdminError
from pytest_pulsar_ha.pips.migration import ClusterMigration, PreflightFailed
from pytest_pulsar_ha.workload.closing import close_within
from tests.pips.migration.conftest import MIGRATION_CLUSTERS, Sides

pytestmark = pytest.mark.pulsar_ha_clusters(*MIGRATION_CLUSTERS)


def migrate(sides: Sides, *args: str) -> subprocess.CompletedProcess[str]:
    blue, green = sides.blue, sides.green
    argv = [
        sys.executable, "-m", "pytest_pulsar_ha.cli", "migrate", *args,
        "--blue", f"blue={blue.admin_url}", "--green", f"green={green.admin_url}",
        "--green-broker-url", str(green.broker_service_url), "--namespace", sides.namespace,
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_dry_run_prints_a_readable_plan_and_changes_nothing(sides: Sides) -> None:
    ns = sides.blue_namespace()
    sides.blue.admin().put(f"persistent/{ns}/orders/subscription/audit", {"ledgerId": -1, "entryId": -1})
    sides.blue.admin().put(f"persistent/{ns}/payments/partitions", 2)
    run = migrate(sides, "start", "--dry-run")
    print(run.stdout)
    assert run.returncode == 1, run.stderr
    out = run.stdout
    blue_admin = sides.blue.admin_url
    for expected in (
        "PIP-188 migration plan (dry run: nothing was changed)",
        f"clients redirected to {sides.green.broker_service_url}",
        f"scope: the namespaces named: {ns} (",
        f"persistent://{ns}/orders: not migrated (subscriptions: audit)",
        "start would call, on blue:",
        f"POST {blue_admin}/admin/v2/clusters/blue/migrate?migrated=false ",
        f'"brokerServiceUrl": "{sides.green.broker_service_url}"',
        f"POST {blue_admin}/admin/v2/namespaces/{ns}/migration true",
        f"[tenant-missing] {sides.tenant}:",
        f"[namespace-missing] {ns}:",
        f"[partitioned-topic-missing] persistent://{ns}/payments:",
        f"[subscription-missing] persistent://{ns}/orders/subscription/audit:",
        "fix: pulsar-admin --admin-url",
        "start would refuse: 4 problem(s); `pulsar-ha migrate prepare` fixes 4 of them",
    ):
        assert expected in out, expected
    with pytest.raises(AdminError):  # nothing was created on green, nothing switched on blue
        sides.green.admin().get(f"tenants/{sides.tenant}")
    assert not sides.blue.admin().get(f"namespaces/{ns}").get("migrated")

    prepared = migrate(sides, "prepare", "--json")
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    assert len(json.loads(prepared.stdout)["actions"]) == 4
    again = migrate(sides, "start", "--dry-run")
    print(again.stdout)
    assert again.returncode == 0 and "preflight: no problem found\nstart would go ahead" in again.stdout


SEND_BOUND_S = 60.0


def send_within(producer: pulsar.Producer, data: bytes, bound_s: float = SEND_BOUND_S) -> None:
    """A send that cannot hang the test: a clean-clone CI rehearsal saw ``producer.send`` never return during the
    redirect to green (the client wedged; the mark ``wedges_client`` runs this test in a process of its own)."""
    import threading

    done = threading.Event()
    outcome: list[object] = []

    def callback(result: object, _message_id: object) -> None:
        outcome.append(result)
        done.set()

    producer.send_async(data, callback)
    if not done.wait(bound_s):
        pytest.fail(f"the client wedged: a send did not complete within {bound_s:g}s (neither acknowledged nor failed)")
    if outcome[0] != pulsar.Result.Ok:
        raise pulsar.PulsarException(str(outcome[0]))


def _green_messages(sides: Sides, topic_path: str) -> int:
    return int(sides.green.admin().get(f"persistent/{topic_path}/stats").get("msgInCounter") or 0)


@pytest.mark.wedges_client
def test_a_real_migration_then_rollback(sides: Sides, record_property: pytest.RecordProperty) -> None:
    ns = sides.blue_namespace()
    topic = f"persistent://{ns}/orders"
    path = f"{ns}/orders"
    blue_admin, green_admin = sides.blue.admin(), sides.green.admin()
    client = sides.env.client("blue", operation_timeout_seconds=15)
    try:
        producer = client.create_producer(topic)
        consumer = client.subscribe(topic, "audit")
        sent: list[bytes] = []
        for i in range(50):
            sent.append(f"before-{i}".encode())
            send_within(producer, sent[-1])
        received = []
        for _ in range(50):
            message = consumer.receive(timeout_millis=10000)
            received.append(message.data())
            consumer.acknowledge(message)

        migration = ClusterMigration(sides.blue, sides.green, [ns])
        assert [s.migrated for s in migration.status()] == [False]
        with pytest.raises(PreflightFailed):
            migration.start()  # green has neither tenant, namespace nor subscription yet
        actions = migration.prepare()
        assert migration.preflight() == [], actions

        migration.start()
        switched = time.monotonic()
        first_on_green = None
        i = 0
        while first_on_green is None or i < 100:  # send until green has acknowledged some, 100 at least
            sent.append(f"during-{i}".encode())
            send_within(producer, sent[-1])
            i += 1
            if first_on_green is None and _green_messages(sides, path) > 0:
                first_on_green = time.monotonic() - switched
            assert time.monotonic() - switched < 60, "the producer was not redirected to green within 60 s"
        while len(received) < len(sent):
            message = consumer.receive(timeout_millis=20000)
            received.append(message.data())
            consumer.acknowledge(message)
        assert sorted(received) == sorted(sent) and len(set(received)) == len(sent)  # nothing lost, no duplicate

        began = time.monotonic()
        statuses = migration.wait(timeout=60, poll=0.5)
        waited = time.monotonic() - began
        assert [(s.topic, s.migrated, s.done) for s in statuses] == [(topic, True, True)]
        assert blue_admin.get(f"persistent/{path}/properties") == {"migrated": "true"}
        assert blue_admin.get(f"persistent/{path}/internalStats")["state"] == "Terminated"
        green_stats = green_admin.get(f"persistent/{path}/stats")
        assert len(green_stats["publishers"]) == 1  # the producer is on green
        assert len(green_stats["subscriptions"]["audit"]["consumers"]) == 1  # and the consumer followed
        on_green = _green_messages(sides, path)
        record_property("migration", {"sent": len(sent), "on_green": on_green, "first_ack_on_green_s": first_on_green})
        print(
            f"\nmigration: {len(sent)} sent, {len(received)} received, {on_green} written on green, first on green "
            f"{first_on_green:.2f}s after start, wait() {waited:.2f}s"
        )

        migration.rollback()
        assert not blue_admin.get(f"namespaces/{ns}").get("migrated")
        time.sleep(2)  # two migration checks of blue
        # what rollback cannot undo: the topic stays terminated and migrated on blue
        assert blue_admin.get(f"persistent/{path}/properties") == {"migrated": "true"}
        assert blue_admin.get(f"persistent/{path}/internalStats")["state"] == "Terminated"
        # the redirected producer stays on green
        send_within(producer, b"after-rollback-old-producer")
        assert _green_messages(sides, path) == on_green + 1
    finally:
        close_within(client.close, "client")
    fresh = sides.env.client("blue", operation_timeout_seconds=5)
    try:
        began = time.monotonic()
        with pytest.raises(pulsar.Timeout):  # refused (TopicMigratedException), retried, never redirected
            fresh.create_producer(topic)
        refused_after = time.monotonic() - began
        # a topic that never migrated works on blue as before
        fresh.create_producer(f"persistent://{ns}/after-rollback").send(b"on-blue")
        assert blue_admin.get(f"persistent/{ns}/after-rollback/stats")["msgInCounter"] == 1
        # a new subscription of the migrated topic is accepted on blue
        fresh.subscribe(topic, "late")
    finally:
        fresh.close()
    # blue's own account of the refusal (the client's log file is buffered: a clean-clone run found it empty)
    assert "Topic was already migrated" in sides.env.cluster("blue").node.log_tail(2000)
    print(f"rollback: a new producer of the migrated topic on blue failed with Timeout after {refused_after:.1f}s")
