"""The catalogue of Pulsar deadlocks seen before, by name: what a scenario may declare (``expect_failure.deadlock``)
and what :mod:`pytest_pulsar_ha.checks.deadlocks` matches a JVM's deadlock block against (by its frames)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnownDeadlock:
    """A Pulsar deadlock seen before: every frame of ``frames`` appears in the dump (each thread's stack)."""

    name: str
    frames: tuple[str, ...]
    summary: str
    upstream: str
    """the upstream issue or pull request that names it (or the closest lead, said so in ``summary``)"""
    seen_on: tuple[str, ...]
    """the Pulsar versions it was seen on (a run on another version with the same frames is the same defect, seen
    there for the first time)"""


KNOWN_DEADLOCKS: tuple[KnownDeadlock, ...] = (
    KnownDeadlock(
        name="topic-migrated-single-active-consumer",
        frames=(
            "Consumer.topicMigrated",
            "PersistentDispatcherSingleActiveConsumer.readEntriesFailed",
            "AbstractDispatcherSingleActiveConsumer.removeConsumer",
            "PersistentSubscription.removeConsumer",
        ),
        summary=(
            "Pulsar 4.0.8 deadlocks in PIP-188 migration: Consumer.topicMigrated runs twice at once on one "
            "single-active-consumer subscription (from the dispatcher's readEntriesFailed, holding the dispatcher, "
            "and from an ack on pulsar-io, holding the subscription), each then waits for the other's lock; "
            "the broker stops serving that topic. Lead: apache/pulsar#26111 makes topicMigrated run once per "
            "consumer (open; not reported upstream as a deadlock yet)"
        ),
        upstream="https://github.com/apache/pulsar/pull/26111",
        seen_on=("4.0.8",),  # CI rehearsal #8, 2026-11-27 (docs/development.md)
    ),
)
