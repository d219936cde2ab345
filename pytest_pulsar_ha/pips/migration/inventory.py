"""What a migration moves, read from the clusters' admin APIs: the namespaces in scope, their topics (a partitioned
topic by its base name, with its partition count) and their durable subscriptions.

Reading a topic's stats loads it on its broker; that is intended: blue's periodic migration check acts only on
loaded topics, so the inventory (and :func:`~pytest_pulsar_ha.pips.migration.status.topic_status`) also
makes sure every topic in scope is looked at by the check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError
from pytest_pulsar_ha.pips.migration.status import is_system_topic, topic_path, topics_of

SYSTEM_TENANTS = frozenset({"pulsar"})
"""Pulsar's own tenant (``pulsar/system``, the brokers' heartbeat namespaces): never migrated."""
SYSTEM_NAMESPACES = frozenset({"public/functions"})
"""The functions worker's namespace (absent on a standalone run with ``--no-functions-worker``)."""
_NAMESPACE = re.compile(r"^[^/\s]+/[^/\s]+$")
_PARTITION = re.compile(r"^(?P<base>.+)-partition-(?P<index>\d+)$")


def is_system_namespace(namespace: str) -> bool:
    return namespace.split("/", 1)[0] in SYSTEM_TENANTS or namespace in SYSTEM_NAMESPACES


def check_namespace_names(namespaces: Iterable[str]) -> list[str]:
    """Each name as ``tenant/namespace`` (duplicates dropped); ValueError naming the first bad one."""
    names = list(dict.fromkeys(namespaces))
    for name in names:
        if not _NAMESPACE.match(name):
            raise ValueError(f"namespace {name!r} is not of the form tenant/namespace")
    return names


def select_scope(namespaces_by_tenant: Mapping[str, Sequence[str]]) -> list[str]:
    """The whole-cluster scope from blue's listing: every namespace except Pulsar's own, sorted."""
    return sorted(
        ns
        for tenant, listed in namespaces_by_tenant.items()
        if tenant not in SYSTEM_TENANTS
        for ns in listed
        if not is_system_namespace(ns)
    )


def scope_namespaces(admin: AdminClient, namespaces: Sequence[str] | None) -> list[str]:
    """The namespaces a migration covers: those named, or (None) every namespace of the cluster but Pulsar's own."""
    if namespaces is not None:
        return check_namespace_names(namespaces)
    tenants = [t for t in admin.get("tenants") or [] if isinstance(t, str)]
    return select_scope({t: list(admin.get(f"namespaces/{t}") or []) for t in tenants if t not in SYSTEM_TENANTS})


@dataclass(frozen=True)
class TopicInventory:
    topic: str
    """``persistent://tenant/ns/name``; a partitioned topic by its base name"""
    partitions: int
    """0: not partitioned"""
    subscriptions: tuple[str, ...]
    """durable subscriptions, sorted (readers' non-durable cursors are left out: nothing to move)"""


def durable_subscriptions(stats: Mapping[str, Any]) -> tuple[str, ...]:
    """The durable subscriptions named in a topic's (or partitioned topic's) stats."""
    subscriptions = stats.get("subscriptions") or {}
    return tuple(
        sorted(name for name, sub in subscriptions.items() if not isinstance(sub, dict) or sub.get("isDurable", True))
    )


def split_partitions(listed: Sequence[str], partitioned: Sequence[str]) -> list[str]:
    """The non-partitioned topics of a listing: every topic that is not a partition of a partitioned topic."""
    bases = set(partitioned)
    plain = []
    for topic in listed:
        match = _PARTITION.match(topic)
        if match and match["base"] in bases:
            continue
        plain.append(topic)
    return plain


def namespace_inventory(admin: AdminClient, namespace: str) -> list[TopicInventory]:
    """Every persistent topic of ``namespace`` on this cluster, Pulsar's own topics left out."""
    partitioned = sorted(
        t
        for t in admin.get(f"persistent/{namespace}/partitioned") or []
        if isinstance(t, str) and t.startswith("persistent://") and not is_system_topic(t)
    )
    found = []
    for topic in partitioned:
        path = topic_path(topic)
        count = int((admin.get(f"{path}/partitions") or {}).get("partitions") or 0)
        stats = admin.get(f"{path}/partitioned-stats") or {}
        found.append(TopicInventory(topic, count, durable_subscriptions(stats)))
    for topic in split_partitions(topics_of(admin, namespace), partitioned):
        stats = admin.get(f"{topic_path(topic)}/stats") or {}
        found.append(TopicInventory(topic, 0, durable_subscriptions(stats)))
    return sorted(found, key=lambda t: t.topic)


def get_or_none(admin: AdminClient, path: str) -> Any:
    """GET, with 404 read as None (the thing is not there)."""
    try:
        return admin.get(path)
    except AdminError as exc:
        if exc.status == 404:
            return None
        raise


def partitions_on(admin: AdminClient, topic: str) -> int | None:
    """The partition count of ``topic`` on this cluster: None when it has no partitioned metadata."""
    answer = get_or_none(admin, f"{topic_path(topic)}/partitions")
    count = int((answer or {}).get("partitions") or 0)
    return count or None


def subscriptions_on(admin: AdminClient, topic: str) -> set[str]:
    """The subscriptions of ``topic`` on this cluster (empty when the topic does not exist there)."""
    answer = get_or_none(admin, f"{topic_path(topic)}/subscriptions")
    return {s for s in answer or [] if isinstance(s, str)}
