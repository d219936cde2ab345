"""The producers and consumers that run while the faults happen (``workload:``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

from pydantic import (
    Field,
    Strict,
    model_validator,
)

from pytest_pulsar_ha.scenario.base import (
    ClusterName,
    Count,
    DomainName,
    Loc,
    PositiveCount,
    PositiveDuration,
    TopicName,
    _duplicates,
    _Model,
    _raise_problems,
)
from pytest_pulsar_ha.scenario.quantities import Duration, Rate, Size

# -- workload ------------------------------------------------------------------------------------------------


class Topic(_Model):
    """A topic the workload produces to and consumes from."""

    name: TopicName
    partitions: Count = 0
    """0: a non-partitioned topic."""


class MetadataWrites(_Model):
    """Metadata updates (PIP-136) made while the workload runs: one policy of the workload's namespace (or its
    tenant's admin roles), written on each cluster of `writers` every `every`, each write with a value of its own."""

    policy: Literal["message_ttl", "retention", "tenant_admin_roles"]
    """What is written: the namespace's message TTL or retention, or the tenant's admin roles."""
    writers: tuple[ClusterName, ...] = Field(min_length=1)
    """The clusters the writes are made on (each writes on its own schedule)."""
    every: PositiveDuration
    """Time between two writes on one cluster."""
    start: Duration = Duration("1s")
    """When the first cluster writes first, from the start of the workload."""
    stagger: Duration = Duration("0s")
    """How much later each cluster of `writers` starts than the one before it (0s: all clusters write at the same
    moments, i.e. concurrent updates of the same policy)."""
    until: Duration | None = None
    """When the writes stop (default: the workload's duration)."""
    settle: PositiveDuration = Duration("30s")
    """How long, after the writes and the faults, the clusters are read until they agree (the reads that
    `converged` judges)."""

    @model_validator(mode="after")
    def _check(self) -> MetadataWrites:
        _raise_problems(_duplicates(self.writers, ("writers",), "cluster"))
        return self


class Workload(_Model):
    """The traffic that runs while the faults happen."""

    topics: tuple[Topic, ...] = Field(default=(Topic(name="events"),), min_length=1)
    """The topics (default: one non-partitioned topic named `events`)."""
    producers: PositiveCount = 1
    """Producers per topic."""
    consumers: Count = 1
    """Consumers per topic, all on one subscription."""
    subscription_type: Literal["exclusive", "shared", "failover", "key_shared"] = "exclusive"
    keys: Count = 0
    """Number of distinct message keys; each message takes one at random from the seed (0: no keys)."""
    rate: Rate = Rate("10/s")
    """Messages per second, per producer."""
    message_size: Size = Size("100B")
    """Payload size of each message."""
    batching: Annotated[bool, Strict()] | Literal["auto"] = "auto"
    """Let each producer batch its sends (the Python client's default batching: up to 1000 messages or 10 ms
    per batch). Every message is still one send, one ack and one receive in the history. `auto` (the default):
    unbatched up to the rate two clusters take unbatched (5,000 msg/s here, a stored figure), batched above it,
    as `pulsar-perf` and the Java client batch by default; never for the Java driver (the run's facts say
    which)."""
    processes: Annotated[int, Strict(), Field(ge=1, le=16)] | Literal["auto"] = "auto"
    """Worker processes the producers and consumers are spread over (1: all in the runner's process). Past a few
    thousand messages a second one Python process cannot keep the rate: each worker runs its share on a client of
    its own, writes its part of the history as it goes, and follows the provider's switches (the provider under
    test runs once, in the runner; docs/how-to/high-rate.md). `auto` (the default): one process where one keeps
    the offered rate, else as many as the rate needs, from stored per-process ceilings; one for the Java driver
    and the native provider, which cannot be spread (the run's facts say what one process keeps)."""
    duration: PositiveDuration
    """How long the producers send. Every fault must be over by then."""
    replicated_subscriptions: Annotated[bool, Strict()] = True
    """Replicate the subscription's position across clusters, so consumers resume after a switch."""
    replication: dict[ClusterName, tuple[ClusterName, ...]] | None = None
    """Each cluster's replication list for the workload's namespaces, e.g. `{blue: [blue], green: [green]}`
    (every cluster of the topology gets the namespace; one not named replicates with nobody). Default: every
    cluster replicates with every other, except the two sides of a `migrate` entry."""
    drain_timeout: PositiveDuration = Duration("90s")
    """How long to wait after the end for every acknowledged send to be received."""
    consumer_delay: Duration = Duration("0s")
    """How long each consumer spends on a message before acknowledging it: a consumer slower than the producers
    builds a backlog (e.g. so that draining a migrated cluster takes a while)."""
    initial_position: Literal["earliest", "latest"] = "earliest"
    """Where a subscription that does not exist yet starts (on any cluster, e.g. one clients are redirected to):
    `earliest`, or `latest` (the Pulsar client's default: messages written before the consumer arrives are
    not delivered to it)."""
    send_timeout: Duration = Duration("30s")
    """The producers' send timeout (0s: wait forever)."""
    consume_from: ClusterName | None = None
    """Consumers connect straight to this cluster instead of going through the provider (e.g. to read what
    geo-replication delivered to a backup)."""
    namespaces: Annotated[int, Strict(), Field(ge=1, le=64)] = 1
    """Namespaces the workload runs in: every topic is created in each of them (`namespaces: 4` with one topic
    makes 4 topics, each with its producers and consumers)."""
    anti_affinity_group: DomainName | None = None
    """Put every namespace of the workload in this PIP-7 anti-affinity group (before any topic is looked up)."""
    metadata: MetadataWrites | None = None
    """Metadata updates made while the messages flow (needs `topology.metadata_sync`)."""
    deduplication: Annotated[bool, Strict()] = False
    """Broker-side deduplication: set-up turns the namespace's deduplication policy on on every cluster, and each
    producer gets a stable name (`producer-<i>`, the history's) and sends its sequence number as the message's
    sequence id, the same across a switch to another cluster (the Python client)."""
    ack: Literal["individual", "cumulative"] = "individual"
    """How consumers acknowledge: each message (`individual`), or everything up to it (`cumulative`, after each
    message; exclusive or failover subscriptions only)."""
    consume: Literal["subscription", "reader"] = "subscription"
    """`subscription`: consumers on a subscription; `reader`: each consumer is a Reader instead (no subscription,
    nothing acknowledged), from the earliest message or the latest as `initial_position` says; the history
    names it `reader-<i>` where a consumer's subscription goes."""
    batching_type: Literal["default", "key_based"] = "default"
    """With batching on: `key_based` groups a batch by key (the batching Key_Shared needs for per-key order on
    several consumers); `default` batches messages of any key together."""

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster the workload names, with where (below ``workload``)."""
        if self.consume_from is not None:
            yield ("consume_from",), self.consume_from
        for name, members in (self.replication or {}).items():
            yield ("replication", name), name
            for index, member in enumerate(members):
                yield ("replication", name, index), member
        if self.metadata is not None:
            for index, name in enumerate(self.metadata.writers):
                yield ("metadata", "writers", index), name

    @model_validator(mode="after")
    def _check(self) -> Workload:
        problems = _duplicates(tuple(t.name for t in self.topics), ("topics",), "topic")
        problems = [((*loc, "name"), message) for loc, message in problems]
        for name, members in (self.replication or {}).items():
            if name not in members:
                problems.append(
                    (("replication", name), f"a cluster's replication list must include the cluster itself ({name!r})")
                )
        if self.subscription_type == "exclusive" and self.consumers > 1:
            problems.append(
                (
                    ("consumers",),
                    f"an exclusive subscription takes one consumer, found {self.consumers}; "
                    "use subscription_type shared, failover or key_shared",
                )
            )
        problems += self._consumption_problems()
        _raise_problems(problems)
        return self

    def single_process_options(self) -> list[tuple[str, str]]:
        """The options set here that only the Python client's single-process workload runs (name, value):
        deduplication, cumulative acks, readers, per-key batching."""
        chosen = [
            ("deduplication", "true" if self.deduplication else ""),
            ("ack", "" if self.ack == "individual" else self.ack),
            ("consume", "" if self.consume == "subscription" else self.consume),
            ("batching_type", "" if self.batching_type == "default" else self.batching_type),
        ]
        return [(name, value) for name, value in chosen if value]

    def _consumption_problems(self) -> list[tuple[Loc, str]]:
        """How consumers read, acknowledge and batch, against the subscription they use."""
        problems: list[tuple[Loc, str]] = []
        if self.ack == "cumulative" and self.consume == "reader":
            problems.append((("ack",), "a reader acknowledges nothing: ack cumulative needs consume: subscription"))
        elif self.ack == "cumulative" and self.subscription_type in ("shared", "key_shared"):
            problems.append(
                (
                    ("ack",),
                    f"Pulsar refuses cumulative acks on a {self.subscription_type} subscription; use "
                    "subscription_type exclusive or failover",
                )
            )
        if self.batching_type == "key_based":
            if self.batching is False:
                problems.append((("batching_type",), "batching_type key_based needs batching (true or auto)"))
            if self.subscription_type != "key_shared":
                problems.append(
                    (
                        ("batching_type",),
                        f"batching_type key_based is for a key_shared subscription, found {self.subscription_type}",
                    )
                )
        return problems
