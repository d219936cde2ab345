"""Prove geo-replication through the proxies: for every ordered pair of clusters, the single-process workload sends on
one and consumes on the other (one plan, two clients), until the first message arrives there."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pytest_pulsar_ha.history import RECEIVE, SEND, Event, EventLog
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings.clusters import ordered_pairs
from pytest_pulsar_ha.workload.plan import WorkloadPlan
from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload

PROBE_RATE_PER_SECOND = 10.0


@dataclass(frozen=True)
class ReplicationResult:
    """One direction: delivered or not, and the time from the send of the first message that arrived to its
    arrival (``seconds``)."""

    source: str
    target: str
    ok: bool
    seconds: float
    error: str = ""


def _plan(topic: str) -> WorkloadPlan:
    return WorkloadPlan(
        topics=[topic],
        producers=1,
        consumers=1,
        subscription_type="exclusive",
        keys=0,
        rate_per_second=PROBE_RATE_PER_SECOND,
        message_size=0,
        duration_s=0.0,
        replicated_subscriptions=False,
        send_timeout_ms=30_000,
        seed=0,
    )


def _delivery_seconds(events: list[Event]) -> float | None:
    """From the send of the first received message to its receipt, or None before any receipt."""
    first = next((e for e in events if e.type == RECEIVE), None)
    if first is None:
        return None
    sent = next(e for e in events if e.type == SEND and (e.producer, e.seq) == (first.producer, first.seq))
    return (first.ts_ns - sent.ts_ns) / 1e9


def probe_direction(src_client: object, dst_client: object, topic: str, timeout_seconds: float) -> float:
    """Seconds from a send on ``src_client`` to its receipt on ``dst_client``; ``TimeoutError`` when none came."""
    log = EventLog()
    workload = SingleProcessWorkload(src_client, _plan(topic), log, consumer_client=dst_client)
    try:
        workload.start()
        deadline = time.monotonic() + timeout_seconds
        while (seconds := _delivery_seconds(sorted(log.snapshot(), key=lambda e: e.ts_ns))) is None:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no message after {timeout_seconds:.0f}s")
            time.sleep(0.05)
        return seconds
    finally:
        workload.stop()


def prove_replication(
    env: PulsarHaEnvironment, namespace: str, timeout_seconds: float = 60.0
) -> list[ReplicationResult]:
    """Send on every cluster and wait for the messages on every other one (clients go through proxies)."""
    results = []
    clients = {name: env.client(name, operation_timeout_seconds=30) for name in env.names}
    try:
        for src, dst in ordered_pairs(env.names):
            topic = f"persistent://{namespace}/probe-{src}-to-{dst}"
            try:
                seconds = probe_direction(clients[src], clients[dst], topic, timeout_seconds)
                results.append(ReplicationResult(src, dst, True, seconds))
            except Exception as exc:  # reported, not raised: the demo prints every direction
                results.append(ReplicationResult(src, dst, False, 0.0, f"{type(exc).__name__}: {exc}"))
    finally:
        for client in clients.values():
            client.close()
    return results
