"""Which cluster acknowledged a send and which delivered a message, from what each cluster's storage holds at a
position (the admin client is faked: this is the pure decision)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pytest_pulsar_ha.workload.storage_lookup import REPLICATED_FROM, acknowledging_cluster, delivering_cluster

TOPIC = "persistent://t/ns/topic"
PATH = "persistent/t/ns/topic/ledger/7/entry/3"


class Storage:
    """An admin client whose ``get_raw`` answers one entry (or 404)."""

    def __init__(self, payload: bytes | None, replicated: bool = False) -> None:
        self.payload, self.replicated = payload, replicated
        self.asked: list[str] = []

    def get_raw(self, path: str) -> tuple[int, Mapping[str, str], bytes]:
        self.asked.append(path)
        if self.payload is None:
            return 404, {}, b""
        headers = {"X-Pulsar-replicated-from": "cluster-a"} if self.replicated else {}
        return 200, headers, self.payload


def admins(**clusters: Storage) -> Any:
    return {name.replace("_", "-"): storage for name, storage in clusters.items()}


def test_the_original_publish_acknowledged_the_send_not_the_replicated_copy() -> None:
    found = admins(cluster_a=Storage(b"p0#1#"), cluster_b=Storage(b"p0#1#", replicated=True))
    assert acknowledging_cluster(found, TOPIC, 7, 3, b"p0#1#") == "cluster-a"
    assert REPLICATED_FROM == "x-pulsar-replicated-from"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (Storage(b"p0#1#"), Storage(None), "cluster-a"),  # only a holds it there
        (Storage(b"other"), Storage(b"p0#1#", replicated=True), "cluster-b"),  # a replicated copy delivered it
        (Storage(b"p0#1#"), Storage(b"p0#1#", replicated=True), None),  # both at the same position: unknown
        (Storage(None), Storage(b"other"), None),  # nobody (trimmed): unknown
    ],
)
def test_the_delivering_cluster_is_the_only_one_holding_the_payload_there(
    a: Storage, b: Storage, expected: str | None
) -> None:
    assert delivering_cluster(admins(cluster_a=a, cluster_b=b), TOPIC, 7, 3, b"p0#1#") == expected
    assert a.asked == b.asked == [PATH]


def test_a_seeded_ledger_id_names_its_cluster_without_a_read_and_any_other_is_read_from_storage() -> None:
    from pytest_pulsar_ha.history import ACK, RECEIVE, Event, EventLog
    from pytest_pulsar_ha.workload.attribution import attribute_log

    def event(kind: str, ledger: int, seq: int) -> Event:
        return Event(
            ts_ns=seq, type=kind, process="p", topic=TOPIC, producer="p0", seq=seq, message_id=f"{ledger}:3:-1"
        )

    log = EventLog()
    for e in (
        event(ACK, (1 << 32) | 7, 1),  # cluster-a's (seeded with 1)
        event(RECEIVE, (2 << 32) | 7, 1),  # cluster-b's copy (seeded with 2)
        event(RECEIVE, (5 << 32) | 7, 2),  # bits nobody was seeded with: read from storage
        event(ACK, 7, 3),  # Pulsar's own numbering: read from storage
    ):
        log.add(e)
    a, b = Storage(b"p0#2#"), Storage(None)
    attribute_log(log, {"cluster-a": a, "cluster-b": b}, {1: "cluster-a", 2: "cluster-b"})  # type: ignore[dict-item]
    assert [(e.type, e.seq, e.cluster) for e in log.snapshot()] == [
        (ACK, 1, "cluster-a"),
        (RECEIVE, 1, "cluster-b"),
        (RECEIVE, 2, "cluster-a"),
        (ACK, 3, None),
    ]
    assert sorted(a.asked) == [f"persistent/t/ns/topic/ledger/{(5 << 32) | 7}/entry/3", PATH]


def test_a_run_on_one_cluster_names_it_for_every_ack_and_receipt_without_a_read() -> None:
    from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, Event, EventLog
    from pytest_pulsar_ha.workload.attribution import attribute_log

    log = EventLog()
    for seq, kind in enumerate((SEND, ACK, RECEIVE)):
        log.add(Event(ts_ns=seq, type=kind, process="p", topic=TOPIC, producer="p0", seq=1, message_id="7:3:-1"))
    only = Storage(None)
    attribute_log(log, {"cluster-a": only})  # type: ignore[dict-item]
    assert [(e.type, e.cluster) for e in log.snapshot()] == [(SEND, None), (ACK, "cluster-a"), (RECEIVE, "cluster-a")]
    assert only.asked == []


def test_the_driver_names_a_seeded_cluster_as_it_records_and_leaves_any_other_to_later() -> None:
    import pulsar

    from pytest_pulsar_ha.history import ACK, SEND_ERROR, EventLog
    from pytest_pulsar_ha.workload.plan import WorkloadPlan
    from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload

    class MessageId:
        def __init__(self, ledger: int) -> None:
            self.ledger = ledger

        def ledger_id(self) -> int:
            return self.ledger

        def entry_id(self) -> int:
            return 3

        def partition(self) -> int:
            return -1

    log = EventLog()
    plan = WorkloadPlan(["t"], 1, 1, "exclusive", 0, 1.0, 10, 1.0, False, 5000, 0)
    workload = SingleProcessWorkload(None, plan, log, seeded={1: "cluster-a", 2: "cluster-b"})
    ok = pulsar.Result.Ok
    for seq, ledger in enumerate([(2 << 32) | 40, 40, -1, (1 << 32) | 7], start=1):
        workload._sent("producer-0", "t", seq, None, 10, ok, MessageId(ledger))
    workload._sent("producer-0", "t", 5, None, 10, pulsar.Result.Timeout, None)
    events = log.snapshot()
    assert [(e.type, e.seq, e.cluster, e.message_id) for e in events] == [
        (ACK, 1, "cluster-b", f"{(2 << 32) | 40}:3:-1"),
        (ACK, 2, None, "40:3:-1"),  # Pulsar's own numbering: attributed later
        (ACK, 3, None, "-1:3:-1"),  # no position
        (ACK, 4, "cluster-a", f"{(1 << 32) | 7}:3:-1"),
        (SEND_ERROR, 5, None, None),
    ]
    assert events[0].detail == '{"payload_size": 10}'
    assert events[-1].detail == str(pulsar.Result.Timeout)
    assert workload.callback_errors == []
