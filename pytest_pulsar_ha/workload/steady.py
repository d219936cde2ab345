"""A steady producer and a consumer on one client (e.g. a failover provider's), recording what they observe.

Every acknowledged send keeps its message id, so :meth:`Workload.attribute` can tell from the brokers' storage
which cluster acknowledged it (see :mod:`pytest_pulsar_ha.workload.attribution`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.attribution import acknowledging_cluster
from pytest_pulsar_ha.workload.client_setup import create_with_retries


@dataclass
class Ack:
    seq: int
    payload: bytes
    ts: float
    ledger_id: int
    entry_id: int
    cluster: str | None = None


@dataclass
class Workload:
    """Sends ``seq`` payloads every ``interval`` through ``client`` and consumes them on one subscription."""

    client: Any
    topic: str
    interval: float = 0.05
    send_timeout_ms: int = 1500
    acks: list[Ack] = field(default_factory=list)
    failures: int = 0
    received: set[bytes] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    consumer: Any = None
    producer: Any = None

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def start(self) -> Workload:
        import pulsar

        self.consumer = create_with_retries(
            lambda: self.client.subscribe(
                self.topic,
                "workload",
                replicate_subscription_state_enabled=True,
                initial_position=pulsar.InitialPosition.Earliest,
            )
        )
        self.producer = create_with_retries(
            lambda: self.client.create_producer(self.topic, send_timeout_millis=self.send_timeout_ms)
        )
        self._threads = [
            threading.Thread(target=self._produce, daemon=True),
            threading.Thread(target=self._consume, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        return self

    def _produce(self) -> None:
        import pulsar

        seq = 0
        while not self._stop.is_set():
            seq += 1
            payload = f"{self.topic}#{seq}".encode()
            try:
                msg_id = self.producer.send(payload)
                self.acks.append(Ack(seq, payload, time.time(), msg_id.ledger_id(), msg_id.entry_id()))
            except pulsar.PulsarException:
                self.failures += 1
            self._stop.wait(self.interval)

    def _consume(self) -> None:
        import pulsar

        while not self._stop.is_set() or not self._drained():
            try:
                message = self.consumer.receive(timeout_millis=500)
            except pulsar.PulsarException:
                continue
            self.received.add(message.data())
            with contextlib.suppress(pulsar.PulsarException):
                self.consumer.acknowledge(message)

    def _drained(self) -> bool:
        return all(a.payload in self.received for a in self.acks)

    def wait_for_acks(self, count: int, timeout: float = 60) -> None:
        """Wait until ``count`` more sends were acknowledged; raise ``TimeoutError`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        start = len(self.acks)
        while len(self.acks) < start + count:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"fewer than {count} acks in {timeout}s ({self.failures} failures)")
            time.sleep(0.05)

    def stop(self, drain_timeout: float = 90) -> None:
        """Stop sending; keep consuming until every acknowledged send was received or the time is up."""
        self._stop.set()
        self._threads[0].join()
        deadline = time.monotonic() + drain_timeout
        while not self._drained() and time.monotonic() < deadline:
            time.sleep(0.2)
        self._threads[1].join(timeout=5)

    def lost(self) -> list[int]:
        return [a.seq for a in self.acks if a.payload not in self.received]

    def attribute(self, env: PulsarHaEnvironment) -> None:
        admins = {name: cluster.admin for name, cluster in env.clusters.items()}
        for ack in self.acks:
            ack.cluster = acknowledging_cluster(admins, self.topic, ack.ledger_id, ack.entry_id, ack.payload)

    def first_ack_on(self, cluster: str, after: float) -> Ack | None:
        return next((a for a in self.acks if a.ts >= after and a.cluster == cluster), None)

    def clusters_between(self, start: float, end: float) -> set[str | None]:
        return {a.cluster for a in self.acks if start <= a.ts < end}
