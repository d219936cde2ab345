"""What the single-process workload asks of the client for the hunt's options (#39), on a recording fake client (no
network): named producers that send their seq as the sequence id, cumulative acks, readers instead of
subscriptions, and per-key batching. The real clusters' side is tests/workload/test_hunt_options_real.py."""

from __future__ import annotations

import queue
import time
from typing import Any

import pulsar
import pytest

from pytest_pulsar_ha.history import RECEIVE, EventLog
from pytest_pulsar_ha.workload.plan import WorkloadPlan
from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload


class _Id:
    def __init__(self, entry: int) -> None:
        self.entry = entry

    def ledger_id(self) -> int:
        return 1

    def entry_id(self) -> int:
        return self.entry

    def partition(self) -> int:
        return -1


class _Message:
    def __init__(self, properties: dict[str, str], entry: int) -> None:
        self.props, self.entry = properties, entry

    def properties(self) -> dict[str, str]:
        return self.props

    def topic_name(self) -> str:
        return "t"

    def partition_key(self) -> str:
        return ""

    def message_id(self) -> _Id:
        return _Id(self.entry)

    def data(self) -> bytes:
        return b"x"


class _Client:
    """Acknowledges each send at once and delivers it; records every call the workload makes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.delivered: queue.Queue[_Message] = queue.Queue()
        self.entries = 0

    def create_producer(self, topic: str, **options: Any) -> Any:
        self.calls.append(("create_producer", options))
        return _Handle(self)

    def subscribe(self, topic: str, name: str, **options: Any) -> Any:
        self.calls.append(("subscribe", {"name": name, **options}))
        return _Handle(self)

    def create_reader(self, topic: str, start: Any, **options: Any) -> Any:
        self.calls.append(("create_reader", {"start": start, **options}))
        return _Handle(self)


class _Handle:
    """A producer, consumer or reader of :class:`_Client` (the workload calls only what its kind has)."""

    def __init__(self, client: _Client) -> None:
        self.client = client

    def send_async(self, payload: bytes, callback: Any, properties: dict[str, str], **options: Any) -> None:
        self.client.calls.append(("send_async", options))
        self.client.entries += 1
        callback(pulsar.Result.Ok, _Id(self.client.entries))
        self.client.delivered.put(_Message(properties, self.client.entries))

    def _next(self, timeout_millis: int) -> _Message:
        try:
            return self.client.delivered.get(timeout=timeout_millis / 1000)
        except queue.Empty:
            raise pulsar.Timeout("no message") from None

    def receive(self, timeout_millis: int) -> _Message:
        self.client.calls.append(("receive", {}))
        return self._next(timeout_millis)

    def read_next(self, timeout_millis: int) -> _Message:
        self.client.calls.append(("read_next", {}))
        return self._next(timeout_millis)

    def acknowledge(self, message: _Message) -> None:
        self.client.calls.append(("acknowledge", {}))

    def acknowledge_cumulative(self, message: _Message) -> None:
        self.client.calls.append(("acknowledge_cumulative", {}))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def run(**options: Any) -> tuple[_Client, EventLog]:
    plan = WorkloadPlan(["t"], 1, 1, options.pop("subscription_type", "exclusive"), 2, 50.0, 0, 1.0, False, 5000, 0)
    for name, value in options.items():
        setattr(plan, name, value)
    client, log = _Client(), EventLog()
    workload = SingleProcessWorkload(client, plan, log)
    workload.start()
    time.sleep(0.3)
    workload.stop_sending()
    assert workload.drain(5.0)
    workload.stop()
    return client, log


def names(client: _Client) -> set[str]:
    return {name for name, _ in client.calls}


def of(client: _Client, name: str) -> list[dict[str, Any]]:
    return [options for called, options in client.calls if called == name]


def test_by_default_producers_are_unnamed_and_messages_acked_one_by_one() -> None:
    client, _ = run()
    (producer,) = of(client, "create_producer")
    assert "producer_name" not in producer and "batching_type" not in producer
    assert all("sequence_id" not in send for send in of(client, "send_async"))
    assert {"receive", "acknowledge"} <= names(client) and "acknowledge_cumulative" not in names(client)


def test_deduplication_names_each_producer_and_sends_its_seq_as_the_sequence_id() -> None:
    client, _ = run(deduplication=True)
    (producer,) = of(client, "create_producer")
    assert producer["producer_name"] == "producer-0"
    sequence_ids = [send["sequence_id"] for send in of(client, "send_async")]
    assert sequence_ids == list(range(1, len(sequence_ids) + 1)) and len(sequence_ids) >= 5


def test_cumulative_acks_replace_individual_ones() -> None:
    client, _ = run(ack="cumulative")
    assert "acknowledge_cumulative" in names(client) and "acknowledge" not in names(client)


@pytest.mark.parametrize(
    ("position", "start"), [("earliest", pulsar.MessageId.earliest), ("latest", pulsar.MessageId.latest)]
)
def test_a_reader_reads_instead_of_a_subscription(position: str, start: Any) -> None:
    client, log = run(consume="reader", initial_position=position)
    (reader,) = of(client, "create_reader")
    assert reader["reader_name"] == "reader-0"
    assert reader["start"] is start
    assert "subscribe" not in names(client) and "read_next" in names(client)
    assert not names(client) & {"acknowledge", "acknowledge_cumulative", "receive"}
    assert {e.subscription for e in log.snapshot() if e.type == RECEIVE} == {"reader-0"}


def test_key_based_batching_is_asked_only_where_batching_is_on() -> None:
    client, _ = run(subscription_type="key_shared", batching=True, batching_type="key_based")
    (producer,) = of(client, "create_producer")
    assert producer["batching_enabled"] is True and producer["batching_type"] == pulsar.BatchingType.KeyBased
    client, _ = run(subscription_type="key_shared", batching=False, batching_type="key_based")
    (producer,) = of(client, "create_producer")
    assert producer["batching_enabled"] is False and "batching_type" not in producer
