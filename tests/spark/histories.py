"""Synthetic histories for the checker tests: a small builder and the scenarios the tests share."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from pytest_pulsar_ha.history import (
    ACK,
    FAULT_END,
    FAULT_START,
    PROBE,
    RECEIVE,
    SEND,
    SEND_ERROR,
    SWITCH,
    Event,
    HistoryWriter,
)

T0 = 1_700_000_000_000_000_000
MS = 1_000_000
S = 1_000_000_000
TOPIC = "persistent://pulsar-ha/ns/orders"
A, B = "cluster-a", "cluster-b"


class Builder:
    """Appends events in the order they are added; times are given in milliseconds after T0."""

    def __init__(self, topic: str = TOPIC) -> None:
        self.topic = topic
        self.events: list[Event] = []

    def add(self, at_ms: float, type: str, process: str, **fields: object) -> Builder:
        self.events.append(Event(ts_ns=T0 + int(at_ms * MS), type=type, process=process, **fields))  # type: ignore[arg-type]
        return self

    def send(self, at_ms: float, producer: str, seq: int, key: str | None = None) -> Builder:
        return self.add(at_ms, SEND, producer, topic=self.topic, producer=producer, seq=seq, key=key)

    def ack(self, at_ms: float, producer: str, seq: int, cluster: str, key: str | None = None) -> Builder:
        return self.add(
            at_ms,
            ACK,
            producer,
            cluster=cluster,
            topic=self.topic,
            producer=producer,
            seq=seq,
            key=key,
            message_id=f"{cluster}:{producer}:{seq}",
        )

    def send_error(self, at_ms: float, producer: str, seq: int, key: str | None = None) -> Builder:
        return self.add(
            at_ms,
            SEND_ERROR,
            producer,
            topic=self.topic,
            producer=producer,
            seq=seq,
            key=key,
            detail='{"error": "TimeOut"}',
        )

    def publish(self, at_ms: float, producer: str, seq: int, cluster: str, key: str | None = None) -> Builder:
        """A send acknowledged 2 ms later by ``cluster``."""
        return self.send(at_ms, producer, seq, key).ack(at_ms + 2, producer, seq, cluster, key)

    def receive(
        self,
        at_ms: float,
        subscription: str,
        producer: str,
        seq: int,
        cluster: str,
        key: str | None = None,
        consumer: str = "consumer-0",
    ) -> Builder:
        return self.add(
            at_ms,
            RECEIVE,
            consumer,
            cluster=cluster,
            topic=self.topic,
            subscription=subscription,
            producer=producer,
            seq=seq,
            key=key,
        )

    def without(self, type: str, **match: object) -> Builder:
        """Drop the events of ``type`` whose fields equal ``match``."""
        self.events = [
            e for e in self.events if not (e.type == type and all(getattr(e, k) == v for k, v in match.items()))
        ]
        return self

    def retime(self, type: str, at_ms: float, **match: object) -> Builder:
        """Move the events of ``type`` matching ``match`` to ``at_ms`` (file position unchanged)."""
        self.events = [
            replace(e, ts_ns=T0 + int(at_ms * MS))
            if e.type == type and all(getattr(e, k) == v for k, v in match.items())
            else e
            for e in self.events
        ]
        return self

    def write(self, path: Path) -> Path:
        """Write with the history writer (``.jsonl`` or ``.parquet`` from the name)."""
        with HistoryWriter(path) as writer:
            writer.extend(self.events)
        return path


def key_of(seq: int) -> str:
    return f"k{seq % 3}"


def failover_history(*, per_producer: int = 20, subscriptions: Iterable[str] = ("sub-1", "sub-2")) -> Builder:
    """Two producers, two clusters, two subscriptions; cluster-a fails in the middle and everyone moves to b.

    Phase 1 (0..~400 ms): each producer publishes seq 1..per_producer on cluster-a, every 20 ms; each
    subscription receives each message 5 ms after its ack, from cluster-a. At 500 ms cluster-a goes down: each
    producer's next send fails (send_error), the provider probes and switches to cluster-b at 800 ms. Phase 2
    (from 900 ms): the next per_producer messages are acknowledged by cluster-b and received from cluster-b. The
    longest window without acks is ~500 ms (under the 1 s default). Nothing is lost, duplicated or reordered.
    """
    b = Builder()
    producers = ("producer-0", "producer-1")
    subs = tuple(subscriptions)
    for i in range(per_producer):
        for p_index, producer in enumerate(producers):
            seq, at = i + 1, i * 20 + p_index * 3
            b.publish(at, producer, seq, A, key_of(seq))
            for s_index, sub in enumerate(subs):
                b.receive(at + 5 + s_index, sub, producer, seq, A, key_of(seq), consumer=f"consumer-{s_index}")
    b.add(500, FAULT_START, "nemesis", cluster=A, detail='{"fault": "outage"}')
    for p_index, producer in enumerate(producers):
        seq = per_producer + 1
        b.send(510 + p_index, producer, seq, key_of(seq)).send_error(700 + p_index, producer, seq, key_of(seq))
    b.add(750, PROBE, "provider", cluster=A, detail='{"ok": false}')
    b.add(760, PROBE, "provider", cluster=B, detail='{"ok": true}')
    b.add(800, SWITCH, "provider", cluster=B)
    for i in range(per_producer):
        for p_index, producer in enumerate(producers):
            seq, at = per_producer + 2 + i, 900 + i * 20 + p_index * 3
            b.publish(at, producer, seq, B, key_of(seq))
            for s_index, sub in enumerate(subs):
                b.receive(at + 5 + s_index, sub, producer, seq, B, key_of(seq), consumer=f"consumer-{s_index}")
    b.add(1800, FAULT_END, "nemesis", cluster=A, detail='{"fault": "outage"}')
    return b
