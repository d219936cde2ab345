"""What must hold (``expect:``): a union discriminated by each item's single key; each kind carries its facts
(:class:`~pytest_pulsar_ha.scenario.facts.ExpectationFacts`). The rules are in
:mod:`~pytest_pulsar_ha.scenario.expectation_rules`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    Discriminator,
    Field,
    Strict,
    Tag,
    model_validator,
)

from pytest_pulsar_ha.scenario.base import (
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
from pytest_pulsar_ha.scenario.facts import ExpectationFacts

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
    """Messages are received in the order they were sent, among messages acknowledged by one cluster: the first
    receipt of each message, and each cluster's own deliveries (a cluster may deliver a message again after a
    reconnect, rewinding its stream; it may not deliver one it never delivered after a later one)."""

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
    facts: ClassVar[ExpectationFacts]
    """What the harness needs to know of the kind (:mod:`~pytest_pulsar_ha.scenario.facts`)."""

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster this expectation names, with where (below its item in ``expect``)."""
        yield from ()


class SwitchExpectation(_Expectation):
    """Clients switch to a cluster in time."""

    kind: ClassVar[str] = "switch"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-121", needs_provider=True, window=True)
    switch: SwitchSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("switch", "to"), self.switch.to


class SwitchBackExpectation(_Expectation):
    """Clients come back in time after the fault's end."""

    kind: ClassVar[str] = "switch_back"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-121", needs_provider=True, window=True)
    switch_back: SwitchBackSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("switch_back", "to"), self.switch_back.to


class NoSwitchExpectation(_Expectation):
    """Clients never leave the cluster they started on."""

    kind: ClassVar[str] = "no_switch"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-121", needs_provider=True)
    no_switch: TrueFlag


class AvailabilityExpectation(_Expectation):
    """Enough sends are acknowledged in time."""

    kind: ClassVar[str] = "availability"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None)
    availability: AvailabilitySpec


class NoLossExpectation(_Expectation):
    """Every acknowledged message is received in the end."""

    kind: ClassVar[str] = "no_loss"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None, needs_consumer=True, in_soak=True)
    no_loss: TrueFlag


class OrderingExpectation(_Expectation):
    """Messages arrive in order, per key or per producer."""

    kind: ClassVar[str] = "ordering"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None, needs_consumer=True, in_soak=True)
    ordering: OrderingSpec


class MaxDuplicatesExpectation(_Expectation):
    """At most this many messages are received more than once."""

    kind: ClassVar[str] = "max_duplicates"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None, needs_consumer=True, in_soak=True)
    max_duplicates: Count


class PlacementExpectation(_Expectation):
    """The anti-affinity group is spread over the failure domains, before the faults and after them."""

    kind: ClassVar[str] = "placement"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-7")
    placement: PlacementSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        if self.placement.cluster is not None:
            yield ("placement", "cluster"), self.placement.cluster


class ReassignedExpectation(_Expectation):
    """Every topic is served again by a surviving broker within a time after a broker or domain fault."""

    kind: ClassVar[str] = "reassigned"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-7")
    reassigned: ReassignedSpec


class ProducersRedirectedExpectation(_Expectation):
    """Producers are redirected in time (first ack by the target cluster)."""

    kind: ClassVar[str] = "producers_redirected"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-188")
    producers_redirected: RedirectSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("producers_redirected", "to"), self.producers_redirected.to


class DrainedBeforeRedirectExpectation(_Expectation):
    """Every subscription receives all that `from` acknowledged before any message delivered by `to`."""

    kind: ClassVar[str] = "drained_before_redirect"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-188", needs_consumer=True)
    drained_before_redirect: DrainedSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        spec = self.drained_before_redirect
        yield ("drained_before_redirect", "from"), spec.from_
        yield ("drained_before_redirect", "to"), spec.to


class ConvergedExpectation(_Expectation):
    """Every cluster agrees on the written metadata in time (PIP-136)."""

    kind: ClassVar[str] = "converged"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-136")
    converged: ConvergedSpec


class LastWriterWinsExpectation(_Expectation):
    """What every cluster finally holds is the last write by origin time, ties to the cluster whose name sorts
    first (PIP-136's rule), computed by the oracle from the events the clusters published."""

    kind: ClassVar[str] = "last_writer_wins"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-136")
    last_writer_wins: TrueFlag


class LatestWriteKeptExpectation(_Expectation):
    """What every cluster finally holds is the write the workload made last by the harness's clock (the order in
    which a user made them), whatever the clusters' own clocks stamped on them: what last-writer-wins promises
    only while those clocks agree."""

    kind: ClassVar[str] = "latest_write_kept"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-136")
    latest_write_kept: TrueFlag


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
    | Annotated[LastWriterWinsExpectation, Tag("last_writer_wins")]
    | Annotated[LatestWriteKeptExpectation, Tag("latest_write_kept")],
    Discriminator(expectation_key),
]


# The kinds, derived from the union (the one place each kind is declared), in its order.
EXPECTATION_KINDS: tuple[str, ...] = tuple(str(get_args(m)[1].tag) for m in _members(Expectation))
EXPECTATION_CLASSES: dict[str, type[_Expectation]] = {
    str(get_args(m)[1].tag): get_args(m)[0] for m in _members(Expectation)
}
"""Expectation kind (its YAML key) -> its class (and so its ``facts``)."""
