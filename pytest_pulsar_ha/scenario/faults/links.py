"""Faults on a geo-replication link between two clusters; clients are not affected."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from pytest_pulsar_ha.scenario.base import ClusterName, PositiveDuration, _raise_problems
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _Fault, _Window
from pytest_pulsar_ha.scenario.quantities import Duration

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.generate import FaultSpace

__all__ = ["ReplicationCutFault", "ReplicationLatencyFault"]


class _FromTo(_Fault):
    """A fault that leaves one cluster for another (a link, a migration): `from` and `to` differ."""

    from_: ClusterName = Field(alias="from")
    """The cluster replicating."""
    to: ClusterName
    """The cluster it replicates to."""

    @property
    def target(self) -> str | None:
        return str(self.from_)

    def label(self, index: int) -> str:
        return f"#{index} {self.kind} {self.from_}->{self.to}"

    @model_validator(mode="after")
    def _check_from_to(self) -> _FromTo:
        if self.from_ == self.to:
            _raise_problems([(("to",), f"expected a cluster other than from ({self.from_!r}), found {self.to!r}")])
        return self


class ReplicationCutFault(_Window, _FromTo):
    """Geo-replication from one cluster to another is cut; clients are not affected."""

    kind: Literal["replication_cut"]
    facts = FaultFacts("link")
    drawn = True
    drawn_needs_two = "to cut a link between"
    wording: ClassVar[dict[str, str]] = {
        "at": "When replication is cut, from the start of the workload.",
        "for_": "How long replication stays cut.",
    }

    @classmethod
    def draw(cls, rng: random.Random, space: FaultSpace, clusters: Sequence[str]) -> dict[str, Any]:
        source, target = rng.sample(list(clusters), 2)
        return {"from": source, "to": target}


class ReplicationLatencyFault(_Window, _FromTo):
    """Geo-replication from one cluster to another is delayed: what the replicator of `from` sends to `to` (its
    messages) waits `latency` in the link's proxy; the other direction of the link, `to`'s receipts, and clients
    are not affected."""

    kind: Literal["replication_latency"]
    facts = FaultFacts("link")
    wording: ClassVar[dict[str, str]] = {
        "at": "When the delay starts, from the start of the workload.",
        "for_": "How long replication stays delayed.",
    }
    latency: PositiveDuration
    """Delay added to what the replicator sends over the link."""
    jitter: Duration = Duration("0ms")
    """Random variation of the delay."""
