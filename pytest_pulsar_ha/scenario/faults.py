"""What goes wrong, and when (``faults:``): the fault kinds, a union discriminated by ``kind``, and the rule
that each fault fits its scenario (PIP-188's migrations, PIP-7's broker faults)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import (
    Field,
    Strict,
    model_validator,
)

from pytest_pulsar_ha.scenario.base import (
    BrokerIndex,
    ClusterName,
    DomainName,
    Loc,
    PositiveDuration,
    _kind_of,
    _members,
    _Model,
    _raise_problems,
)
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.quantities import Bandwidth, Duration

# -- faults --------------------------------------------------------------------------------------------------


class _Fault(_Model):
    kind: str
    facts: ClassVar[FaultFacts]
    """What the harness needs to know of the kind (:mod:`~pytest_pulsar_ha.scenario.facts`)."""
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

    @property
    def target(self) -> str | None:
        """The cluster the fault hits (its clients, processes or brokers; the cluster a link or a migration
        leaves; the cluster an operator switches to), or None (a URL provider's answers hit no cluster)."""
        raise NotImplementedError(f"fault kind {self.kind} does not say which cluster it hits")

    @property
    def cuts_links(self) -> bool:
        """Whether it cuts its cluster's replication links too: its kind's ``cuts_replication`` fact, unless the
        fault says otherwise (an outage with ``replication: false``)."""
        return self.facts.cuts_replication

    def label(self, index: int) -> str:
        """The fault's label as fault ``index`` of its scenario: the ``detail`` of its ``fault_start`` and
        ``fault_end`` events, by which a history names its faults (e.g. ``#0 outage cluster-a``)."""
        return f"#{index} {self.kind} {self.target or ''}".strip()

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

    @property
    def target(self) -> str | None:
        return str(self.cluster)


class OutageFault(_WindowFault):
    """The cluster is unreachable: every connection to it is cut and refused."""

    kind: Literal["outage"]
    facts = FaultFacts("connections", takes_cluster_down=True, cuts_replication=True)
    replication: Annotated[bool, Strict()] = True
    """Cut geo-replication to and from the cluster as well (false: only clients lose it)."""

    @property
    def cuts_links(self) -> bool:
        return self.replication


class KillFault(_WindowFault):
    """The cluster's processes are killed (SIGKILL) and started again after `for`."""

    kind: Literal["kill"]
    facts = FaultFacts("processes", takes_cluster_down=True, quiet_end=True, restarts=True)


class PauseFault(_WindowFault):
    """The cluster's processes are frozen (SIGSTOP) for `for`, then resumed."""

    kind: Literal["pause"]
    facts = FaultFacts("processes", takes_cluster_down=True, quiet_end=True, slow_to_fail=True)


class LatencyFault(_WindowFault):
    """Traffic to the cluster is delayed."""

    kind: Literal["latency"]
    facts = FaultFacts("connections", takes_cluster_down=True)
    latency: PositiveDuration
    """Delay added to every packet."""
    jitter: Duration = Duration("0ms")
    """Random variation of the delay."""


class TimeoutFault(_WindowFault):
    """The cluster hangs: connections are accepted but nothing is ever answered."""

    kind: Literal["timeout"]
    facts = FaultFacts("connections", takes_cluster_down=True, quiet_end=True, slow_to_fail=True)


class BandwidthFault(_WindowFault):
    """Traffic to the cluster is throttled."""

    kind: Literal["bandwidth"]
    facts = FaultFacts("connections", takes_cluster_down=True)
    rate: Bandwidth
    """The bandwidth left, e.g. 64KB/s."""


class ResetFault(_Fault):
    """The cluster's connections are reset at `at` (once), or continuously for `for` when given."""

    kind: Literal["reset"]
    facts = FaultFacts("connections", takes_cluster_down=True)
    cluster: ClusterName
    """The cluster whose connections are reset."""
    at: Duration
    """When the connections are reset (first), from the start of the workload."""
    for_: PositiveDuration | None = Field(default=None, alias="for")
    """Keep resetting connections for this long (default: reset them once)."""

    @property
    def end(self) -> float | None:
        return None if self.for_ is None else self.at.seconds + self.for_.seconds

    @property
    def target(self) -> str | None:
        return str(self.cluster)


class ReplicationCutFault(_Fault):
    """Geo-replication from one cluster to another is cut; clients are not affected."""

    kind: Literal["replication_cut"]
    facts = FaultFacts("link")
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

    @property
    def target(self) -> str | None:
        return str(self.from_)

    def label(self, index: int) -> str:
        return f"#{index} replication_cut {self.from_}->{self.to}"

    @model_validator(mode="after")
    def _check(self) -> ReplicationCutFault:
        if self.from_ == self.to:
            _raise_problems([(("to",), f"expected a cluster other than from ({self.from_!r}), found {self.to!r}")])
        return self


class OperatorSwitchFault(_Fault):
    """The operator switches the URL provider to another cluster (provider kind `controlled` only)."""

    kind: Literal["operator_switch"]
    facts = FaultFacts("harness", instant=True, needs_provider=("controlled", "an operator switches the URL provider"))
    to: ClusterName
    """The cluster the URL provider serves from then on."""
    at: Duration
    """When the operator switches, from the start of the workload."""

    @property
    def target(self) -> str | None:
        return str(self.to)

    def label(self, index: int) -> str:
        return f"#{index} operator_switch ->{self.to}"


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
    facts = FaultFacts("harness", needs_provider=("controlled", "only ControlledClusterFailover polls a URL provider"))
    answer: UrlProviderAnswer
    """The kind of bad answer (docs/reliability/url-provider-answers.md shows what each one sends)."""
    at: Duration
    """When the bad answers start, from the start of the workload."""
    for_: PositiveDuration = Field(alias="for")
    """How long the URL provider answers badly."""

    @property
    def end(self) -> float | None:
        return self.at.seconds + self.for_.seconds

    @property
    def target(self) -> str | None:
        return None

    def label(self, index: int) -> str:
        return f"#{index} url_provider {self.answer}"


class BrokerKillFault(_WindowFault):
    """One broker of a multi-broker cluster is killed (SIGKILL) and started again after `for`; its bundles move
    to the other brokers once its metadata session expires."""

    kind: Literal["broker_kill"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, restarts=True, proposal="PIP-7")
    broker: BrokerIndex
    """The broker's index in the cluster (0 to topology.brokers - 1)."""

    def label(self, index: int) -> str:
        return f"#{index} {self.kind} {self.cluster}/{self.broker}"


class BrokerPauseFault(_WindowFault):
    """One broker of a multi-broker cluster is frozen (SIGSTOP) for `for`, then resumed."""

    kind: Literal["broker_pause"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, slow_to_fail=True, proposal="PIP-7")
    broker: BrokerIndex
    """The broker's index in the cluster (0 to topology.brokers - 1)."""

    def label(self, index: int) -> str:
        return f"#{index} {self.kind} {self.cluster}/{self.broker}"


class DomainOutageFault(_WindowFault):
    """Every broker of a failure domain is killed (SIGKILL) at once and started again after `for`.

    A kill, not a network cut: only a broker whose metadata session expires gives up its bundles, so this is
    what moves them to the surviving domains (a cut broker keeps them and its clients wait)."""

    kind: Literal["domain_outage"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, restarts=True, proposal="PIP-7")
    domain: DomainName
    """The domain, as declared in topology.failure_domains for the cluster."""

    def label(self, index: int) -> str:
        return f"#{index} domain_outage {self.cluster}/{self.domain}"


class ClockSkewFault(_WindowFault):
    """The wall clock of every process of the cluster jumps `ahead` or `behind` (exactly one) for `for`, then
    back: what their logs, HTTP answers and PIP-136 origin times say the time is. Their timeouts and sleeps keep
    the host's pace (libfaketime preloaded, the monotonic clock left alone)."""

    kind: Literal["clock_skew"]
    facts = FaultFacts("processes")
    ahead: PositiveDuration | None = None
    """How far the cluster's clock runs ahead of the host's."""
    behind: PositiveDuration | None = None
    """How far the cluster's clock runs behind the host's."""

    @property
    def offset_s(self) -> float:
        """Seconds the cluster's clock is moved by (negative: behind)."""
        if self.ahead is not None:
            return self.ahead.seconds
        return -self.behind.seconds if self.behind is not None else 0.0

    def label(self, index: int) -> str:
        return f"#{index} clock_skew {self.cluster} {self.offset_s:+g}s"

    @model_validator(mode="after")
    def _check(self) -> ClockSkewFault:
        if (self.ahead is None) == (self.behind is None):
            _raise_problems([(("ahead",), "expected exactly one of ahead or behind (how far the clock moves)")])
        return self


#: The broker setting blue needs for a migration (Pulsar's default, 0, never runs the migration check).
MIGRATION_CHECK_SETTING = "clusterMigrationCheckDurationSeconds"


class MigrateFault(_Fault):
    """An operator migrates the workload from one cluster to another (PIP-188 blue-green): blue closes the
    workload's topics to writes, redirects their producers to `to`, and their consumers once they have drained
    blue's backlog. The migration is not undone at a set time: it is rolled back when the scenario ends."""

    kind: Literal["migrate"]
    facts = FaultFacts("harness", instant=True, proposal="PIP-188")
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

    @property
    def target(self) -> str | None:
        return str(self.from_)

    def label(self, index: int) -> str:
        return f"#{index} migrate {self.from_}->{self.to}"

    @model_validator(mode="after")
    def _check(self) -> MigrateFault:
        if self.from_ == self.to:
            _raise_problems([(("to",), f"expected a cluster other than from ({self.from_!r}), found {self.to!r}")])
        return self


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
    | ClockSkewFault
    | MigrateFault,
    Field(discriminator="kind"),
]

# The kinds, derived from the union (the one place each kind is declared), in its order.
FAULT_KINDS: tuple[str, ...] = tuple(_kind_of(m) for m in _members(Fault))
FAULT_CLASSES: dict[str, type[_Fault]] = {_kind_of(m): m for m in _members(Fault)}
"""Fault kind (the YAML name) -> its class (and so its ``facts``)."""
