"""What each worker process of a fleet runs: its share of a :class:`~pytest_pulsar_ha.workload.plan.WorkloadPlan`
(producers and consumers spread over the processes), and how its client finds its cluster. Plain, picklable data:
a worker is started with the ``spawn`` method and gets nothing else from its parent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_pulsar_ha.workload.plan import WorkloadPlan


@dataclass(frozen=True)
class Service:
    """A service URL and the token of its cluster (None: no authentication)."""

    url: str
    token: str | None = None


@dataclass(frozen=True)
class ProducerSlot:
    name: str
    topic: str


@dataclass(frozen=True)
class ConsumerSlot:
    name: str
    topic: str
    subscription: str


@dataclass(frozen=True)
class WorkerConfig:
    """One worker's share of the plan and everything it needs to run it."""

    index: int
    service: Service
    """where the worker's client starts; later switches come from the conductor (``relayed``)"""
    relayed: bool
    """the client follows the conductor's provider (a relay provider), else it stays on ``service``"""
    consumer_service: Service | None
    """consumers on a client of their own, straight to this cluster (``consume_from``)"""
    client_options: dict[str, Any]
    producers: tuple[ProducerSlot, ...]
    consumers: tuple[ConsumerSlot, ...]
    rate_per_second: float
    """per producer"""
    subscription_type: str
    initial_position: str
    replicated_subscriptions: bool
    keys: int
    message_size: int
    batching: dict[str, Any]
    """the producers' batching arguments (:meth:`WorkloadPlan.batching_options`)"""
    send_timeout_ms: int
    seed: int
    consumer_delay_s: float
    max_pending: int
    out_dir: str
    """where the worker writes its history parts (``w<index>-<n>.parquet``)"""
    log_path: str
    """the worker's client log"""
    seeded: dict[int, str] = field(default_factory=dict)
    flush_s: float = 0.5


def split_plan(plan: WorkloadPlan, processes: int) -> list[tuple[list[ProducerSlot], list[ConsumerSlot]]]:
    """The producers and consumers of ``plan`` dealt over ``processes`` workers, round robin, consumers from the
    last worker backwards (so that with few of each they land in different processes). Names are the
    single-process workload's: ``producer-<i>`` over all topics, ``consumer-<i>`` per subscription index."""
    if processes < 1:
        raise ValueError(f"a fleet needs at least one process, not {processes}")
    shares: list[tuple[list[ProducerSlot], list[ConsumerSlot]]] = [([], []) for _ in range(processes)]
    consumers = [
        ConsumerSlot(f"consumer-{index}", topic, name)
        for topic in plan.topics
        for index, name in enumerate(plan.subscription_names())
    ]
    for number, consumer in enumerate(consumers):
        shares[processes - 1 - number % processes][1].append(consumer)
    topics = [topic for topic in plan.topics for _ in range(plan.producers)]
    for number, topic in enumerate(topics):
        shares[number % processes][0].append(ProducerSlot(f"producer-{number}", topic))
    return shares
