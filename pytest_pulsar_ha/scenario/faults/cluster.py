"""Faults on a whole cluster: its connections cut, slowed, hung or reset; its processes killed or frozen."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import Field, Strict

from pytest_pulsar_ha.scenario.base import PositiveDuration
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _OnCluster, _Timed, _Window
from pytest_pulsar_ha.scenario.quantities import Bandwidth, Duration

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.generate import FaultSpace

__all__ = ["BandwidthFault", "KillFault", "LatencyFault", "OutageFault", "PauseFault", "ResetFault", "TimeoutFault"]


class OutageFault(_Window, _OnCluster):
    """The cluster is unreachable: every connection to it is cut and refused."""

    kind: Literal["outage"]
    drawn = True
    facts = FaultFacts("connections", takes_cluster_down=True, cuts_replication=True)
    replication: Annotated[bool, Strict()] = True
    """Cut geo-replication to and from the cluster as well (false: only clients lose it)."""

    @property
    def cuts_links(self) -> bool:
        return self.replication


class KillFault(_Window, _OnCluster):
    """The cluster's processes are killed (SIGKILL) and started again after `for`."""

    kind: Literal["kill"]
    drawn = True
    facts = FaultFacts("processes", takes_cluster_down=True, quiet_end=True, restarts=True)


class PauseFault(_Window, _OnCluster):
    """The cluster's processes are frozen (SIGSTOP) for `for`, then resumed."""

    kind: Literal["pause"]
    drawn = True
    facts = FaultFacts("processes", takes_cluster_down=True, quiet_end=True, slow_to_fail=True)


class LatencyFault(_Window, _OnCluster):
    """Traffic to the cluster is delayed."""

    kind: Literal["latency"]
    facts = FaultFacts("connections", takes_cluster_down=True)
    drawn = True
    latency: PositiveDuration
    """Delay added to every packet."""
    jitter: Duration = Duration("0ms")
    """Random variation of the delay."""

    @classmethod
    def draw(cls, rng: random.Random, space: FaultSpace, clusters: Sequence[str]) -> dict[str, Any]:
        low, high = space.latency[0].seconds, space.latency[1].seconds
        return {**super().draw(rng, space, clusters), "latency": f"{round(rng.uniform(low, high) * 1000)}ms"}


class TimeoutFault(_Window, _OnCluster):
    """The cluster hangs: connections are accepted but nothing is ever answered."""

    kind: Literal["timeout"]
    facts = FaultFacts("connections", takes_cluster_down=True, quiet_end=True, slow_to_fail=True)


class BandwidthFault(_Window, _OnCluster):
    """Traffic to the cluster is throttled."""

    kind: Literal["bandwidth"]
    facts = FaultFacts("connections", takes_cluster_down=True)
    rate: Bandwidth
    """The bandwidth left, e.g. 64KB/s."""


class ResetFault(_Timed, _OnCluster):
    """The cluster's connections are reset at `at` (once), or continuously for `for` when given."""

    kind: Literal["reset"]
    facts = FaultFacts("connections", takes_cluster_down=True)
    wording: ClassVar[dict[str, str]] = {
        "cluster": "The cluster whose connections are reset.",
        "at": "When the connections are reset (first), from the start of the workload.",
    }
    for_: PositiveDuration | None = Field(default=None, alias="for")
    """Keep resetting connections for this long (default: reset them once)."""
