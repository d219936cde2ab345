"""The fleet on real clusters: workers in processes of their own send at rate, follow the provider's switch
through the relay, and leave a complete history (every acknowledged send received, each ack's cluster known)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pulsar_ha_providers import EventHub, SwitchEvent
from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, Event, EventLog
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.fleet.config import Service
from pytest_pulsar_ha.workload.fleet.fleet import FleetTarget, FleetWorkload
from pytest_pulsar_ha.workload.plan import WorkloadPlan

pytestmark = [pytest.mark.real_clusters, pytest.mark.matrix]  # make scenarios runs it (kept-out table)

RATE = 1000  # per producer


def _run(
    env: PulsarHaEnvironment, plan: WorkloadPlan, target: FleetTarget, tmp_path: Path, during: Callable[[], None]
) -> tuple[FleetWorkload, list[Event]]:
    """The fleet of ``plan`` in 3 processes: started, ``during()``, stopped once every acknowledged send was
    received (and none of its producers fell behind); the fleet and its merged history."""
    log = EventLog()
    fleet = FleetWorkload(
        plan,
        log,
        target,
        processes=3,
        parts_dir=tmp_path / "history.parts",
        client_options=env.client_options,
        seeded=env.seeded_ledger_ids(),
        registry=env.registry,
    )
    fleet.start()
    try:
        during()
        fleet.stop_sending()
        assert fleet.drain(60), "not every acknowledged send was received"
        assert fleet.rate_shortfalls() == []
    finally:
        fleet.stop()
    return fleet, log.snapshot()


def test_workers_follow_a_relayed_switch_and_leave_a_complete_history(
    pulsar_ha: PulsarHaEnvironment, tmp_path: Path
) -> None:
    env = pulsar_ha
    namespace = env.create_geo_namespace()
    plan = WorkloadPlan(
        [f"persistent://{namespace}/fleet"], 2, 1, "exclusive", 8, RATE, 256, 12.0, True, 10_000, 7, batching=True
    )
    services = {name: Service(env.cluster(name).service_url, env.cluster(name).token) for name in env.names}
    hub = EventHub()
    switched: list[int] = []

    def switch() -> None:
        time.sleep(4)
        switched.append(time.time_ns())
        hub.publish(SwitchEvent("cluster-a", "cluster-b", "test"))  # as our provider does once it switched
        time.sleep(4)

    fleet, events = _run(env, plan, FleetTarget(services["cluster-a"], services, hub), tmp_path, switch)
    switched_ns = switched[0]
    assert len(fleet.part_files()) > 1 and events == sorted(events, key=lambda e: e.ts_ns)
    sends = [e for e in events if e.type == SEND]
    acks = [e for e in events if e.type == ACK]
    assert len(sends) >= 2 * RATE * 7, "the open loop kept 2 x 1,000 msg/s over 8 s"
    assert {(e.producer, e.seq) for e in acks} == {(e.producer, e.seq) for e in sends}
    assert {(e.producer, e.seq) for e in events if e.type == RECEIVE} >= {(e.producer, e.seq) for e in acks}
    assert all(e.cluster in ("cluster-a", "cluster-b") for e in acks), "seeded ledger ids name each ack's cluster"
    # every worker's client moved: both producers' acks come from cluster-b soon after the switch, none from a
    after = [e for e in acks if e.ts_ns > switched_ns + 2_000_000_000]
    assert {e.producer for e in after} == {"producer-0", "producer-1"}
    assert {e.cluster for e in after} == {"cluster-b"}
    delays = fleet.relay_delays_s()
    assert len(delays) == 3 and max(delays) < 0.5, delays  # each worker applied it (the consumer's too)
    assert fleet.describe().startswith("3 worker processes; 1 switch relayed, applied at most ")


def test_a_partitioned_topic_with_key_shared_consumers_in_two_processes(
    pulsar_ha: PulsarHaEnvironment, tmp_path: Path
) -> None:
    """The fleet's other paths: producers of a partitioned topic (sends resolve per partition, each with its
    callback), two Key_Shared consumers in processes of their own (topic and partition asked of each message)."""
    env = pulsar_ha
    namespace = env.create_geo_namespace()
    topic = f"persistent://{namespace}/fleet-partitioned"
    env.cluster("cluster-a").admin.put(f"persistent/{namespace}/fleet-partitioned/partitions", 3)
    plan = WorkloadPlan([topic], 2, 2, "key_shared", 16, RATE, 256, 8.0, False, 10_000, 11, batching=True)
    service = Service(env.cluster("cluster-a").service_url, env.cluster("cluster-a").token)
    _, events = _run(env, plan, FleetTarget(service), tmp_path, lambda: time.sleep(6))
    sends = [e for e in events if e.type == SEND]
    acks = [e for e in events if e.type == ACK]
    receipts = [e for e in events if e.type == RECEIVE]
    assert len(sends) >= 2 * RATE * 5
    assert {(e.producer, e.seq) for e in acks} == {(e.producer, e.seq) for e in sends}
    assert {(e.producer, e.seq) for e in receipts} >= {(e.producer, e.seq) for e in acks}
    partitions = {int(str(e.message_id).rsplit(":", 1)[1]) for e in acks}
    assert partitions == {0, 1, 2}, "the acks' message ids carry the partition each send went to"
    assert {e.topic for e in receipts} == {f"{topic}-partition-{n}" for n in range(3)}
    assert {e.process for e in receipts} == {"consumer-0", "consumer-1"}, "both Key_Shared consumers received"
    by_key: dict[tuple[str | None, str | None, str | None], list[int]] = {}
    for receipt in receipts:
        assert receipt.key is not None and receipt.key.startswith("k")
        by_key.setdefault((receipt.process, receipt.producer, receipt.key), []).append(int(receipt.seq or 0))
    # (a batch of mixed keys goes to the consumer of its first key: a key may reach both, each in order)
    assert all(seqs == sorted(seqs) for seqs in by_key.values()), "each consumer gets a key's messages in order"
