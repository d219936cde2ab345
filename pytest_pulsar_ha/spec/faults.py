"""What goes wrong, and when (``faults:``): the fault kinds, a union discriminated by ``kind``, and the rule
that each fault fits its scenario (PIP-188's migrations, PIP-7's broker faults)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    Field,
    Strict,
    model_validator,
)

from pytest_pulsar_ha.spec.base import (
    _EPSILON,
    BrokerIndex,
    ClusterName,
    DomainName,
    Loc,
    PositiveDuration,
    _kind_of,
    _members,
    _Model,
    _raise_problems,
    _seconds,
)
from pytest_pulsar_ha.spec.quantities import Bandwidth, Duration

if TYPE_CHECKING:
    from pytest_pulsar_ha.spec.scenario import Scenario


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

# The kinds, derived from the union (the one place each kind is declared), in its order.
FAULT_KINDS: tuple[str, ...] = tuple(_kind_of(m) for m in _members(Fault))


def fault_label(index: int, fault: Any) -> str:
    """The label of the scenario's fault ``index``: the ``detail`` of its ``fault_start``/``fault_end`` events, by
    which a history names its faults (e.g. ``#0 outage cluster-a``)."""
    kind = fault.kind
    if kind == "replication_cut":
        return f"#{index} replication_cut {fault.from_}->{fault.to}"
    if kind == "url_provider":
        return f"#{index} url_provider {fault.answer}"
    if kind == "operator_switch":
        return f"#{index} operator_switch ->{fault.to}"
    if kind == "migrate":
        return f"#{index} migrate {fault.from_}->{fault.to}"
    if kind in ("broker_kill", "broker_pause"):
        return f"#{index} {kind} {fault.cluster}/{fault.broker}"
    if kind == "domain_outage":
        return f"#{index} domain_outage {fault.cluster}/{fault.domain}"
    return f"#{index} {kind} {getattr(fault, 'cluster', None) or ''}".strip()


# -- the rule ------------------------------------------------------------------------------------------------


def check_faults(scenario: Scenario) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    total = scenario.workload.duration
    for index, fault in enumerate(scenario.faults):
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
                    f"the fault happens at {fault.at}, not before the end of the workload (workload.duration {total})",
                )
            )
        if isinstance(fault, OperatorSwitchFault) and scenario.provider.kind != "controlled":
            problems.append(
                (
                    ("faults", index, "kind"),
                    "operator_switch needs provider kind controlled (an operator switches the URL provider), "
                    f"found provider kind {scenario.provider.kind}",
                )
            )
        if isinstance(fault, BrokerKillFault | BrokerPauseFault | DomainOutageFault):
            problems += _check_broker_fault(scenario, fault, ("faults", index))
        if isinstance(fault, MigrateFault):
            problems += _check_migrate(scenario, fault, ("faults", index))
        if isinstance(fault, UrlProviderFault) and scenario.provider.kind != "controlled":
            problems.append(
                (
                    ("faults", index, "kind"),
                    "url_provider needs provider kind controlled (only ControlledClusterFailover polls a URL "
                    f"provider), found provider kind {scenario.provider.kind}",
                )
            )
    return problems


def _check_migrate(scenario: Scenario, fault: MigrateFault, loc: Loc) -> list[tuple[Loc, str]]:
    value = scenario.topology.broker_settings.get(fault.from_, {}).get(MIGRATION_CHECK_SETTING)
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
    scenario: Scenario, fault: BrokerKillFault | BrokerPauseFault | DomainOutageFault, loc: Loc
) -> list[tuple[Loc, str]]:
    count = scenario.topology.brokers_of(fault.cluster)
    if count is None or count < 2:
        return [
            (
                (*loc, "cluster"),
                f"{fault.kind} needs a cluster of several brokers; set topology.brokers for {fault.cluster} "
                f"(found {count or 'the session default'})",
            )
        ]
    if isinstance(fault, DomainOutageFault):
        known = list(scenario.topology.failure_domains.get(fault.cluster, {}))
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
