"""Faults on some brokers of a multi-broker cluster (PIP-7): one broker killed or frozen, a failure domain killed."""

from __future__ import annotations

from typing import Literal

from pytest_pulsar_ha.scenario.base import BrokerIndex, DomainName
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _OnCluster, _Window

__all__ = ["BrokerKillFault", "BrokerPauseFault", "DomainOutageFault"]


class _OnBroker(_Window, _OnCluster):
    broker: BrokerIndex
    """The broker's index in the cluster (0 to topology.brokers - 1)."""

    def label(self, index: int) -> str:
        return f"#{index} {self.kind} {self.cluster}/{self.broker}"


class BrokerKillFault(_OnBroker):
    """One broker of a multi-broker cluster is killed (SIGKILL) and started again after `for`; its bundles move
    to the other brokers once its metadata session expires."""

    kind: Literal["broker_kill"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, restarts=True, proposal="PIP-7")


class BrokerPauseFault(_OnBroker):
    """One broker of a multi-broker cluster is frozen (SIGSTOP) for `for`, then resumed."""

    kind: Literal["broker_pause"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, slow_to_fail=True, proposal="PIP-7")


class DomainOutageFault(_Window, _OnCluster):
    """Every broker of a failure domain is killed (SIGKILL) at once and started again after `for`.

    A kill, not a network cut: only a broker whose metadata session expires gives up its bundles, so this is
    what moves them to the surviving domains (a cut broker keeps them and its clients wait)."""

    kind: Literal["domain_outage"]
    facts = FaultFacts("processes", takes_cluster_down=True, on_brokers=True, restarts=True, proposal="PIP-7")
    domain: DomainName
    """The domain, as declared in topology.failure_domains for the cluster."""

    def label(self, index: int) -> str:
        return f"#{index} domain_outage {self.cluster}/{self.domain}"
