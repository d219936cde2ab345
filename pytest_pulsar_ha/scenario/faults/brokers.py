"""Faults on some brokers of a multi-broker cluster (PIP-7): one broker killed or frozen, a failure domain killed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pytest_pulsar_ha.scenario.base import BrokerIndex, DomainName, Loc
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _OnCluster, _Window

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario

__all__ = ["BrokerKillFault", "BrokerPauseFault", "DomainOutageFault"]


class _OnBrokers(_Window, _OnCluster):
    def problems(self, scenario: Scenario) -> list[tuple[Loc, str]]:
        count = scenario.topology.brokers_of(self.cluster)
        if count is None or count < 2:
            return [
                (
                    ("cluster",),
                    f"{self.kind} needs a cluster of several brokers; set topology.brokers for {self.cluster} "
                    f"(found {count or 'the session default'})",
                )
            ]
        return self.struck_problems(scenario, count)

    def struck_problems(self, scenario: Scenario, count: int) -> list[tuple[Loc, str]]:
        """What is wrong with the brokers the fault names, in a cluster of ``count`` brokers."""
        raise NotImplementedError


class _OnBroker(_OnBrokers):
    broker: BrokerIndex
    """The broker's index in the cluster (0 to topology.brokers - 1)."""

    def label(self, index: int) -> str:
        return f"#{index} {self.kind} {self.cluster}/{self.broker}"

    def struck_problems(self, scenario: Scenario, count: int) -> list[tuple[Loc, str]]:
        if self.broker < count:
            return []
        return [
            (
                ("broker",),
                f"broker index {self.broker} is out of range: {self.cluster} has {count} brokers "
                f"(indexes 0 to {count - 1})",
            )
        ]


class BrokerKillFault(_OnBroker):
    """One broker of a multi-broker cluster is killed (SIGKILL) and started again after `for`; its bundles move
    to the other brokers once its metadata session expires."""

    kind: Literal["broker_kill"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, restarts=True, proposal="PIP-7")


class BrokerPauseFault(_OnBroker):
    """One broker of a multi-broker cluster is frozen (SIGSTOP) for `for`, then resumed."""

    kind: Literal["broker_pause"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, slow_to_fail=True, proposal="PIP-7")


class DomainOutageFault(_OnBrokers):
    """Every broker of a failure domain is killed (SIGKILL) at once and started again after `for`.

    A kill, not a network cut: only a broker whose metadata session expires gives up its bundles, so this is
    what moves them to the surviving domains (a cut broker keeps them and its clients wait)."""

    kind: Literal["domain_outage"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, restarts=True, proposal="PIP-7")
    domain: DomainName
    """The domain, as declared in topology.failure_domains for the cluster."""

    def label(self, index: int) -> str:
        return f"#{index} domain_outage {self.cluster}/{self.domain}"

    def struck_problems(self, scenario: Scenario, count: int) -> list[tuple[Loc, str]]:
        known = list(scenario.topology.failure_domains.get(self.cluster, {}))
        if self.domain in known:
            return []
        listed = ", ".join(known) if known else "none (declare them in topology.failure_domains)"
        return [(("domain",), f"unknown failure domain {self.domain!r} of {self.cluster}; declared: {listed}")]
