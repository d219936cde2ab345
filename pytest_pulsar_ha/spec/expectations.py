"""What must hold (``expect:``): a union discriminated by each item's single key, and the rules that each
expectation can be judged in its scenario."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    Discriminator,
    Field,
    Strict,
    Tag,
    model_validator,
)

from pytest_pulsar_ha.spec.base import (
    ClusterName,
    Count,
    DomainName,
    Loc,
    PositiveDuration,
    TrueFlag,
    Window,
    _check_window,
    _members,
    _Model,
    _raise_problems,
)
from pytest_pulsar_ha.spec.faults import BROKER_FAULT_KINDS, MigrateFault

if TYPE_CHECKING:
    from pytest_pulsar_ha.spec.scenario import Scenario


# -- expectations --------------------------------------------------------------------------------------------


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

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster this expectation names, with where (below its item in ``expect``)."""
        yield from ()


class SwitchExpectation(_Expectation):
    """Clients switch to a cluster in time."""

    kind: ClassVar[str] = "switch"
    switch: SwitchSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("switch", "to"), self.switch.to


class SwitchBackExpectation(_Expectation):
    """Clients come back in time after the fault's end."""

    kind: ClassVar[str] = "switch_back"
    switch_back: SwitchBackSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("switch_back", "to"), self.switch_back.to


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

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        if self.placement.cluster is not None:
            yield ("placement", "cluster"), self.placement.cluster


class ReassignedExpectation(_Expectation):
    """Every topic is served again by a surviving broker within a time after a broker or domain fault."""

    kind: ClassVar[str] = "reassigned"
    reassigned: ReassignedSpec


class ProducersRedirectedExpectation(_Expectation):
    """Producers are redirected in time (first ack by the target cluster)."""

    kind: ClassVar[str] = "producers_redirected"
    producers_redirected: RedirectSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("producers_redirected", "to"), self.producers_redirected.to


class DrainedBeforeRedirectExpectation(_Expectation):
    """Every subscription receives all that `from` acknowledged before any message delivered by `to`."""

    kind: ClassVar[str] = "drained_before_redirect"
    drained_before_redirect: DrainedSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        spec = self.drained_before_redirect
        yield ("drained_before_redirect", "from"), spec.from_
        yield ("drained_before_redirect", "to"), spec.to


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


# The kinds, derived from the union (the one place each kind is declared), in its order.
EXPECTATION_KINDS: tuple[str, ...] = tuple(str(get_args(m)[1].tag) for m in _members(Expectation))


# -- the rules -----------------------------------------------------------------------------------------------


def placement_cluster(scenario: Scenario, spec: PlacementSpec) -> str | None:
    """The cluster a placement expectation reads: its own, else the provider's primary, else the first."""
    if spec.cluster is not None:
        return spec.cluster
    if scenario.provider.primary is not None:
        return scenario.provider.primary
    return scenario.topology.clusters[0] if scenario.topology.clusters else None


def check_expectations(scenario: Scenario) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    workload = scenario.workload
    kinds = {e.kind for e in scenario.expect}
    for index, expectation in enumerate(scenario.expect):
        loc: Loc = ("expect", index, expectation.kind)
        if expectation.kind in ("switch", "switch_back", "no_switch") and scenario.provider.kind == "none":
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
            problems += _check_fault_ref(scenario, expectation, loc)
        if isinstance(expectation, PlacementExpectation):
            problems += _check_placement(scenario, expectation.placement, loc)
        if isinstance(expectation, ProducersRedirectedExpectation):
            problems += _check_window_ref(scenario, expectation.producers_redirected, loc)
        if isinstance(expectation, DrainedBeforeRedirectExpectation):
            problems += _check_drained(scenario, expectation.drained_before_redirect, loc)
        if isinstance(expectation, ReassignedExpectation):
            problems += _check_reassigned(scenario, expectation.reassigned, loc)
    return problems


def _check_placement(scenario: Scenario, spec: PlacementSpec, loc: Loc) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    group = scenario.workload.anti_affinity_group
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
    cluster = placement_cluster(scenario, spec)
    if cluster is None or cluster not in scenario.topology.failure_domains:
        problems.append(
            (
                loc,
                f"spread: domain needs failure domains declared for {cluster or 'the cluster'} in "
                "topology.failure_domains",
            )
        )
    return problems


def _check_reassigned(scenario: Scenario, spec: ReassignedSpec, loc: Loc) -> list[tuple[Loc, str]]:
    if spec.fault >= len(scenario.faults):
        if not scenario.faults:
            return [(loc, "reassigned is measured from a broker fault, found no faults in this scenario")]
        return [
            ((*loc, "fault"), f"expected the index of a fault (0 to {len(scenario.faults) - 1}), found {spec.fault}")
        ]
    kind = scenario.faults[spec.fault].kind
    if kind not in BROKER_FAULT_KINDS:
        return [
            (
                (*loc, "fault"),
                f"reassigned is measured from a fault on brokers ({', '.join(BROKER_FAULT_KINDS)}); "
                f"fault {spec.fault} is a {kind} fault",
            )
        ]
    return []


def _check_window_ref(scenario: Scenario, spec: RedirectSpec, loc: Loc) -> list[tuple[Loc, str]]:
    if not scenario.faults:
        return [(loc, "producers_redirected is measured from a migrate entry, found no faults in this scenario")]
    if spec.fault >= len(scenario.faults):
        return [
            ((*loc, "fault"), f"expected the index of a fault (0 to {len(scenario.faults) - 1}), found {spec.fault}")
        ]
    fault = scenario.faults[spec.fault]
    if spec.of == "fault_end" and fault.end is None:
        return [
            (
                (*loc, "fault"),
                f"the window is measured from the end of fault {spec.fault}, found a {fault.kind} fault "
                "without a duration ('for')",
            )
        ]
    if not any(isinstance(f, MigrateFault) and f.to == spec.to for f in scenario.faults):
        return [((*loc, "to"), f"no migrate entry in faults redirects clients to {spec.to!r}")]
    return []


def _check_drained(scenario: Scenario, spec: DrainedSpec, loc: Loc) -> list[tuple[Loc, str]]:
    if any(isinstance(f, MigrateFault) and f.from_ == spec.from_ and f.to == spec.to for f in scenario.faults):
        return []
    return [(loc, f"no migrate entry in faults moves clients from {spec.from_!r} to {spec.to!r}")]


def _check_fault_ref(
    scenario: Scenario, expectation: SwitchExpectation | SwitchBackExpectation, loc: Loc
) -> list[tuple[Loc, str]]:
    if isinstance(expectation, SwitchExpectation):
        spec: SwitchSpec | SwitchBackSpec = expectation.switch
        needs_end = expectation.switch.of == "fault_end"
    else:
        spec = expectation.switch_back
        needs_end = True
    drawn = scenario.generate.count if scenario.generate is not None else 0
    total = len(scenario.faults) + drawn
    if not total:
        return [(loc, f"{expectation.kind} is measured from a fault, found no faults in this scenario")]
    if spec.fault >= total:
        also = f", the drawn ones after the {len(scenario.faults)} written" if drawn else ""
        return [
            (
                (*loc, "fault"),
                f"expected the index of a fault (0 to {total - 1}{also}), found {spec.fault}",
            )
        ]
    if spec.fault >= len(scenario.faults):
        return []  # a drawn fault: it always has a duration
    fault = scenario.faults[spec.fault]
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


def check_metadata(scenario: Scenario) -> list[tuple[Loc, str]]:
    """Metadata writes need metadata sync, and the metadata expectations need metadata writes."""
    problems: list[tuple[Loc, str]] = []
    metadata = scenario.workload.metadata
    if metadata is not None and scenario.topology.metadata_sync is None:
        problems.append(
            (
                ("workload", "metadata"),
                "metadata writes need clusters that sync metadata: set topology.metadata_sync to pulsar or reference",
            )
        )
    until = metadata.until if metadata is not None else None
    if until is not None and until.seconds > scenario.workload.duration.seconds:
        problems.append(
            (
                ("workload", "metadata", "until"),
                f"the writes stop at {until}, after the end of the workload ({scenario.workload.duration})",
            )
        )
    for index, expectation in enumerate(scenario.expect):
        if isinstance(expectation, ConvergedExpectation | LastWriterWinsExpectation) and metadata is None:
            problems.append(
                (
                    ("expect", index, expectation.kind),
                    f"{expectation.kind} judges metadata writes: add workload.metadata (policy, writers, every)",
                )
            )
    return problems
