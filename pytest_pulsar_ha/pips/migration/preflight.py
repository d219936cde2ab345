"""Before a PIP-188 migration: every problem that would make it lose or strand messages, each with what to do.

:func:`preflight` reads blue and green (nothing is changed) and returns :class:`PreflightProblem` s, in the order
an operator fixes them. The codes are stable ids:

================================== =====================================================================
code                               what would go wrong
================================== =====================================================================
``blue-unreachable``               nothing can be checked (blue's admin API does not answer)
``green-unreachable``              green's admin API does not answer, or does not know itself by that name
``target-url-unusable``            the ``ClusterUrl`` blue would hand to clients is unusable (4.0.8 accepts
                                   a body without broker URL: its empty check is inverted), or nothing
                                   accepts TCP connections at green's broker URL
``migration-check-off``            blue's ``clusterMigrationCheckDurationSeconds`` is 0 or absent: the
                                   switch is stored and nothing ever migrates
``not-on-blue``                    a namespace named for the migration does not exist on blue
``replicated-between-blue-and-green`` the namespace replicates between blue and green (on either side): the
                                   replicator itself would be redirected; duplicates or a loop
``replication-clusters-differ``    blue replicates the namespace to a cluster green does not (or does not
                                   know): after the switch nothing reaches that cluster any more
``credentials-refused``            green refuses the credentials clients present (the redirect hands them
                                   blue's): every redirected producer and consumer fails
``tenant-missing``                 the tenant is not on green: redirected clients find no topic
``tenant-disallows-green``         the tenant exists on green but does not allow the green cluster
``namespace-missing``              the namespace is not on green
``partitioned-topic-missing``      a partitioned topic is not partitioned on green: producers would write
                                   to one non-partitioned topic of that name
``partition-count-differs``        green's partition count differs (keys land on other partitions)
``subscription-missing``           a durable subscription is not on green: it would be created by its
                                   consumer at *its* initial position (default latest), losing what the
                                   redirected producers wrote before it arrived
================================== =====================================================================

``where`` is a tenant (``t``), a namespace (``t/ns``), a topic (``persistent://t/ns/x``), a subscription
(``persistent://t/ns/x/subscription/sub``, :func:`subscription_where`) or a cluster name.
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.errors import AdminError
from pytest_pulsar_ha.pips.migration.endpoints import ClusterEndpoint, target_url_problems
from pytest_pulsar_ha.pips.migration.inventory import (
    TopicInventory,
    get_or_none,
    namespace_inventory,
    partitions_on,
    scope_namespaces,
    subscriptions_on,
)
from pytest_pulsar_ha.pips.migration.status import topic_path

MIGRATION_CHECK_KEY = "clusterMigrationCheckDurationSeconds"
RUNTIME_CONFIGURATION = "brokers/configuration/runtime"
"""``GET /admin/v2/brokers/configuration/runtime``: every setting of the answering broker, values as strings"""
TCP_TIMEOUT = 3.0
SUBSCRIPTION_SEPARATOR = "/subscription/"


@dataclass(frozen=True)
class PreflightProblem:
    code: str
    """a short stable id (see the module)"""
    where: str
    """tenant, namespace, topic, subscription or cluster"""
    what: str
    """one sentence: what is wrong and what it would do to messages"""
    fix: str
    """what to do, with the exact pulsar-admin command or REST call where useful"""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)

    def describe(self) -> str:
        return f"[{self.code}] {self.where}: {self.what}\n    fix: {self.fix}"


def subscription_where(topic: str, subscription: str) -> str:
    return f"{topic}{SUBSCRIPTION_SEPARATOR}{subscription}"


def split_subscription_where(where: str) -> tuple[str, str]:
    topic, _, subscription = where.partition(SUBSCRIPTION_SEPARATOR)
    return topic, subscription


def green_replication_clusters(blue_clusters: Sequence[str], blue: str, green: str, known: Sequence[str]) -> list[str]:
    """The replication clusters of a namespace created on green: green itself, then each cluster of blue's list
    that green knows, never blue (green replicating to blue would be redirected back to green)."""
    chosen = [green]
    for cluster in blue_clusters:
        if cluster not in (blue, green) and cluster in known and cluster not in chosen:
            chosen.append(cluster)
    return chosen


def migration_check_seconds(runtime_configuration: Any) -> float | None:
    """blue's ``clusterMigrationCheckDurationSeconds`` from its runtime configuration (None: absent or not a number)."""
    if not isinstance(runtime_configuration, dict):
        return None
    try:
        return float(runtime_configuration.get(MIGRATION_CHECK_KEY))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _admin_cmd(endpoint: ClusterEndpoint) -> str:
    return f"pulsar-admin --admin-url {endpoint.admin_url}"


def _unreachable(endpoint: ClusterEndpoint, role: str) -> tuple[list[str] | None, PreflightProblem | None]:
    """The cluster names ``endpoint`` knows, or the problem of reaching it."""
    try:
        clusters = endpoint.admin().get("clusters")
    except AdminError as exc:
        reason = f"answered HTTP {exc.status} to GET /admin/v2/clusters"
        if exc.status in (401, 403):
            reason += f" (this tool's own credentials were refused: give --{role}-token)"
    except OSError as exc:
        reason = f"does not answer ({exc})"
    else:
        names = [c for c in clusters or [] if isinstance(c, str)]
        if endpoint.name in names:
            return names, None
        reason = f"knows no cluster named {endpoint.name!r} (it knows {', '.join(names) or 'none'})"
    code = f"{role}-unreachable"
    problem = PreflightProblem(
        code,
        endpoint.name,
        f"{role}'s admin API at {endpoint.admin_url} {reason}; nothing on {role} can be checked or prepared.",
        f"check the URL and the name (curl {endpoint.admin_url}/admin/v2/clusters lists the names it knows), "
        f"and that {role} is up",
    )
    return None, problem


def _target_problems(green: ClusterEndpoint, tcp_timeout: float) -> list[PreflightProblem]:
    body = green.cluster_url()
    reasons = target_url_problems(body)
    if not reasons and green.broker_service_url:
        parsed = urllib.parse.urlsplit(green.broker_service_url)
        try:
            with socket.create_connection((parsed.hostname or "", parsed.port or 0), timeout=tcp_timeout):
                pass
        except OSError as exc:
            reasons.append(f"nothing accepts TCP connections at {parsed.hostname}:{parsed.port} ({exc})")
    if not reasons:
        return []
    return [
        PreflightProblem(
            "target-url-unusable",
            green.name,
            f"the target URL {body} cannot be followed by clients: {'; '.join(reasons)}.",
            "give green's broker URL as clients reach it (--green-broker-url pulsar://host:6650, or "
            "pulsar+ssl://host:6651), from where the clients run",
        )
    ]


def _migration_check_problems(blue: ClusterEndpoint, admin: AdminClient) -> list[PreflightProblem]:
    seconds = migration_check_seconds(admin.get(RUNTIME_CONFIGURATION))
    if seconds is not None and seconds > 0:
        return []
    shown = "absent" if seconds is None else f"{seconds:g}"
    return [
        PreflightProblem(
            "migration-check-off",
            blue.name,
            f"blue's {MIGRATION_CHECK_KEY} is {shown}: the broker never runs its migration check, so the switch "
            "would be stored and no topic would ever migrate.",
            f"set {MIGRATION_CHECK_KEY}=30 (any value > 0) in broker.conf (standalone.conf) of every blue broker "
            "and restart them (not a dynamic setting in 4.0.8); check with "
            f"curl {blue.admin_url}/admin/v2/{RUNTIME_CONFIGURATION}",
        )
    ]


def _credential_problems(
    green: ClusterEndpoint, token: str | None, namespaces: Sequence[str], timeout: float
) -> list[PreflightProblem]:
    """A lookup on green with the clients' credentials, as a redirected client makes it; 401/403 = refused."""
    if namespaces:
        probe = f"lookup/v2/topic/{topic_path(f'persistent://{namespaces[0]}/pulsar-ha-preflight')}"
    else:
        probe = "admin/v2/clusters"
    url = f"{green.admin_url.rstrip('/')}/{probe}"
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout):
            return []
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError:
        return []  # green-unreachable says it
    if status not in (401, 403):
        return []
    presented = "no credentials" if not token else "the token clients use (blue's unless --client-token)"
    return [
        PreflightProblem(
            "credentials-refused",
            green.name,
            f"green answered HTTP {status} to a lookup with {presented}: the redirect hands clients' blue "
            "credentials to green, so every redirected producer and consumer would fail to connect.",
            "make green accept the clients' token: the same tokenSecretKey (or tokenPublicKey) on green as on blue, "
            "or give the clients' roles produce/consume permission on green "
            "(pulsar-admin namespaces grant-permission NS --role ROLE --actions produce,consume)",
        )
    ]


class _Checker:
    """The checks that read resources on both sides, one namespace at a time."""

    def __init__(self, blue: ClusterEndpoint, green: ClusterEndpoint, green_clusters: Sequence[str]) -> None:
        self.blue, self.green = blue, green
        self.blue_admin, self.green_admin = blue.admin(), green.admin()
        self.green_clusters = list(green_clusters)
        self.problems: list[PreflightProblem] = []
        self._tenants_seen: set[str] = set()

    def add(self, code: str, where: str, what: str, fix: str) -> None:
        self.problems.append(PreflightProblem(code, where, what, fix))

    def tenant(self, tenant: str) -> None:
        if tenant in self._tenants_seen:
            return
        self._tenants_seen.add(tenant)
        info = get_or_none(self.green_admin, f"tenants/{tenant}")
        g = self.green.name
        if info is None:
            self.add(
                "tenant-missing",
                tenant,
                f"tenant {tenant} does not exist on green: redirected clients would find none of its topics.",
                f"{_admin_cmd(self.green)} tenants create {tenant} --allowed-clusters {g} (or: pulsar-ha migrate "
                "prepare, which copies blue's admin roles)",
            )
        elif g not in (info.get("allowedClusters") or []):
            allowed = [*(info.get("allowedClusters") or []), g]
            self.add(
                "tenant-disallows-green",
                tenant,
                f"tenant {tenant} on green does not allow cluster {g}: its namespaces cannot be created or served "
                "there.",
                f"{_admin_cmd(self.green)} tenants update {tenant} --allowed-clusters {','.join(allowed)}",
            )

    def namespace(self, namespace: str) -> None:
        policies = get_or_none(self.blue_admin, f"namespaces/{namespace}")
        b, g = self.blue.name, self.green.name
        if policies is None:
            self.add(
                "not-on-blue",
                namespace,
                f"namespace {namespace} does not exist on blue: there is nothing to migrate and the switch fails.",
                f"check the name: {_admin_cmd(self.blue)} namespaces list {namespace.split('/')[0]}",
            )
            return
        blue_replication = list(policies.get("replication_clusters") or [])
        if g in blue_replication:
            self.add(
                "replicated-between-blue-and-green",
                namespace,
                f"on blue, {namespace} replicates to green ({', '.join(blue_replication)}): blue's replicator "
                "to green would itself be redirected, and green already has the messages (duplicates, a loop).",
                f"{_admin_cmd(self.blue)} namespaces set-clusters {namespace} --clusters "
                + ",".join(c for c in blue_replication if c != g),
            )
        self.tenant(namespace.split("/", 1)[0])
        green_policies = get_or_none(self.green_admin, f"namespaces/{namespace}")
        wanted = green_replication_clusters(blue_replication, b, g, self.green_clusters)
        unknown = [c for c in blue_replication if c not in (b, g) and c not in self.green_clusters]
        if unknown:
            self.add(
                "replication-clusters-differ",
                namespace,
                f"blue replicates {namespace} to {', '.join(unknown)}, which green does not know: after the switch "
                "nothing reaches them any more.",
                f"register them on green: {_admin_cmd(self.green)} clusters create CLUSTER --url http://... "
                "--broker-url pulsar://...",
            )
        if green_policies is None:
            self.add(
                "namespace-missing",
                namespace,
                f"namespace {namespace} does not exist on green: redirected clients would find no topic.",
                f"{_admin_cmd(self.green)} namespaces create {namespace} --clusters {','.join(wanted)}",
            )
        else:
            green_replication = list(green_policies.get("replication_clusters") or [])
            if b in green_replication:
                self.add(
                    "replicated-between-blue-and-green",
                    namespace,
                    f"on green, {namespace} replicates to blue ({', '.join(green_replication)}): green's "
                    "replicator would be redirected back to green by blue.",
                    f"{_admin_cmd(self.green)} namespaces set-clusters {namespace} --clusters "
                    + ",".join(c for c in green_replication if c != b),
                )
            missing = [c for c in wanted if c not in green_replication]
            if missing and not unknown:
                self.add(
                    "replication-clusters-differ",
                    namespace,
                    f"blue replicates {namespace} to {', '.join(missing)}, green does not: after the switch "
                    "nothing reaches them any more.",
                    f"{_admin_cmd(self.green)} namespaces set-clusters {namespace} --clusters "
                    + ",".join(dict.fromkeys([*green_replication, *missing])),
                )
        for topic in namespace_inventory(self.blue_admin, namespace):
            self.topic(topic, green_exists=green_policies is not None)

    def topic(self, topic: TopicInventory, *, green_exists: bool) -> None:
        green_count = partitions_on(self.green_admin, topic.topic) if green_exists else None
        cmd = _admin_cmd(self.green)
        if topic.partitions and green_count is None:
            self.add(
                "partitioned-topic-missing",
                topic.topic,
                f"{topic.topic} has {topic.partitions} partitions on blue and none on green: redirected producers "
                "would write to a non-partitioned topic of that name that the consumers do not read.",
                f"{cmd} topics create-partitioned-topic {topic.topic} --partitions {topic.partitions}",
            )
        elif topic.partitions and green_count != topic.partitions:
            fix = (
                f"{cmd} topics update-partitioned-topic {topic.topic} --partitions {topic.partitions}"
                if (green_count or 0) < topic.partitions
                else f"partitions cannot be removed: while it is empty, {cmd} topics delete-partitioned-topic "
                f"{topic.topic}, then {cmd} topics create-partitioned-topic {topic.topic} --partitions "
                f"{topic.partitions}"
            )
            self.add(
                "partition-count-differs",
                topic.topic,
                f"{topic.topic} has {topic.partitions} partitions on blue and {green_count} on green: keys would "
                "land on other partitions (per-key order broken, partitions no consumer expects).",
                fix,
            )
        on_green = subscriptions_on(self.green_admin, topic.topic) if green_exists else set()
        for subscription in topic.subscriptions:
            if subscription in on_green:
                continue
            where = subscription_where(topic.topic, subscription)
            self.add(
                "subscription-missing",
                where,
                f"subscription {subscription} of {topic.topic} is not on green: its consumers would create it at "
                "their own initial position (default latest) and lose what the redirected producers wrote first.",
                f"{cmd} topics create-subscription {topic.topic} --subscription {subscription} --messageId earliest "
                f"(REST: PUT {self.green.admin_url}/admin/v2/{topic_path(topic.topic)}/subscription/"
                f"{urllib.parse.quote(subscription, safe='')}?replicated=false with body "
                '{"ledgerId":-1,"entryId":-1,"partitionIndex":-1})',
            )


def preflight(
    blue: ClusterEndpoint,
    green: ClusterEndpoint,
    namespaces: Sequence[str] | None,
    *,
    client_token: str | None = None,
    tcp_timeout: float = TCP_TIMEOUT,
) -> list[PreflightProblem]:
    """Every problem that would make migrating ``namespaces`` (None: the whole of blue, Pulsar's own namespaces
    left out) from blue to green lose or strand messages; empty when there is none. Changes nothing.

    ``client_token`` is the token the clients present (default ``blue.token``): the redirect hands it to green.
    """
    blue_admin = blue.admin()
    _, blue_problem = _unreachable(blue, "blue")
    if blue_problem is not None:
        return [blue_problem]
    green_clusters, green_problem = _unreachable(green, "green")
    problems = [green_problem] if green_problem else []
    problems += _target_problems(green, tcp_timeout)
    problems += _migration_check_problems(blue, blue_admin)
    try:
        scope = scope_namespaces(blue_admin, namespaces)
    except ValueError as exc:
        return [*problems, PreflightProblem("not-on-blue", str(namespaces), f"{exc}.", "name it as tenant/namespace")]
    if green_clusters is None:
        return problems
    token = client_token if client_token is not None else blue.token
    problems += _credential_problems(green, token, scope, green.timeout)
    checker = _Checker(blue, green, green_clusters)
    for namespace in scope:
        checker.namespace(namespace)
    return problems + checker.problems
