"""The single-process workload (:class:`~pytest_pulsar_ha.workload.single_process.SingleProcessWorkload`) with a
one-topic plan, for tests and benchmarks that hold a client themselves (e.g. a failover provider's): a steady
open-loop producer and one consumer, recorded in a history like a scenario's, with questions asked of that history.

Which cluster acknowledged a send is read from the brokers' storage by :meth:`OneTopicWorkload.attribute` (the same
attribution as the scenarios', :mod:`pytest_pulsar_ha.workload.storage_lookup`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pytest_pulsar_ha.history import ACK, RECEIVE, SEND_ERROR, Event, EventLog
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.plan import WorkloadPlan
from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload


@dataclass(frozen=True)
class Ack:
    """One acknowledged send: its sequence number, when the client got the ack (epoch seconds) and, once
    attributed, the cluster that stored it."""

    seq: int
    ts: float
    message_id: str | None
    cluster: str | None

    @classmethod
    def of(cls, event: Event) -> Ack:
        return cls(event.seq or 0, event.ts_ns / 1e9, event.message_id, event.cluster)


class OneTopicWorkload:
    """Sends every ``interval`` seconds to ``topic`` through ``client`` (open loop: on time whether or not the
    cluster answers) and consumes on one exclusive subscription; everything goes into :attr:`log`."""

    def __init__(self, client: Any, topic: str, *, interval: float = 0.05, send_timeout_ms: int = 1500) -> None:
        self.topic = topic
        self.log = EventLog()
        plan = WorkloadPlan(
            topics=[topic],
            producers=1,
            consumers=1,
            subscription_type="exclusive",
            keys=0,
            rate_per_second=1.0 / interval,
            message_size=0,
            duration_s=0.0,
            replicated_subscriptions=True,
            send_timeout_ms=send_timeout_ms,
            seed=0,
        )
        self.workload = SingleProcessWorkload(client, plan, self.log)
        self.stopped = False

    def start(self) -> OneTopicWorkload:
        self.workload.start()
        return self

    @property
    def events(self) -> list[Event]:
        return self.log.snapshot()

    @property
    def acks(self) -> list[Ack]:
        return [Ack.of(e) for e in self.events if e.type == ACK]

    @property
    def failures(self) -> int:
        return sum(1 for e in self.events if e.type == SEND_ERROR)

    def wait_for_acks(self, count: int, timeout: float = 60) -> None:
        """Wait until ``count`` more sends were acknowledged; raise ``TimeoutError`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        start = len(self.acks)
        while len(self.acks) < start + count:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"fewer than {count} acks in {timeout}s ({self.failures} failed sends)")
            time.sleep(0.05)

    def stop(self, drain_timeout: float = 90) -> None:
        """Stop sending; keep consuming until every acknowledged send was received or the time is up."""
        self.stopped = True
        self.workload.stop_sending()
        self.workload.drain(drain_timeout)
        self.workload.stop()
        errors = self.workload.callback_errors
        if errors:
            raise RuntimeError(f"{len(errors)} send callback(s) failed, first: {errors[0]}")

    def lost(self) -> list[int]:
        """Sequence numbers acknowledged and never received."""
        events = self.events
        received = {e.seq for e in events if e.type == RECEIVE}
        return sorted({e.seq or 0 for e in events if e.type == ACK and e.seq not in received})

    def attribute(self, env: PulsarHaEnvironment) -> None:
        """Fill in the acknowledging cluster of every ack (and the delivering one of every receive)."""
        self.workload.attribute_acks(
            {name: cluster.admin for name, cluster in env.clusters.items()}, env.seeded_ledger_ids()
        )

    def first_ack_on(self, cluster: str, after: float) -> Ack | None:
        return next((a for a in self.acks if a.ts >= after and a.cluster == cluster), None)

    def clusters_between(self, start: float, end: float) -> set[str | None]:
        return {a.cluster for a in self.acks if start <= a.ts < end}
