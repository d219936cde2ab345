"""Where a migration stands, per topic, read from blue's admin API (nothing is taken from what was asked).

A topic is *migrated* when its managed ledger carries the property ``migrated=true``
(``GET /admin/v2/persistent/{topic}/properties``; PIP-188's "migrated" topic-stats flag is not in 4.0.8). Its
stats say what still holds it on blue: producers connected (they leave once blue redirects them, which it does
only when no replicator has backlog), subscriptions with backlog (their consumers stay until they drain),
replicators with backlog (to every other cluster the topic replicates to).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError


@dataclass(frozen=True)
class TopicStatus:
    topic: str
    """``persistent://tenant/ns/name`` (a partition is a topic of its own)"""
    migrated: bool | None
    """None: unknown (the reading failed, see ``error``)"""
    producers: int = 0
    consumers: int = 0
    subscription_backlogs: dict[str, int] = field(default_factory=dict)
    replication_backlogs: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    @property
    def done(self) -> bool:
        """Migrated, with nothing left on blue: no producer, no consumer, no backlog."""
        return bool(self.migrated) and not self.producers and not self.consumers and not self.backlog

    @property
    def backlog(self) -> int:
        return sum(self.subscription_backlogs.values()) + sum(self.replication_backlogs.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "migrated": self.migrated,
            "done": self.done,
            "producers": self.producers,
            "consumers": self.consumers,
            "subscription_backlogs": self.subscription_backlogs,
            "replication_backlogs": self.replication_backlogs,
            "error": self.error,
        }

    def describe(self) -> str:
        if self.migrated is None:
            return f"{self.topic}: unknown ({self.error})"
        parts = ["migrated" if self.migrated else "not migrated"]
        if self.producers:
            parts.append(f"{self.producers} producer(s) on blue")
        if self.consumers:
            parts.append(f"{self.consumers} consumer(s) on blue")
        parts += [f"subscription {s} backlog {n}" for s, n in self.subscription_backlogs.items() if n]
        parts += [f"replication to {c} backlog {n}" for c, n in self.replication_backlogs.items() if n]
        return f"{self.topic}: " + ", ".join(parts)


def topic_path(topic: str) -> str:
    """``persistent://t/ns/name`` -> ``persistent/t/ns/name`` (the admin path, name URL-encoded)."""
    domain, _, rest = topic.partition("://")
    tenant, namespace, name = rest.split("/", 2)
    return f"{domain}/{tenant}/{namespace}/{urllib.parse.quote(name, safe='')}"


def is_system_topic(topic: str) -> bool:
    """Pulsar's own topics (``__change_events``, ``__transaction_buffer_snapshot``, ...): their local name starts
    with ``__``. Blue's migration check skips them (4.0.2+, apache/pulsar#23767), so they never migrate."""
    _, _, rest = topic.partition("://")
    return rest.split("/", 2)[-1].startswith("__")


def topics_of(admin: AdminClient, namespace: str, *, include_system: bool = False) -> list[str]:
    """Every persistent topic of ``namespace`` (partitions listed one by one), sorted; Pulsar's own topics only
    with ``include_system`` (they never migrate, see :func:`is_system_topic`)."""
    listed = admin.get(f"persistent/{namespace}") or []
    return sorted(
        t
        for t in listed
        if isinstance(t, str) and t.startswith("persistent://") and (include_system or not is_system_topic(t))
    )


def topic_status(admin: AdminClient, topic: str) -> TopicStatus:
    """One topic's migration status on blue."""
    path = topic_path(topic)
    try:
        properties = admin.get(f"{path}/properties") or {}
        stats = admin.get(f"{path}/stats") or {}
    except AdminError as exc:
        return TopicStatus(topic, None, error=f"HTTP {exc.status}: {exc.body.strip()[:200]}")
    except OSError as exc:
        return TopicStatus(topic, None, error=str(exc))
    subscriptions = stats.get("subscriptions") or {}
    replication = stats.get("replication") or {}
    return TopicStatus(
        topic,
        str(properties.get("migrated", "")).lower() == "true",
        producers=len(stats.get("publishers") or []),
        consumers=sum(len(s.get("consumers") or []) for s in subscriptions.values()),
        subscription_backlogs={name: int(s.get("msgBacklog") or 0) for name, s in subscriptions.items()},
        replication_backlogs={name: int(r.get("replicationBacklog") or 0) for name, r in replication.items()},
    )


def namespace_status(admin: AdminClient, namespaces: Sequence[str]) -> list[TopicStatus]:
    """The status of every topic of ``namespaces`` on blue."""
    return [topic_status(admin, topic) for namespace in namespaces for topic in topics_of(admin, namespace)]
