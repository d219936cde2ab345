"""What the clusters finally hold of the written metadata (PIP-136)."""

from __future__ import annotations

from typing import ClassVar

from pytest_pulsar_ha.scenario.base import PositiveDuration, TrueFlag, _Model
from pytest_pulsar_ha.scenario.expectations.base import _Expectation
from pytest_pulsar_ha.scenario.facts import ExpectationFacts

__all__ = [
    "ConvergedExpectation",
    "ConvergedSpec",
    "LastWriterWinsExpectation",
    "LatestWriteKeptExpectation",
]


class ConvergedSpec(_Model):
    """Every cluster holds the same value of the written policy within a time after the last write and the last
    fault's end, and keeps it."""

    within: PositiveDuration


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
