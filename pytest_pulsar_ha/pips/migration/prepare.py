"""Create on green what :func:`~pytest_pulsar_ha.pips.migration.preflight.preflight` found missing.

:func:`prepare` acts on the problems it can fix, in their order (tenants before namespaces before topics before
subscriptions), reading what it copies from blue at that moment; every other problem (credentials, blue's check
setting, the target URL, replication between blue and green) is the operator's, and left as it is.

**Where a subscription starts on green** (the rule of :func:`subscription_position`): at green's end of the topic
*as it is before the switch*, so that every message the redirected producers write to green is kept for the
subscription, even before its consumers arrive (they arrive only after draining blue), and nothing green held
before is delivered again:

* green has no message of the topic yet (the usual case, and always for a topic prepare creates): ``earliest``;
* green has messages and blue's topic is not migrated yet: ``latest`` (they predate the migration);
* green has messages and blue's topic is already migrated (prepare run after start): ``earliest``, because some
  of them may come from redirected producers; the subscription may then see messages twice rather than lose any.

Each subscription is created with ``PUT /admin/v2/persistent/{t}/{ns}/{topic}/subscription/{sub}?replicated=false``
and a ``MessageId`` body (``{"ledgerId": -1, "entryId": -1}`` is earliest, ``Long.MAX_VALUE`` both is latest).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.pips.migration.endpoints import ClusterEndpoint
from pytest_pulsar_ha.pips.migration.inventory import get_or_none, partitions_on
from pytest_pulsar_ha.pips.migration.preflight import (
    PreflightProblem,
    green_replication_clusters,
    split_subscription_where,
)
from pytest_pulsar_ha.pips.migration.status import topic_path

EARLIEST = {"ledgerId": -1, "entryId": -1, "partitionIndex": -1}
LATEST = {"ledgerId": 2**63 - 1, "entryId": 2**63 - 1, "partitionIndex": -1}
FIXED_BY_PREPARE = (
    "tenant-missing",
    "tenant-disallows-green",
    "namespace-missing",
    "partitioned-topic-missing",
    "partition-count-differs",
    "subscription-missing",
)


def subscription_position(green_messages: int, blue_migrated: bool) -> str:
    """``earliest`` or ``latest`` for a subscription created on green (see the module for the rule)."""
    return "latest" if green_messages and not blue_migrated else "earliest"


def _messages_on(admin: AdminClient, topic: str, partitioned: bool) -> int:
    """How many messages green's topic ever got (0 when it does not exist)."""
    stats = get_or_none(admin, f"{topic_path(topic)}/{'partitioned-stats' if partitioned else 'stats'}") or {}
    return int(stats.get("msgInCounter") or 0)


def _blue_migrated(admin: AdminClient, topic: str, partitions: int) -> bool:
    first = f"{topic}-partition-0" if partitions else topic
    properties = get_or_none(admin, f"{topic_path(first)}/properties") or {}
    return str(properties.get("migrated", "")).lower() == "true"


def prepare(
    blue: ClusterEndpoint,
    green: ClusterEndpoint,
    namespaces: Sequence[str] | None,
    problems: Sequence[PreflightProblem],
) -> list[str]:
    """Fix on green the problems of :data:`FIXED_BY_PREPARE`; returns what was done, one line per action.

    ``namespaces`` is the migration's scope (only used to say so when there is nothing to do).
    """
    blue_admin, green_admin = blue.admin(), green.admin()
    done: list[str] = []
    order = {code: i for i, code in enumerate(FIXED_BY_PREPARE)}
    todo = sorted((p for p in problems if p.code in order), key=lambda p: order[p.code])
    green_clusters = [c for c in green_admin.get("clusters") or [] if isinstance(c, str)]
    for problem in todo:
        if problem.code == "tenant-missing":
            info = blue_admin.get(f"tenants/{problem.where}") or {}
            allowed = green_replication_clusters(
                info.get("allowedClusters") or [], blue.name, green.name, green_clusters
            )
            body = {"adminRoles": info.get("adminRoles") or [], "allowedClusters": allowed}
            green_admin.put(f"tenants/{problem.where}", body)
            done.append(
                f"created tenant {problem.where} on {green.name} (admin roles {body['adminRoles']}, "
                f"allowed clusters {allowed})"
            )
        elif problem.code == "tenant-disallows-green":
            info = green_admin.get(f"tenants/{problem.where}") or {}
            allowed = [*(info.get("allowedClusters") or []), green.name]
            green_admin.post(f"tenants/{problem.where}", {**info, "allowedClusters": allowed})
            done.append(f"allowed cluster {green.name} in tenant {problem.where} on {green.name}")
        elif problem.code == "namespace-missing":
            policies = blue_admin.get(f"namespaces/{problem.where}") or {}
            clusters = green_replication_clusters(
                policies.get("replication_clusters") or [], blue.name, green.name, green_clusters
            )
            green_admin.put(f"namespaces/{problem.where}", {"replication_clusters": clusters})
            done.append(f"created namespace {problem.where} on {green.name} (replication clusters {clusters})")
        elif problem.code in ("partitioned-topic-missing", "partition-count-differs"):
            done += _partitions(blue_admin, green_admin, green.name, problem)
        elif problem.code == "subscription-missing":
            done.append(_subscription(blue_admin, green_admin, green.name, problem))
    if not done:
        scope = "the whole cluster" if namespaces is None else ", ".join(namespaces)
        done.append(f"nothing to create on {green.name} for {scope}")
    return done


def _partitions(blue: AdminClient, green: AdminClient, green_name: str, problem: PreflightProblem) -> list[str]:
    topic = problem.where
    count = int((blue.get(f"{topic_path(topic)}/partitions") or {}).get("partitions") or 0)
    current = partitions_on(green, topic)
    if current is None:
        green.put(f"{topic_path(topic)}/partitions", count)
        return [f"created partitioned topic {topic} on {green_name} with {count} partitions"]
    if current < count:
        green.post(f"{topic_path(topic)}/partitions", count)
        return [f"raised the partitions of {topic} on {green_name} from {current} to {count}"]
    return [
        f"left {topic} on {green_name} alone: it has {current} partitions, more than blue's {count} ({problem.fix})"
    ]


def _subscription(blue: AdminClient, green: AdminClient, green_name: str, problem: PreflightProblem) -> str:
    topic, subscription = split_subscription_where(problem.where)
    partitions = partitions_on(green, topic) or 0
    position = subscription_position(
        _messages_on(green, topic, bool(partitions)), _blue_migrated(blue, topic, partitions)
    )
    name = urllib.parse.quote(subscription, safe="")
    green.put(
        f"{topic_path(topic)}/subscription/{name}?replicated=false", EARLIEST if position == "earliest" else LATEST
    )
    return f"created subscription {subscription} of {topic} on {green_name} at {position}"
