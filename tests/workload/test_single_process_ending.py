"""How the single-process workload ends, on a fake client (pure logic: no network): a send still in flight when sending
stops is acknowledged before the drain starts, so the drain waits for its receipt instead of ending without it.

A real run showed the race: the last send of a scenario (acked 10 ms after sending stopped) was reported lost,
because the drain saw every ack known at that moment received and returned before the last ack arrived.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

import pulsar

from pytest_pulsar_ha.history import ACK, RECEIVE, EventLog
from pytest_pulsar_ha.workload.plan import WorkloadPlan
from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload

ACK_DELAY_S = 0.3


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
    def __init__(self, topic: str, payload: bytes, properties: dict[str, str], entry: int) -> None:
        self.payload, self.props, self.topic, self.entry = payload, properties, topic, entry

    def properties(self) -> dict[str, str]:
        return self.props

    def topic_name(self) -> str:
        return self.topic

    def partition_key(self) -> str:
        return ""

    def message_id(self) -> _Id:
        return _Id(self.entry)

    def data(self) -> bytes:
        return self.payload


class _Broker:
    """Acknowledges each send ``ACK_DELAY_S`` later, then delivers it to the consumer."""

    def __init__(self) -> None:
        self.delivered: queue.Queue[_Message] = queue.Queue()
        self.entries = 0
        self.lock = threading.Lock()
        self.timers: list[threading.Timer] = []

    def send_async(self, topic: str, payload: bytes, callback: Any, properties: dict[str, str]) -> None:
        with self.lock:
            self.entries += 1
            entry = self.entries

        def ack() -> None:
            callback(pulsar.Result.Ok, _Id(entry))
            self.delivered.put(_Message(topic, payload, properties, entry))

        timer = threading.Timer(ACK_DELAY_S, ack)
        self.timers.append(timer)
        timer.start()

    def flush(self) -> None:
        for timer in list(self.timers):
            timer.join()


class _Producer:
    def __init__(self, broker: _Broker, topic: str) -> None:
        self.broker, self.topic = broker, topic

    def send_async(self, payload: bytes, callback: Any, properties: dict[str, str], **_: Any) -> None:
        self.broker.send_async(self.topic, payload, callback, properties)

    def flush(self) -> None:
        self.broker.flush()

    def close(self) -> None:
        pass


class _Consumer:
    def __init__(self, broker: _Broker) -> None:
        self.broker = broker

    def receive(self, timeout_millis: int) -> _Message:
        try:
            return self.broker.delivered.get(timeout=timeout_millis / 1000)
        except queue.Empty:
            raise pulsar.Timeout("no message") from None

    def acknowledge(self, message: _Message) -> None:
        pass

    def close(self) -> None:
        pass


class _Client:
    def __init__(self) -> None:
        self.broker = _Broker()

    def subscribe(self, topic: str, name: str, **_: Any) -> _Consumer:
        return _Consumer(self.broker)

    def create_producer(self, topic: str, **_: Any) -> _Producer:
        return _Producer(self.broker, topic)


def test_every_send_in_flight_when_sending_stops_is_acked_before_the_drain_and_received_by_its_end() -> None:
    plan = WorkloadPlan(["t"], 1, 1, "exclusive", 0, 50.0, 0, 1.0, False, 5000, 0)
    log = EventLog()
    workload = SingleProcessWorkload(_Client(), plan, log)
    workload.start()
    time.sleep(0.5)
    workload.stop_sending()
    in_flight_acked = {e.seq for e in log.snapshot() if e.type == ACK}
    assert workload.drain(5.0)
    workload.stop()
    events = log.snapshot()
    acked = {e.seq for e in events if e.type == ACK}
    received = {e.seq for e in events if e.type == RECEIVE}
    assert acked == in_flight_acked, "an ack arrived after stop_sending returned"
    assert len(acked) >= 20
    assert acked <= received
