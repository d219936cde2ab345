"""The parts of a run, one per feature, and the one table of them (beside the checks' ``CHECKERS`` and the
nemesis' ``PRIMITIVES``).

The conductor builds the parts that apply to the scenario in table order, registers each one's ``close`` and calls
its ``prepare`` (so they close in reverse table order, whatever happens), starts them by ``start_stage``, waits
out the workload, and finishes them by ``finish_stage``. A new feature is a new part and one line in
:data:`PARTS`; the conductor does not change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol

from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts.clients import Clock, Drain, ProviderPart, PythonClientPart, WorkloadPart
from pytest_pulsar_ha.run.parts.java_client import JavaClientPart
from pytest_pulsar_ha.run.parts.metadata import Metadata
from pytest_pulsar_ha.run.parts.migrations import Migrations
from pytest_pulsar_ha.run.parts.mutation import Mutation
from pytest_pulsar_ha.run.parts.namespaces import FailureDomains, GroupPlacement, Namespaces
from pytest_pulsar_ha.run.parts.nemesis import NemesisPart
from pytest_pulsar_ha.run.parts.placement import PlacementWatches
from pytest_pulsar_ha.run.parts.soak import SoakSampler


class RunPart(Protocol):
    start_stage: ClassVar[int]
    """when ``start`` runs, in the order of :mod:`~pytest_pulsar_ha.run.parts.stages` (parts of one stage: in
    table order)"""
    finish_stage: ClassVar[int]

    def prepare(self, ctx: RunContext) -> None:
        """Build what the part needs, before anything starts; may set fields of ``ctx`` later parts read."""

    def start(self, ctx: RunContext) -> None: ...

    def finish(self, ctx: RunContext) -> None: ...

    def close(self, ctx: RunContext) -> None:
        """Always runs once ``prepare`` was called (also when it raised), in reverse table order."""


PartFactory = Callable[[RunContext], RunPart | None]
"""Builds a part for this run, or None where the part does not apply to the scenario."""

PARTS: tuple[PartFactory, ...] = (
    FailureDomains.of,
    Namespaces.of,
    GroupPlacement.of,
    Migrations.of,
    ProviderPart.of,
    Mutation.of,
    PythonClientPart.of,
    JavaClientPart.of,
    Metadata.of,
    WorkloadPart.of,
    NemesisPart.of,
    PlacementWatches.of,
    SoakSampler.of,
    Clock.of,
    Drain.of,
)
"""Every part, in the order they are prepared (and closed in reverse)."""
