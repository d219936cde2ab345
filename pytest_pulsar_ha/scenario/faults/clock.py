"""Faults on a cluster's clock (PIP-136's origin times): its processes' wall clock moved ahead or behind."""

from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from pytest_pulsar_ha.scenario.base import PositiveDuration, _raise_problems
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _OnCluster, _Window

__all__ = ["ClockSkewFault"]


class ClockSkewFault(_Window, _OnCluster):
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
