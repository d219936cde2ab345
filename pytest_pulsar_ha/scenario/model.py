"""The typed scenario model: what one entry of a `*.pulsar-ha.yaml` file means, validated.

Every model is a frozen pydantic model that rejects unknown keys. Faults are a union discriminated by `kind`,
expectations a union discriminated by their single key (`switch:`, `no_loss:` ...), providers a union
discriminated by `kind` (so `probe` exists only on the `auto` provider). Checks that involve several fields
(clusters known to the topology, fault windows inside the workload, ...) run once the fields themselves are valid
and report every problem at once, each with its location (see :data:`PROBLEMS_ERROR`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    Strict,
    StringConstraints,
    Tag,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from pytest_pulsar_ha.scenario import expected_failure
from pytest_pulsar_ha.scenario.quantities import AboveZero, Bandwidth, Duration, Rate, Size

Loc = tuple[str | int, ...]

#: The pydantic error type of the cross-field checks; its context holds `problems`: `[(loc, message), ...]`
#: with each `loc` relative to the model that raised it.
PROBLEMS_ERROR = "scenario_problems"

SCENARIO_NAME_PATTERN = r"[a-z0-9][a-z0-9_.-]*"
CLUSTER_NAME_PATTERN = r"[a-z][a-z0-9-]{0,39}"
MARK_NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*"
TOPIC_NAME_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9_.=-]*"
DOMAIN_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
SETTING_NAME_PATTERN = r"[A-Za-z][A-Za-z0-9_.]*"

_EPSILON = 1e-9  # durations are floats: 0.1s + 0.2s must still end by 0.3s


def dotted(loc: Loc) -> str:
    """`('faults', 1, 'for')` -> `faults[1].for`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _raise_problems(problems: list[tuple[Loc, str]]) -> None:
    if problems:
        text = "; ".join(f"{dotted(loc)}: {message}" if loc else message for loc, message in problems)
        raise PydanticCustomError(PROBLEMS_ERROR, "{text}", {"text": text, "problems": problems})


def _matching(pattern: str, expected: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not re.fullmatch(pattern, value):
            raise PydanticCustomError("name", "{message}", {"message": f"expected {expected}, found {value!r}"})
        return value

    return check


def _string(pattern: str, description: str) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "pattern": f"^{pattern}$", "description": description})


def _true(value: bool) -> bool:
    if value is not True:
        raise PydanticCustomError(
            "true_only", "{message}", {"message": "expected true (leave the expectation out instead), found false"}
        )
    return value


ScenarioName = Annotated[
    str,
    AfterValidator(
        _matching(
            SCENARIO_NAME_PATTERN,
            "a name of lowercase letters, digits, '_', '.' and '-', starting with a letter or digit",
        )
    ),
    _string(SCENARIO_NAME_PATTERN, "Lowercase letters, digits, '_', '.' and '-', starting with a letter or digit."),
]
ClusterName = Annotated[
    str,
    AfterValidator(
        _matching(
            CLUSTER_NAME_PATTERN, "a cluster name of 1-40 lowercase letters, digits and '-', starting with a letter"
        )
    ),
    _string(CLUSTER_NAME_PATTERN, "A cluster name: 1-40 lowercase letters, digits and '-', starting with a letter."),
]
MarkName = Annotated[
    str,
    AfterValidator(
        _matching(MARK_NAME_PATTERN, "a pytest mark name (letters, digits and '_', not starting with a digit)")
    ),
    _string(MARK_NAME_PATTERN, "A pytest mark name."),
]
TopicName = Annotated[
    str,
    AfterValidator(
        _matching(TOPIC_NAME_PATTERN, "a topic name of letters, digits, '_', '.', '=' and '-' (no namespace)")
    ),
    _string(TOPIC_NAME_PATTERN, "A topic's local name (the namespace is chosen by the runner)."),
]
DomainName = Annotated[
    str,
    AfterValidator(
        _matching(
            DOMAIN_NAME_PATTERN,
            "a name of 1-64 letters, digits, '_', '.' and '-', starting with a letter or digit",
        )
    ),
    _string(DOMAIN_NAME_PATTERN, "A failure domain or anti-affinity group name: 1-64 letters, digits, '_', '.', '-'."),
]
SettingName = Annotated[
    str,
    AfterValidator(_matching(SETTING_NAME_PATTERN, "a broker.conf key such as failureDomainsEnabled")),
    _string(SETTING_NAME_PATTERN, "A broker.conf key, e.g. failureDomainsEnabled."),
]
#: The most brokers a cluster may have (each is a JVM of its own; see pytest_pulsar_ha.runtime.topology.MAX_BROKERS).
MAX_BROKERS = 8
#: The largest whole number a count may be (Pulsar and its Java clients count with 32-bit ints).
MAX_COUNT = 2**31 - 1
#: The largest seed (a Java long).
MAX_SEED = 2**63 - 1

PositiveDuration = Annotated[Duration, AboveZero()]
TrueFlag = Annotated[bool, Strict(), AfterValidator(_true), WithJsonSchema({"const": True})]
Count = Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT)]
PositiveCount = Annotated[int, Strict(), Field(ge=1, le=MAX_COUNT)]
Seed = Annotated[int, Strict(), Field(ge=0, le=MAX_SEED)]
BrokerCount = Annotated[int, Strict(), Field(ge=1, le=MAX_BROKERS)]
BrokerIndex = Annotated[int, Strict(), Field(ge=0, le=MAX_BROKERS - 1)]
SettingValue = (
    Annotated[str, Strict()] | Annotated[int, Strict()] | Annotated[float, Strict()] | Annotated[bool, Strict()]
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


def _duplicates(values: tuple[str, ...], loc: Loc, what: str) -> list[tuple[Loc, str]]:
    seen: set[str] = set()
    problems: list[tuple[Loc, str]] = []
    for index, value in enumerate(values):
        if value in seen:
            problems.append(((*loc, index), f"{what} {value!r} is listed twice"))
        seen.add(value)
    return problems


# -- topology ------------------------------------------------------------------------------------------------


SyncMode = Literal["pulsar", "reference", "store"]


class Topology(_Model):
    """The clusters a scenario runs on: their names, brokers, broker settings and failure domains.

    A scenario whose topology differs from the session's (brokers, broker settings, clusters) gets an
    environment of its own, started for it and shared with every scenario of the same topology.
    """

    clusters: tuple[ClusterName, ...] | None = None
    """Names of the clusters, in order. Default: the session's clusters (`--pulsar-ha-clusters`)."""
    auth: Literal["none", "token"] = "none"
    """What the clusters must require of clients: `token` needs a session started with `--pulsar-ha-auth=token`
    (each cluster then has its own secret key, and the providers switch credentials with the URL)."""
    brokers: BrokerCount | dict[ClusterName, BrokerCount] | None = None
    """Brokers per cluster: a number for every cluster, or `{cluster: number}` (others: 1). 1 is a `pulsar
    standalone`; 2 or more is one ZooKeeper, one bookie and that many brokers. Default: the session's
    (`--pulsar-ha-brokers`)."""
    broker_settings: dict[ClusterName, dict[SettingName, SettingValue]] = Field(default_factory=dict)
    """broker.conf settings per cluster, e.g. `{cluster-a: {failureDomainsEnabled: true}}` (part of what
    decides which environment runs the scenario)."""
    failure_domains: dict[ClusterName, dict[DomainName, tuple[BrokerIndex, ...]]] = Field(default_factory=dict)
    """PIP-7 failure domains per cluster, by broker index: `{cluster-a: {rack-1: [0, 1], rack-2: [2, 3]}}`.
    Declared through the admin API before the workload starts (replacing the cluster's other domains)."""
    metadata_sync: SyncMode | dict[ClusterName, SyncMode] | None = None
    """PIP-136: every cluster gets a configuration store of its own, kept in sync with the others' through a
    geo-replicated event topic: `pulsar` by Pulsar's own synchronizer (`configurationMetadataSyncEventTopic`),
    `reference` by this project's, `store` by nothing the harness runs (your own synchronizer); or per
    cluster, e.g. `{cluster-a: pulsar, cluster-b: reference}` (the two side by side on one topic). Needs
    `brokers: 1` (standalones with a second RocksDB store)."""

    @model_validator(mode="after")
    def _check(self) -> Topology:
        problems: list[tuple[Loc, str]] = []
        if self.clusters is not None:
            problems += _duplicates(self.clusters, ("clusters",), "cluster")
            if not self.clusters:
                problems.append((("clusters",), "expected at least one cluster, found an empty list"))
        problems += self._check_named_clusters()
        problems += self._check_domains()
        if isinstance(self.metadata_sync, dict):
            named = self.clusters or ()
            problems += [
                (("metadata_sync", name), f"unknown cluster {name!r}; expected one of topology.clusters")
                for name in self.metadata_sync
                if name not in named
            ]
            problems += [
                (("metadata_sync",), f"every cluster needs a mode; missing: {name}")
                for name in named
                if name not in self.metadata_sync
            ]
        if self.metadata_sync is not None:
            several = [c for c in (self.clusters or ()) if (self.brokers_of(c) or 1) > 1]
            if several or (isinstance(self.brokers, int) and self.brokers > 1):
                problems.append(
                    (
                        ("metadata_sync",),
                        "metadata sync runs on standalones (brokers: 1) for now; remove topology.brokers or set "
                        "it to 1",
                    )
                )
            if self.clusters is not None and len(self.clusters) < 2:
                problems.append((("metadata_sync",), "metadata sync needs at least two clusters in topology.clusters"))
        _raise_problems(problems)
        return self

    def _named(self) -> Iterator[tuple[Loc, str]]:
        if isinstance(self.brokers, dict):
            yield from ((("brokers", name), name) for name in self.brokers)
        yield from ((("broker_settings", name), name) for name in self.broker_settings)
        yield from ((("failure_domains", name), name) for name in self.failure_domains)

    def _check_named_clusters(self) -> list[tuple[Loc, str]]:
        named = list(self._named())
        if not named:
            return []
        if self.clusters is None:
            loc, _ = named[0]
            return [(loc[:1], f"{loc[0]} per cluster needs topology.clusters (the names of the clusters)")]
        return [
            (loc, f"unknown cluster {name!r}; expected one of topology.clusters: {', '.join(self.clusters)}")
            for loc, name in named
            if name not in self.clusters
        ]

    def sync_of(self, cluster: str) -> SyncMode | None:
        """How ``cluster``'s metadata is kept in sync (None: it is not)."""
        if isinstance(self.metadata_sync, dict):
            return self.metadata_sync.get(cluster)
        return self.metadata_sync

    def brokers_of(self, cluster: str) -> int | None:
        """The brokers this topology asks of ``cluster`` (None: the session's count)."""
        if isinstance(self.brokers, dict):
            return self.brokers.get(cluster, 1)
        return self.brokers

    def settings_of(self, cluster: str) -> dict[str, str]:
        """``broker_settings`` of ``cluster`` as broker.conf strings (booleans as ``true``/``false``)."""
        values = self.broker_settings.get(cluster, {})
        return {key: str(v).lower() if isinstance(v, bool) else str(v) for key, v in values.items()}

    def domain_brokers(self, cluster: str, domain: str) -> tuple[int, ...] | None:
        """The broker indexes of ``domain`` in ``cluster`` (None: no such domain)."""
        return self.failure_domains.get(cluster, {}).get(domain)

    def _check_domains(self) -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        for cluster, domains in self.failure_domains.items():
            loc: Loc = ("failure_domains", cluster)
            count = self.brokers_of(cluster)
            if not domains:
                problems.append((loc, "expected at least one domain, e.g. {rack-1: [0, 1], rack-2: [2, 3]}"))
            if count is None or count < 2:
                problems.append(
                    (
                        loc,
                        f"failure domains need a cluster of several brokers; set topology.brokers for {cluster} "
                        f"(found {count or 'the session default'})",
                    )
                )
                continue
            owner: dict[int, str] = {}
            for domain, indexes in domains.items():
                if not indexes:
                    problems.append(((*loc, domain), "expected at least one broker index, found an empty list"))
                for position, index in enumerate(indexes):
                    where = (*loc, domain, position)
                    if index >= count:
                        problems.append(
                            (
                                where,
                                f"broker index {index} is out of range: {cluster} has {count} brokers "
                                f"(indexes 0 to {count - 1})",
                            )
                        )
                    elif index in owner:
                        problems.append(
                            (where, f"broker {index} is already in domain {owner[index]!r}; domains are disjoint")
                        )
                    else:
                        owner[index] = domain
        return problems


# -- providers -----------------------------------------------------------------------------------------------


class _FailoverProvider(_Model):
    kind: str
    primary: ClusterName
    """The cluster clients start on."""
    secondaries: tuple[ClusterName, ...] = Field(min_length=1)
    """The clusters the provider may switch to, in order of preference."""
    check_interval: PositiveDuration = Duration("1s")
    """How often the provider checks the clusters."""
    failover_delay: Duration
    """How long the active cluster must fail before the provider switches away from it."""
    switch_back_delay: Duration
    """How long the primary must be healthy again before the provider switches back to it."""

    @model_validator(mode="after")
    def _check(self) -> _FailoverProvider:
        problems = _duplicates(self.secondaries, ("secondaries",), "cluster")
        if self.primary in self.secondaries:
            index = self.secondaries.index(self.primary)
            problems.append((("secondaries", index), f"the primary {self.primary!r} cannot also be a secondary"))
        _raise_problems(problems)
        return self


class AutoProvider(_FailoverProvider):
    """Our `AutoClusterFailover` (PIP-121): probes the clusters and switches on its own."""

    kind: Literal["auto"]
    probe: Literal["lookup", "tcp", "health"] = "lookup"
    """How a cluster is checked: `lookup` (binary-protocol lookup), `tcp` (connect only) or `health`."""


class NativeProvider(_FailoverProvider):
    """The Pulsar client's own `pulsar.AutoClusterFailover` (delays are turned into probe counts)."""

    kind: Literal["native"]


class ControlledProvider(_Model):
    """`ControlledClusterFailover` (PIP-121): clients follow a URL-provider service that an operator switches."""

    kind: Literal["controlled"]
    primary: ClusterName
    """The cluster the URL provider serves first."""
    secondaries: tuple[ClusterName, ...] = ()
    """Further clusters the URL provider can serve (empty: every other cluster of the topology)."""
    check_interval: PositiveDuration = Duration("1s")
    """How often clients poll the URL provider."""

    @model_validator(mode="after")
    def _check(self) -> ControlledProvider:
        problems = _duplicates(self.secondaries, ("secondaries",), "cluster")
        if self.primary in self.secondaries:
            index = self.secondaries.index(self.primary)
            problems.append((("secondaries", index), f"the primary {self.primary!r} cannot also be a secondary"))
        _raise_problems(problems)
        return self


class NoProvider(_Model):
    """No failover: clients connect to one cluster directly."""

    kind: Literal["none"]
    primary: ClusterName | None = None
    """The cluster clients connect to (default: the first cluster of the topology)."""


FACTORY_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*"
FactoryReference = Annotated[
    str,
    Strict(),
    AfterValidator(_matching(FACTORY_PATTERN, "'package.module:function', e.g. 'mypackage.failover:build'")),
    _string(FACTORY_PATTERN, "`package.module:function`, e.g. `mypackage.failover:build`."),
]


class CustomProvider(_Model):
    """Your own `pulsar.ServiceInfoProvider`, built by a function of yours when the scenario runs."""

    kind: Literal["custom"]
    factory: FactoryReference
    """`package.module:function`, importable where pytest runs. It is called with a
    `pytest_pulsar_ha.scenario.factories.ProviderContext` (every cluster's service URL, admin URL and token,
    `primary`, `args`) and returns a `pulsar.ServiceInfoProvider`."""
    primary: ClusterName
    """The cluster clients are expected to start on (what switch checks and figures measure from)."""
    args: dict[SettingName, JsonValue] = Field(default_factory=dict)
    """Anything your factory takes, passed as `context.args`."""


Provider = Annotated[
    AutoProvider | ControlledProvider | NativeProvider | NoProvider | CustomProvider, Field(discriminator="kind")
]

# -- client --------------------------------------------------------------------------------------------------

CLIENT_VERSION_PATTERN = r"[0-9]+\.[0-9]+\.[0-9]+"
ClientVersion = Annotated[
    str,
    Strict(),
    AfterValidator(_matching(CLIENT_VERSION_PATTERN, "a Pulsar client version X.Y.Z, e.g. '4.0.8'")),
    _string(CLIENT_VERSION_PATTERN, "A Pulsar client version X.Y.Z, e.g. `4.0.8`."),
]


class PythonClient(_Model):
    """The Python client (`pulsar-client`, the C++ library) runs the workload, in the pytest process."""

    kind: Literal["python"]


class JavaClient(_Model):
    """The Java client (`org.apache.pulsar:pulsar-client` from Maven Central) runs the workload, in a driver
    process of its own (`drivers/java`, built once and cached). The provider block configures Java's own
    classes: `auto` is Java's `AutoClusterFailover` (it probes by TCP connect only: `probe: tcp`), `controlled`
    is Java's `ControlledClusterFailover` polling the same URL-provider service, `none` a plain service URL."""

    kind: Literal["java"]
    version: ClientVersion | None = None
    """The client's version (default: the brokers' Pulsar version)."""
    max_backoff: PositiveDuration | None = None
    """The longest reconnect backoff of the Java clients (`ClientBuilder.maxBackoffInterval`; default: the
    client's own, 60 s). A provider's switch does not make a Java producer reconnect: it waits out the backoff
    sleep in progress, which doubles from 100 ms while the old cluster refuses it."""


Client = Annotated[PythonClient | JavaClient, Field(discriminator="kind")]
JAVA_PROVIDER_KINDS = ("auto", "controlled", "none")
"""The provider kinds the Java client runs (native and custom providers are Python objects)."""

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
        _raise_problems(problems)
        return self


# -- faults --------------------------------------------------------------------------------------------------


class _Fault(_Model):
    kind: str
    if TYPE_CHECKING:  # declared by each fault, after the fields that say where it strikes
        at: Duration

    @property
    def start(self) -> float:
        """Seconds from the start of the workload to the start of the fault."""
        return self.at.seconds

    @property
    def end(self) -> float | None:
        """Seconds from the start of the workload to the end of the fault; None for a fault without a duration."""
        return None

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster this fault names, with the key that names it."""
        for key in ("cluster", "from", "to"):
            field = {"from": "from_"}.get(key, key)
            value = getattr(self, field, None)
            if isinstance(value, str):
                yield (key,), value


class _WindowFault(_Fault):
    cluster: ClusterName
    """The cluster hit by the fault."""
    at: Duration
    """When the fault starts, from the start of the workload."""
    for_: PositiveDuration = Field(alias="for")
    """How long the fault lasts."""

    @property
    def end(self) -> float | None:
        return self.at.seconds + self.for_.seconds


class OutageFault(_WindowFault):
    """The cluster is unreachable: every connection to it is cut and refused."""

    kind: Literal["outage"]
    replication: Annotated[bool, Strict()] = True
    """Cut geo-replication to and from the cluster as well (false: only clients lose it)."""


class KillFault(_WindowFault):
    """The cluster's processes are killed (SIGKILL) and started again after `for`."""

    kind: Literal["kill"]


class PauseFault(_WindowFault):
    """The cluster's processes are frozen (SIGSTOP) for `for`, then resumed."""

    kind: Literal["pause"]


class LatencyFault(_WindowFault):
    """Traffic to the cluster is delayed."""

    kind: Literal["latency"]
    latency: PositiveDuration
    """Delay added to every packet."""
    jitter: Duration = Duration("0ms")
    """Random variation of the delay."""


class TimeoutFault(_WindowFault):
    """The cluster hangs: connections are accepted but nothing is ever answered."""

    kind: Literal["timeout"]


class BandwidthFault(_WindowFault):
    """Traffic to the cluster is throttled."""

    kind: Literal["bandwidth"]
    rate: Bandwidth
    """The bandwidth left, e.g. 64KB/s."""


class ResetFault(_Fault):
    """The cluster's connections are reset at `at` (once), or continuously for `for` when given."""

    kind: Literal["reset"]
    cluster: ClusterName
    """The cluster whose connections are reset."""
    at: Duration
    """When the connections are reset (first), from the start of the workload."""
    for_: PositiveDuration | None = Field(default=None, alias="for")
    """Keep resetting connections for this long (default: reset them once)."""

    @property
    def end(self) -> float | None:
        return None if self.for_ is None else self.at.seconds + self.for_.seconds


class ReplicationCutFault(_Fault):
    """Geo-replication from one cluster to another is cut; clients are not affected."""

    kind: Literal["replication_cut"]
    from_: ClusterName = Field(alias="from")
    """The cluster replicating."""
    to: ClusterName
    """The cluster it replicates to."""
    at: Duration
    """When replication is cut, from the start of the workload."""
    for_: PositiveDuration = Field(alias="for")
    """How long replication stays cut."""

    @property
    def end(self) -> float | None:
        return self.at.seconds + self.for_.seconds

    @model_validator(mode="after")
    def _check(self) -> ReplicationCutFault:
        if self.from_ == self.to:
            _raise_problems([(("to",), f"expected a cluster other than from ({self.from_!r}), found {self.to!r}")])
        return self


class OperatorSwitchFault(_Fault):
    """The operator switches the URL provider to another cluster (provider kind `controlled` only)."""

    kind: Literal["operator_switch"]
    to: ClusterName
    """The cluster the URL provider serves from then on."""
    at: Duration
    """When the operator switches, from the start of the workload."""


UrlProviderAnswer = Literal[
    "status-500",
    "hang",
    "invalid-json",
    "missing-service-url",
    "empty-service-url",
    "unknown-auth-plugin",
    "oversize",
    "redirect-loop",
    "trickle",
    "trickle-headers",
    "deep-json",
    "bad-port",
    "bad-auth-params",
    "wrong-type",
]


class UrlProviderFault(_Fault):
    """The URL provider answers badly for a while (provider kind `controlled` only): every poll gets `answer`."""

    kind: Literal["url_provider"]
    answer: UrlProviderAnswer
    """The kind of bad answer (docs/reliability/url-provider-answers.md shows what each one sends)."""
    at: Duration
    """When the bad answers start, from the start of the workload."""
    for_: PositiveDuration = Field(alias="for")
    """How long the URL provider answers badly."""

    @property
    def end(self) -> float | None:
        return self.at.seconds + self.for_.seconds


class BrokerKillFault(_WindowFault):
    """One broker of a multi-broker cluster is killed (SIGKILL) and started again after `for`; its bundles move
    to the other brokers once its metadata session expires."""

    kind: Literal["broker_kill"]
    broker: BrokerIndex
    """The broker's index in the cluster (0 to topology.brokers - 1)."""


class BrokerPauseFault(_WindowFault):
    """One broker of a multi-broker cluster is frozen (SIGSTOP) for `for`, then resumed."""

    kind: Literal["broker_pause"]
    broker: BrokerIndex
    """The broker's index in the cluster (0 to topology.brokers - 1)."""


class DomainOutageFault(_WindowFault):
    """Every broker of a failure domain is killed (SIGKILL) at once and started again after `for`.

    A kill, not a network cut: only a broker whose metadata session expires gives up its bundles, so this is
    what moves them to the surviving domains (a cut broker keeps them and its clients wait)."""

    kind: Literal["domain_outage"]
    domain: DomainName
    """The domain, as declared in topology.failure_domains for the cluster."""


#: The broker setting blue needs for a migration (Pulsar's default, 0, never runs the migration check).
MIGRATION_CHECK_SETTING = "clusterMigrationCheckDurationSeconds"


class MigrateFault(_Fault):
    """An operator migrates the workload from one cluster to another (PIP-188 blue-green): blue closes the
    workload's topics to writes, redirects their producers to `to`, and their consumers once they have drained
    blue's backlog. The migration is not undone at a set time: it is rolled back when the scenario ends."""

    kind: Literal["migrate"]
    from_: ClusterName = Field(alias="from")
    """The cluster clients leave ("blue"); it needs `clusterMigrationCheckDurationSeconds` > 0 in
    topology.broker_settings."""
    to: ClusterName
    """The cluster clients are redirected to ("green")."""
    scope: Literal["namespaces", "cluster"] = "namespaces"
    """`namespaces`: the workload's namespaces only; `cluster`: every namespace of `from` (other tests' too)."""
    at: Duration
    """When the operator starts the migration, from the start of the workload."""
    prepare: Annotated[bool, Strict()] = True
    """Create the workload's subscriptions on `to` before the workload starts (at its earliest position), as
    `pulsar-ha migrate prepare` does; false shows what happens when an operator skips it."""

    @model_validator(mode="after")
    def _check(self) -> MigrateFault:
        if self.from_ == self.to:
            _raise_problems([(("to",), f"expected a cluster other than from ({self.from_!r}), found {self.to!r}")])
        return self


#: Faults that strike some brokers of a cluster (the `reassigned` expectation is measured from them).
BROKER_FAULT_KINDS = ("broker_kill", "broker_pause", "domain_outage")

Fault = Annotated[
    OutageFault
    | KillFault
    | PauseFault
    | LatencyFault
    | TimeoutFault
    | BandwidthFault
    | ResetFault
    | ReplicationCutFault
    | OperatorSwitchFault
    | UrlProviderFault
    | BrokerKillFault
    | BrokerPauseFault
    | DomainOutageFault
    | MigrateFault,
    Field(discriminator="kind"),
]

# -- expectations --------------------------------------------------------------------------------------------

Window = tuple[Duration, Duration]


def _check_window(within: Window) -> list[tuple[Loc, str]]:
    low, high = within
    if low.seconds > high.seconds:
        return [(("within",), f"expected [earliest, latest] with earliest <= latest, found [{low}, {high}]")]
    return []


class _WindowSpec(_Model):
    """The first send acknowledged by a cluster within a time window, measured from a fault's start or end."""

    to: ClusterName
    """The cluster whose first acknowledged send is measured."""
    within: Window
    """`[earliest, latest]`: when the first send acknowledged by `to` must happen."""
    of: Literal["fault_start", "fault_end"] = "fault_start"
    """What the window is measured from."""
    fault: Count = 0
    """Index of the fault in `faults` (default: the first)."""

    @model_validator(mode="after")
    def _check(self) -> _WindowSpec:
        _raise_problems(_check_window(self.within))
        return self


class SwitchSpec(_WindowSpec):
    """Clients switch to a cluster within a time window, measured from a fault's start or end."""


class SwitchBackSpec(_Model):
    """Clients come back to a cluster within a time window, measured from a fault's end."""

    to: ClusterName
    """The cluster the clients must come back to (normally the primary)."""
    within: Window
    """`[earliest, latest]` after the fault's end."""
    fault: Count = 0
    """Index of the fault in `faults` (default: the first)."""

    @model_validator(mode="after")
    def _check(self) -> SwitchBackSpec:
        _raise_problems(_check_window(self.within))
        return self


class RedirectSpec(_WindowSpec):
    """Producers are redirected to a cluster within a time window (PIP-188), measured from a fault's start or end
    (the `migrate` entry's start, or e.g. the end of a replication cut): the first send acknowledged by `to`."""


class DrainedSpec(_Model):
    """Consumers leave a cluster only once they have received everything it acknowledged (PIP-188)."""

    from_: ClusterName = Field(alias="from")
    """The cluster consumers drain ("blue")."""
    to: ClusterName
    """The cluster they are redirected to ("green")."""


class AvailabilitySpec(_Model):
    """Enough sends are acknowledged in time, over the whole workload."""

    min_ratio: Annotated[float, Strict(), Field(ge=0, le=1)]
    """The smallest acceptable share of sends acknowledged within `ack_within` (0 to 1)."""
    ack_within: PositiveDuration
    """A send counts as available when it is acknowledged within this time."""


class OrderingSpec(_Model):
    """Messages are received in the order they were sent."""

    per: Literal["key", "producer"]
    """Order is checked per message key or per producer."""


class PlacementSpec(_Model):
    """PIP-7 placement of the workload's anti-affinity group, read from Pulsar before the faults and after them.

    The rule: the group's namespaces are on distinct domains (evenly over the domains when there are more
    namespaces than domains) and evenly over the brokers of each domain; only domains and brokers the load
    manager lists as active count, and every bundle must have an owner."""

    group: DomainName
    """The anti-affinity group (workload.anti_affinity_group)."""
    spread: Literal["domain"] = "domain"
    """What the namespaces are spread over: `domain` (the failure domains of the cluster, then their brokers)."""
    cluster: ClusterName | None = None
    """The cluster whose placement is read (default: the provider's primary, or the first cluster)."""


class ReassignedSpec(_Model):
    """After a broker fault, every topic of the workload is served again by a surviving broker in time."""

    within: PositiveDuration
    """From the recorded start of the fault to the first ack of each topic by a broker the fault did not hit."""
    fault: Count = 0
    """Index of the fault in `faults` (a broker_kill, broker_pause or domain_outage; default: the first)."""


class ConvergedSpec(_Model):
    """Every cluster holds the same value of the written policy within a time after the last write and the last
    fault's end, and keeps it."""

    within: PositiveDuration


class _Expectation(_Model):
    kind: ClassVar[str]


class SwitchExpectation(_Expectation):
    """Clients switch to a cluster in time."""

    kind: ClassVar[str] = "switch"
    switch: SwitchSpec


class SwitchBackExpectation(_Expectation):
    """Clients come back in time after the fault's end."""

    kind: ClassVar[str] = "switch_back"
    switch_back: SwitchBackSpec


class NoSwitchExpectation(_Expectation):
    """Clients never leave the cluster they started on."""

    kind: ClassVar[str] = "no_switch"
    no_switch: TrueFlag


class AvailabilityExpectation(_Expectation):
    """Enough sends are acknowledged in time."""

    kind: ClassVar[str] = "availability"
    availability: AvailabilitySpec


class NoLossExpectation(_Expectation):
    """Every acknowledged message is received in the end."""

    kind: ClassVar[str] = "no_loss"
    no_loss: TrueFlag


class OrderingExpectation(_Expectation):
    """Messages arrive in order, per key or per producer."""

    kind: ClassVar[str] = "ordering"
    ordering: OrderingSpec


class MaxDuplicatesExpectation(_Expectation):
    """At most this many messages are received more than once."""

    kind: ClassVar[str] = "max_duplicates"
    max_duplicates: Count


class PlacementExpectation(_Expectation):
    """The anti-affinity group is spread over the failure domains, before the faults and after them."""

    kind: ClassVar[str] = "placement"
    placement: PlacementSpec


class ReassignedExpectation(_Expectation):
    """Every topic is served again by a surviving broker within a time after a broker or domain fault."""

    kind: ClassVar[str] = "reassigned"
    reassigned: ReassignedSpec


class ProducersRedirectedExpectation(_Expectation):
    """Producers are redirected in time (first ack by the target cluster)."""

    kind: ClassVar[str] = "producers_redirected"
    producers_redirected: RedirectSpec


class DrainedBeforeRedirectExpectation(_Expectation):
    """Every subscription receives all that `from` acknowledged before any message delivered by `to`."""

    kind: ClassVar[str] = "drained_before_redirect"
    drained_before_redirect: DrainedSpec


class ConvergedExpectation(_Expectation):
    """Every cluster agrees on the written metadata in time (PIP-136)."""

    kind: ClassVar[str] = "converged"
    converged: ConvergedSpec


class LastWriterWinsExpectation(_Expectation):
    """What every cluster finally holds is the last write by origin time, ties to the cluster whose name sorts
    first (PIP-136's rule), computed by the oracle from the events the clusters published."""

    kind: ClassVar[str] = "last_writer_wins"
    last_writer_wins: TrueFlag


def expectation_key(value: Any) -> str | None:
    """The discriminator of an expectation: its single key (None when it has none or several)."""
    if isinstance(value, dict):
        return next(iter(value)) if len(value) == 1 else None
    if isinstance(value, _Expectation):
        return value.kind
    return None


Expectation = Annotated[
    Annotated[SwitchExpectation, Tag("switch")]
    | Annotated[SwitchBackExpectation, Tag("switch_back")]
    | Annotated[NoSwitchExpectation, Tag("no_switch")]
    | Annotated[AvailabilityExpectation, Tag("availability")]
    | Annotated[NoLossExpectation, Tag("no_loss")]
    | Annotated[OrderingExpectation, Tag("ordering")]
    | Annotated[MaxDuplicatesExpectation, Tag("max_duplicates")]
    | Annotated[PlacementExpectation, Tag("placement")]
    | Annotated[ReassignedExpectation, Tag("reassigned")]
    | Annotated[ProducersRedirectedExpectation, Tag("producers_redirected")]
    | Annotated[DrainedBeforeRedirectExpectation, Tag("drained_before_redirect")]
    | Annotated[ConvergedExpectation, Tag("converged")]
    | Annotated[LastWriterWinsExpectation, Tag("last_writer_wins")],
    Discriminator(expectation_key),
]


def _kind_of(model: Any) -> str:
    """The ``kind`` literal of a provider or fault model."""
    (kind,) = get_args(model.model_fields["kind"].annotation)
    return str(kind)


def _members(union: Any) -> tuple[Any, ...]:
    """The members of an ``Annotated[A | B | ..., ...]`` union, in order."""
    return get_args(get_args(union)[0])


# The kinds, derived from the unions (the one place each kind is declared), in the unions' order.
PROVIDER_KINDS: tuple[str, ...] = tuple(_kind_of(m) for m in _members(Provider))
FAULT_KINDS: tuple[str, ...] = tuple(_kind_of(m) for m in _members(Fault))
EXPECTATION_KINDS: tuple[str, ...] = tuple(str(get_args(m)[1].tag) for m in _members(Expectation))

# -- the scenario --------------------------------------------------------------------------------------------


ExpectationRef = Annotated[str, StringConstraints(pattern=f"^{expected_failure.REF_PATTERN}$")]


class ExpectFailure(_Model):
    """This scenario is written to fail: the expectation it names must fail (with the figure `measured` asks
    for, when given) and every other expectation must hold; then it reports XFAIL with the evidence. A pass,
    another failing expectation or another figure is a failure (XPASS strict or FAILED); with `intermittent`,
    a pass is XPASS, not a failure."""

    expectation: ExpectationRef | tuple[ExpectationRef, ...]
    """The expectation that must fail: its kind (`converged`), or `kind#n` for the n-th of a kind that appears
    more than once; a list names several that must all fail."""
    measured: str | None = None
    """A regular expression the named expectation's measured figure must match (one expectation named)."""
    reason: str = Field(min_length=1)
    """Why it fails: what the failing expectation demonstrates."""
    issue: str | None = None
    """Where the behaviour is tracked (an issue URL or number)."""
    intermittent: Annotated[bool, Strict()] = False
    """The failure is a race that shows in some runs only: a run where every expectation holds reports XPASS
    and passes; when it fails, it must still be exactly the announced failure."""

    @property
    def names(self) -> tuple[str, ...]:
        """The named expectations, as a tuple."""
        return (self.expectation,) if isinstance(self.expectation, str) else self.expectation

    @model_validator(mode="after")
    def _check(self) -> ExpectFailure:
        problems: list[tuple[Loc, str]] = []
        if not self.names:
            problems.append((("expectation",), "name at least one expectation that must fail"))
        problems += _duplicates(self.names, ("expectation",), "expectation")
        if self.measured is not None:
            if len(self.names) > 1:
                problems.append((("measured",), "measured needs one named expectation, found several"))
            problem = expected_failure.regex_problem(self.measured)
            if problem is not None:
                problems.append((("measured",), problem))
        _raise_problems(problems)
        return self


SOAK_EXPECTATIONS = ("no_loss", "ordering", "max_duplicates")
"""What a soak may expect: the checks that read the whole history on Spark (not a list in memory)."""


class Soak(_Model):
    """Run as a soak: the history is streamed to Parquet as it happens (at most `row_group_rows` events in
    memory, besides the faults and switches) and judged on Spark over the whole file, so a run of hours stays
    within bounded memory. Acknowledgements are not attributed to clusters (that reads every entry back from the
    brokers), so a soak expects only what Spark judges from the whole history: no_loss, ordering and
    max_duplicates."""

    row_group_rows: int = Field(default=20_000, ge=1_000, le=1_000_000)
    """Events buffered before they are written to the Parquet history as one row group."""


DrawnKind = Literal["outage", "kill", "pause", "latency", "replication_cut"]


class FaultSpace(_Model):
    """Faults drawn at random from the run's seed, beside the fixed `faults` (a nightly run draws new ones with
    each seed; the printed replay command draws the same ones again). The drawn timeline is in the evidence."""

    count: Annotated[int, Strict(), Field(ge=1, le=50)]
    """How many faults to draw."""
    kinds: tuple[DrawnKind, ...] = Field(min_length=1)
    """The kinds drawn from, each equally likely."""
    clusters: tuple[ClusterName, ...] | None = None
    """The clusters faults may hit (replication cuts: links between them). Default: the topology's clusters."""
    start: Duration = Duration("2s")
    """No fault before this time."""
    end_margin: Duration = Duration("5s")
    """No fault in the last part of the workload (so clients recover before it ends)."""
    length: Window = Field(default_factory=lambda: (Duration("2s"), Duration("6s")))
    """`[shortest, longest]` a fault lasts (default `[2s, 6s]`)."""
    gap: Window = Field(default_factory=lambda: (Duration("1s"), Duration("5s")))
    """`[shortest, longest]` quiet time between one fault's end and the next one's start, one at a time
    (default `[1s, 5s]`)."""
    latency: Window = Field(default_factory=lambda: (Duration("100ms"), Duration("500ms")))
    """`[least, most]` delay of a `latency` fault (default `[100ms, 500ms]`)."""
    max_concurrent: Annotated[int, Strict(), Field(ge=1, le=5)] = 1
    """How many faults may hold at once (1: one after the other, with `gap` between them)."""
    all_clusters_at_once: Annotated[bool, Strict()] = False
    """Whether the faults holding at one moment may together hit every cluster (replication cuts hit none)."""

    @model_validator(mode="after")
    def _check(self) -> FaultSpace:
        problems: list[tuple[Loc, str]] = []
        for key in ("length", "gap", "latency"):
            problems += [((key, *loc[1:]), m) for loc, m in _check_window(getattr(self, key))]
        if self.length[0].seconds <= 0:
            problems.append((("length", 0), f"a fault lasts more than 0s, found {self.length[0]}"))
        if self.clusters is not None:
            problems += _duplicates(self.clusters, ("clusters",), "cluster")
        _raise_problems(problems)
        return self


class Scenario(_Model):
    """One chaos scenario: clusters, a failover provider, a workload, faults at set times and what must hold."""

    name: ScenarioName
    """Unique in its file; the test's name."""
    description: str = ""
    """What happens, in a sentence or two."""
    seed: Seed | None = None
    """Seed of every random choice (default: derived from the scenario id)."""
    marks: tuple[MarkName, ...] = ()
    """pytest marks applied to the test (register them as usual)."""
    topology: Topology = Topology()
    """The clusters (default: the session's)."""
    provider: Provider = NoProvider(kind="none")
    """How clients choose their cluster (default: `kind: none`, straight to the primary)."""
    client: Client = PythonClient(kind="python")
    """Which Pulsar client runs the workload (default: `kind: python`; `kind: java` runs Java's)."""
    workload: Workload
    """The producers and consumers that run while the faults happen."""
    faults: tuple[Fault, ...] = ()
    """What goes wrong, and when."""
    generate: FaultSpace | None = None
    """Faults drawn at random from the run's seed, added after `faults`."""
    expect: tuple[Expectation, ...] = Field(min_length=1)
    """What must hold; each item has one key naming the expectation."""
    expect_failure: ExpectFailure | None = None
    """Mark the scenario as written to fail (an expected failure, reported as XFAIL; a pass fails the run)."""
    soak: Soak | None = None
    """Run as a soak: the history streamed to Parquet in bounded memory and judged on Spark (long runs)."""

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        problems: list[tuple[Loc, str]] = []
        problems += self._check_clusters()
        problems += self._check_faults()
        problems += self._check_expectations()
        problems += self._check_metadata()
        problems += self._check_generate()
        problems += self._check_client()
        problems += self._check_soak()
        problems += self._check_expect_failure()
        _raise_problems(problems)
        return self

    def _check_expect_failure(self) -> list[tuple[Loc, str]]:
        """Each expectation named to fail is one of this scenario's."""
        if self.expect_failure is None:
            return []
        kinds = [e.kind for e in self.expect]
        names = self.expect_failure.names
        loc: Loc = ("expect_failure", "expectation")
        return [
            ((*loc, index) if len(names) > 1 else loc, place)
            for index, name in enumerate(names)
            if isinstance(place := expected_failure.resolve(name, kinds), str)
        ]

    def _check_soak(self) -> list[tuple[Loc, str]]:
        """A soak keeps no history in memory: only the expectations Spark judges from the file, no metadata."""
        if self.soak is None:
            return []
        problems: list[tuple[Loc, str]] = [
            (
                ("expect", index, expectation.kind),
                f"a soak judges its history on Spark only; {expectation.kind} reads it in memory "
                f"(a soak may expect: {', '.join(SOAK_EXPECTATIONS)}; measure windows in a scenario without soak)",
            )
            for index, expectation in enumerate(self.expect)
            if expectation.kind not in SOAK_EXPECTATIONS
        ]
        if self.workload.metadata is not None:
            problems.append((("workload", "metadata"), "a soak runs no metadata writes (they are judged in memory)"))
        return problems

    def _check_client(self) -> list[tuple[Loc, str]]:
        """The Java client runs Java's providers: no native or custom one, and Java's AutoClusterFailover only
        connects (TCP) to probe."""
        if not isinstance(self.client, JavaClient):
            return []
        provider = self.provider
        if provider.kind not in JAVA_PROVIDER_KINDS:
            return [
                (
                    ("provider", "kind"),
                    f"client kind java runs Java's own providers ({', '.join(JAVA_PROVIDER_KINDS)}); provider kind "
                    f"{provider.kind} is a Python client's (use auto for Java's AutoClusterFailover)",
                )
            ]
        if isinstance(provider, AutoProvider) and provider.probe != "tcp":
            return [
                (
                    ("provider", "probe"),
                    f"client kind java runs Java's AutoClusterFailover, which probes by TCP connect only: set "
                    f"provider.probe: tcp (found {provider.probe})",
                )
            ]
        return []

    def _check_generate(self) -> list[tuple[Loc, str]]:
        """The drawn faults must be able to hit what they name and fit in the workload (see
        :mod:`pytest_pulsar_ha.scenario.generated`)."""
        space = self.generate
        if space is None:
            return []
        from pytest_pulsar_ha.scenario.generated import space_problems

        return [(("generate", *loc), message) for loc, message in space_problems(space, self)]

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster named by the provider, the faults and the expectations, with where it is named."""
        provider = self.provider
        if provider.primary is not None:
            yield ("provider", "primary"), provider.primary
        for index, name in enumerate(getattr(provider, "secondaries", ())):
            yield ("provider", "secondaries", index), name
        if self.workload.consume_from is not None:
            yield ("workload", "consume_from"), self.workload.consume_from
        for name, members in (self.workload.replication or {}).items():
            yield ("workload", "replication", name), name
            for index, member in enumerate(members):
                yield ("workload", "replication", name, index), member
        if self.workload.metadata is not None:
            for index, name in enumerate(self.workload.metadata.writers):
                yield ("workload", "metadata", "writers", index), name
        for index, fault in enumerate(self.faults):
            for loc, name in fault.cluster_refs():
                yield ("faults", index, *loc), name
        if self.generate is not None:
            for index, name in enumerate(self.generate.clusters or ()):
                yield ("generate", "clusters", index), name
        for index, expectation in enumerate(self.expect):
            if isinstance(expectation, SwitchExpectation):
                yield ("expect", index, "switch", "to"), expectation.switch.to
            elif isinstance(expectation, SwitchBackExpectation):
                yield ("expect", index, "switch_back", "to"), expectation.switch_back.to
            elif isinstance(expectation, PlacementExpectation) and expectation.placement.cluster is not None:
                yield ("expect", index, "placement", "cluster"), expectation.placement.cluster
            elif isinstance(expectation, ProducersRedirectedExpectation):
                yield ("expect", index, "producers_redirected", "to"), expectation.producers_redirected.to
            elif isinstance(expectation, DrainedBeforeRedirectExpectation):
                spec = expectation.drained_before_redirect
                yield ("expect", index, "drained_before_redirect", "from"), spec.from_
                yield ("expect", index, "drained_before_redirect", "to"), spec.to

    def _check_metadata(self) -> list[tuple[Loc, str]]:
        """Metadata writes need metadata sync, and the metadata expectations need metadata writes."""
        problems: list[tuple[Loc, str]] = []
        metadata = self.workload.metadata
        if metadata is not None and self.topology.metadata_sync is None:
            problems.append(
                (
                    ("workload", "metadata"),
                    "metadata writes need clusters that sync metadata: set topology.metadata_sync to pulsar or "
                    "reference",
                )
            )
        until = metadata.until if metadata is not None else None
        if until is not None and until.seconds > self.workload.duration.seconds:
            problems.append(
                (
                    ("workload", "metadata", "until"),
                    f"the writes stop at {until}, after the end of the workload ({self.workload.duration})",
                )
            )
        for index, expectation in enumerate(self.expect):
            if isinstance(expectation, ConvergedExpectation | LastWriterWinsExpectation) and metadata is None:
                problems.append(
                    (
                        ("expect", index, expectation.kind),
                        f"{expectation.kind} judges metadata writes: add workload.metadata (policy, writers, every)",
                    )
                )
        return problems

    def _check_clusters(self) -> list[tuple[Loc, str]]:
        known = self.topology.clusters
        if known is None:
            return []
        return [
            (loc, f"unknown cluster {name!r}; expected one of the topology's clusters: {', '.join(known)}")
            for loc, name in self.cluster_refs()
            if name not in known
        ]

    def _check_faults(self) -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        total = self.workload.duration
        for index, fault in enumerate(self.faults):
            end = fault.end
            if end is not None and end > total.seconds + _EPSILON:
                for_ = getattr(fault, "for_", None)
                problems.append(
                    (
                        ("faults", index, "for"),
                        f"the fault ends at {_seconds(end)} (at {fault.at} + for {for_}), after the end of the "
                        f"workload (workload.duration {total}); shorten the fault or lengthen the workload",
                    )
                )
            elif end is None and fault.start >= total.seconds:
                problems.append(
                    (
                        ("faults", index, "at"),
                        f"the fault happens at {fault.at}, not before the end of the workload "
                        f"(workload.duration {total})",
                    )
                )
            if isinstance(fault, OperatorSwitchFault) and self.provider.kind != "controlled":
                problems.append(
                    (
                        ("faults", index, "kind"),
                        "operator_switch needs provider kind controlled (an operator switches the URL provider), "
                        f"found provider kind {self.provider.kind}",
                    )
                )
            if isinstance(fault, BrokerKillFault | BrokerPauseFault | DomainOutageFault):
                problems += self._check_broker_fault(fault, ("faults", index))
            if isinstance(fault, MigrateFault):
                problems += self._check_migrate(fault, ("faults", index))
            if isinstance(fault, UrlProviderFault) and self.provider.kind != "controlled":
                problems.append(
                    (
                        ("faults", index, "kind"),
                        "url_provider needs provider kind controlled (only ControlledClusterFailover polls a URL "
                        f"provider), found provider kind {self.provider.kind}",
                    )
                )
        return problems

    def _check_migrate(self, fault: MigrateFault, loc: Loc) -> list[tuple[Loc, str]]:
        value = self.topology.broker_settings.get(fault.from_, {}).get(MIGRATION_CHECK_SETTING)
        try:
            seconds = float(value) if value is not None and not isinstance(value, bool) else 0.0
        except ValueError:
            seconds = 0.0
        if seconds > 0:
            return []
        found = "not set (Pulsar's default 0 never runs the migration check)" if value is None else f"{value!r}"
        return [
            (
                (*loc, "from"),
                f"a migration from {fault.from_} needs its brokers to check for it: set "
                f"topology.broker_settings.{fault.from_}.{MIGRATION_CHECK_SETTING} to a number of seconds > 0 "
                f"(e.g. 1); found {found}",
            )
        ]

    def _check_broker_fault(
        self, fault: BrokerKillFault | BrokerPauseFault | DomainOutageFault, loc: Loc
    ) -> list[tuple[Loc, str]]:
        count = self.topology.brokers_of(fault.cluster)
        if count is None or count < 2:
            return [
                (
                    (*loc, "cluster"),
                    f"{fault.kind} needs a cluster of several brokers; set topology.brokers for {fault.cluster} "
                    f"(found {count or 'the session default'})",
                )
            ]
        if isinstance(fault, DomainOutageFault):
            known = list(self.topology.failure_domains.get(fault.cluster, {}))
            if fault.domain not in known:
                listed = ", ".join(known) if known else "none (declare them in topology.failure_domains)"
                return [
                    (
                        (*loc, "domain"),
                        f"unknown failure domain {fault.domain!r} of {fault.cluster}; declared: {listed}",
                    )
                ]
            return []
        if fault.broker >= count:
            return [
                (
                    (*loc, "broker"),
                    f"broker index {fault.broker} is out of range: {fault.cluster} has {count} brokers "
                    f"(indexes 0 to {count - 1})",
                )
            ]
        return []

    def placement_cluster(self, spec: PlacementSpec) -> str | None:
        """The cluster a placement expectation reads: its own, else the provider's primary, else the first."""
        if spec.cluster is not None:
            return spec.cluster
        if self.provider.primary is not None:
            return self.provider.primary
        return self.topology.clusters[0] if self.topology.clusters else None

    def _check_placement(self, spec: PlacementSpec, loc: Loc) -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        group = self.workload.anti_affinity_group
        if group is None:
            problems.append(
                (
                    (*loc, "group"),
                    f"placement needs the workload in a group; set workload.anti_affinity_group: {spec.group}",
                )
            )
        elif spec.group != group:
            problems.append(
                ((*loc, "group"), f"expected the workload's anti-affinity group {group!r}, found {spec.group!r}")
            )
        cluster = self.placement_cluster(spec)
        if cluster is None or cluster not in self.topology.failure_domains:
            problems.append(
                (
                    loc,
                    f"spread: domain needs failure domains declared for {cluster or 'the cluster'} in "
                    "topology.failure_domains",
                )
            )
        return problems

    def _check_reassigned(self, spec: ReassignedSpec, loc: Loc) -> list[tuple[Loc, str]]:
        if spec.fault >= len(self.faults):
            if not self.faults:
                return [(loc, "reassigned is measured from a broker fault, found no faults in this scenario")]
            return [
                ((*loc, "fault"), f"expected the index of a fault (0 to {len(self.faults) - 1}), found {spec.fault}")
            ]
        kind = self.faults[spec.fault].kind
        if kind not in BROKER_FAULT_KINDS:
            return [
                (
                    (*loc, "fault"),
                    f"reassigned is measured from a fault on brokers ({', '.join(BROKER_FAULT_KINDS)}); "
                    f"fault {spec.fault} is a {kind} fault",
                )
            ]
        return []

    def _check_expectations(self) -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        workload = self.workload
        kinds = {e.kind for e in self.expect}
        for index, expectation in enumerate(self.expect):
            loc: Loc = ("expect", index, expectation.kind)
            if expectation.kind in ("switch", "switch_back", "no_switch") and self.provider.kind == "none":
                problems.append(
                    (
                        loc,
                        f"{expectation.kind} needs a failover provider (provider kind auto, controlled or native), "
                        "found provider kind none",
                    )
                )
            if expectation.kind == "no_switch" and kinds & {"switch", "switch_back"}:
                problems.append((loc, "no_switch contradicts the switch expectations of this scenario"))
            if (
                expectation.kind in ("no_loss", "ordering", "max_duplicates", "drained_before_redirect")
                and workload.consumers == 0
            ):
                problems.append((loc, f"{expectation.kind} needs at least one consumer, found workload.consumers 0"))
            if isinstance(expectation, OrderingExpectation) and expectation.ordering.per == "key" and not workload.keys:
                problems.append(
                    (
                        (*loc, "per"),
                        "ordering per key needs keyed messages, found workload.keys 0; set workload.keys or use "
                        "per: producer",
                    )
                )
            if isinstance(expectation, SwitchExpectation | SwitchBackExpectation):
                problems += self._check_fault_ref(expectation, loc)
            if isinstance(expectation, PlacementExpectation):
                problems += self._check_placement(expectation.placement, loc)
            if isinstance(expectation, ProducersRedirectedExpectation):
                problems += self._check_window_ref(expectation.producers_redirected, loc)
            if isinstance(expectation, DrainedBeforeRedirectExpectation):
                problems += self._check_drained(expectation.drained_before_redirect, loc)
            if isinstance(expectation, ReassignedExpectation):
                problems += self._check_reassigned(expectation.reassigned, loc)
        return problems

    def _check_window_ref(self, spec: RedirectSpec, loc: Loc) -> list[tuple[Loc, str]]:
        if not self.faults:
            return [(loc, "producers_redirected is measured from a migrate entry, found no faults in this scenario")]
        if spec.fault >= len(self.faults):
            return [
                ((*loc, "fault"), f"expected the index of a fault (0 to {len(self.faults) - 1}), found {spec.fault}")
            ]
        fault = self.faults[spec.fault]
        if spec.of == "fault_end" and fault.end is None:
            return [
                (
                    (*loc, "fault"),
                    f"the window is measured from the end of fault {spec.fault}, found a {fault.kind} fault "
                    "without a duration ('for')",
                )
            ]
        if not any(isinstance(f, MigrateFault) and f.to == spec.to for f in self.faults):
            return [((*loc, "to"), f"no migrate entry in faults redirects clients to {spec.to!r}")]
        return []

    def _check_drained(self, spec: DrainedSpec, loc: Loc) -> list[tuple[Loc, str]]:
        if any(isinstance(f, MigrateFault) and f.from_ == spec.from_ and f.to == spec.to for f in self.faults):
            return []
        return [(loc, f"no migrate entry in faults moves clients from {spec.from_!r} to {spec.to!r}")]

    def _check_fault_ref(
        self, expectation: SwitchExpectation | SwitchBackExpectation, loc: Loc
    ) -> list[tuple[Loc, str]]:
        if isinstance(expectation, SwitchExpectation):
            spec: SwitchSpec | SwitchBackSpec = expectation.switch
            needs_end = expectation.switch.of == "fault_end"
        else:
            spec = expectation.switch_back
            needs_end = True
        drawn = self.generate.count if self.generate is not None else 0
        total = len(self.faults) + drawn
        if not total:
            return [(loc, f"{expectation.kind} is measured from a fault, found no faults in this scenario")]
        if spec.fault >= total:
            also = f", the drawn ones after the {len(self.faults)} written" if drawn else ""
            return [
                (
                    (*loc, "fault"),
                    f"expected the index of a fault (0 to {total - 1}{also}), found {spec.fault}",
                )
            ]
        if spec.fault >= len(self.faults):
            return []  # a drawn fault: it always has a duration
        fault = self.faults[spec.fault]
        if needs_end and fault.end is None:
            what = "the window" if isinstance(expectation, SwitchExpectation) else "switch_back"
            return [
                (
                    (*loc, "fault"),
                    f"{what} is measured from the end of fault {spec.fault}, found a {fault.kind} fault "
                    "without a duration ('for')",
                )
            ]
        return []


def _seconds(value: float) -> str:
    return f"{value:g}s"
