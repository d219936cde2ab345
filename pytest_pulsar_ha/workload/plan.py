"""What every client kind runs (the single-process workload, the fleet's workers, the Java driver): the
:class:`WorkloadPlan` built from a scenario's ``workload:``, the bound of a producer's pending sends, and the pace
of an open loop (:class:`RatePace`: how late its sends were issued)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

SUBSCRIPTION_TYPES = {"exclusive": "Exclusive", "shared": "Shared", "failover": "Failover", "key_shared": "KeyShared"}


@dataclass
class WorkloadPlan:
    """What a workload runs: per topic ``producers`` open-loop producers at ``rate_per_second`` each and
    ``consumers`` consumers of ``subscription_type``; built from a scenario's ``workload:`` or by hand."""

    topics: list[str]
    producers: int
    consumers: int
    subscription_type: str
    keys: int
    rate_per_second: float
    message_size: int
    duration_s: float
    replicated_subscriptions: bool
    send_timeout_ms: int
    seed: int
    consumer_delay_s: float = 0.0
    """seconds each consumer spends on a message before acknowledging it (a slow consumer builds a backlog)"""
    initial_position: str = "earliest"
    """where a subscription that does not exist yet starts: ``earliest`` or ``latest`` (the client's default)"""
    batching: bool = False
    """producers batch their sends (the client's default batching settings unless set below)"""
    batch_delay_ms: int = 10
    """with batching: the longest a batch waits for more messages (the Python client's default)"""
    batch_max_messages: int = 1000
    batch_max_bytes: int = 128 * 1024
    processes: int = 1
    """worker processes the producers and consumers are spread over (1: the single-process workload)"""
    deduplication: bool = False
    """producers are named (``producer-<i>``) and send their seq as the message's sequence id (broker-side
    deduplication is the namespace's policy, set up before the workload starts)"""
    ack: str = "individual"
    """``individual`` or ``cumulative``: how consumers acknowledge"""
    consume: str = "subscription"
    """``subscription`` (consumers) or ``reader`` (a Reader per consumer index, nothing acknowledged)"""
    batching_type: str = "default"
    """with batching: ``default`` or ``key_based``"""

    def batching_options(self) -> dict[str, Any]:
        """The ``create_producer`` arguments of the plan's batching."""
        if not self.batching:
            return {"batching_enabled": False}
        return {
            "batching_enabled": True,
            "batching_max_publish_delay_ms": self.batch_delay_ms,
            "batching_max_messages": self.batch_max_messages,
            "batching_max_allowed_size_in_bytes": self.batch_max_bytes,
        }

    def producer_options(self, name: str) -> dict[str, Any]:
        """The ``create_producer`` arguments beyond batching for the producer the history calls ``name``: its
        name, where the plan deduplicates (the broker tracks sequence ids per producer name)."""
        return {"producer_name": name} if self.deduplication else {}

    def subscription_names(self) -> list[str]:
        """The subscription of each consumer index (one shared name unless the subscription is exclusive)."""
        if self.consume == "reader":
            return [f"reader-{index}" for index in range(self.consumers)]
        if self.subscription_type == "exclusive":
            return [f"sub-{index}" for index in range(self.consumers)]
        return ["workload"] * self.consumers


PENDING_SECONDS = 2.0
"""A producer may have this many seconds of its sends in flight (at least :data:`MIN_PENDING`); one more fails
at once as a send error (``ProducerQueueIsFull``): the open loop never waits for the cluster, so a stuck cluster
shows as failed sends, not as a slower load."""
MIN_PENDING = 1000


def max_pending(rate_per_second: float) -> int:
    """The pending-queue bound of a producer sending ``rate_per_second``."""
    return max(MIN_PENDING, int(PENDING_SECONDS * rate_per_second))


LATE_S = 0.5
"""A send issued this long after its intended time was late: the workload, not the cluster, held it back."""
LATE_SHARE = 0.01
"""More late sends than this share of a producer's, and the run says that the workload did not keep its rate."""


@dataclass
class RatePace:
    """How many sends a producer issued, and how late its open loop issued them."""

    sends: int = 0
    late: int = 0
    max_lag_s: float = 0.0

    def issued(self, lag_s: float) -> None:
        self.sends += 1
        if lag_s > LATE_S:
            self.late += 1
        self.max_lag_s = max(self.max_lag_s, lag_s)

    def issued_range(self, first: int, end: int, elapsed_s: float, rate: float) -> None:
        """Sends ``first`` to ``end - 1`` (0-based, send ``i`` due at ``i / rate``) issued at ``elapsed_s``: the
        same figures as :meth:`issued` once per send with lag ``elapsed_s - i / rate``, in constant time."""
        if end <= first:
            return
        self.sends += end - first
        # send i is late when elapsed_s - i / rate > LATE_S, i.e. i < (elapsed_s - LATE_S) * rate
        bound = (elapsed_s - LATE_S) * rate
        late_end = min(end, max(first, math.ceil(bound)))
        while late_end > first and not elapsed_s - (late_end - 1) / rate > LATE_S:  # float edge: as issued() says
            late_end -= 1
        while late_end < end and elapsed_s - late_end / rate > LATE_S:
            late_end += 1
        self.late += late_end - first
        self.max_lag_s = max(self.max_lag_s, elapsed_s - first / rate)
