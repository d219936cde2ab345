"""Prove geo-replication through the proxies: a message sent on each cluster arrives on each other one."""

from __future__ import annotations

import functools
import time
import uuid
from dataclasses import dataclass

from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.runtime.topology import ordered_pairs
from pytest_pulsar_ha.workload.client_setup import create_with_retries


@dataclass(frozen=True)
class ReplicationResult:
    source: str
    target: str
    ok: bool
    seconds: float
    error: str = ""


def prove_replication(
    env: PulsarHaEnvironment, namespace: str, timeout_seconds: float = 60.0
) -> list[ReplicationResult]:
    """Send one message on every cluster and wait for it on every other one (clients go through proxies)."""
    import pulsar

    results = []
    clients = {name: env.client(name, operation_timeout_seconds=30) for name in env.names}
    try:
        for src, dst in ordered_pairs(env.names):
            topic = f"persistent://{namespace}/probe-{src}-to-{dst}"
            payload = f"{src}->{dst} {uuid.uuid4()}".encode()
            earliest = pulsar.InitialPosition.Earliest
            consumer = create_with_retries(
                functools.partial(clients[dst].subscribe, topic, "probe", initial_position=earliest)
            )
            producer = create_with_retries(functools.partial(clients[src].create_producer, topic))
            try:
                began = time.monotonic()
                producer.send(payload)
                deadline = began + timeout_seconds
                while True:
                    remaining_ms = int((deadline - time.monotonic()) * 1000)
                    if remaining_ms <= 0:
                        raise TimeoutError(f"no message after {timeout_seconds:.0f}s")
                    message = consumer.receive(timeout_millis=remaining_ms)
                    consumer.acknowledge(message)
                    if message.data() == payload:
                        break
                results.append(ReplicationResult(src, dst, True, time.monotonic() - began))
            except Exception as exc:  # reported, not raised: the demo prints every direction
                results.append(ReplicationResult(src, dst, False, 0.0, f"{type(exc).__name__}: {exc}"))
            finally:
                producer.close()
                consumer.close()
    finally:
        for client in clients.values():
            client.close()
    return results
