"""Where the workload's namespaces are placed, and how soon a broker fault's topics are served again (PIP-7)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Literal

from pytest_pulsar_ha.scenario.base import ClusterName, Count, DomainName, Loc, PositiveDuration, _Model
from pytest_pulsar_ha.scenario.expectations.base import _Expectation
from pytest_pulsar_ha.scenario.facts import ExpectationFacts

__all__ = ["PlacementExpectation", "PlacementSpec", "ReassignedExpectation", "ReassignedSpec"]


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
