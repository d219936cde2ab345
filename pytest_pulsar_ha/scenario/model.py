"""One chaos scenario: one entry of a `*.pulsar-ha.yaml` file, validated.

Its parts are typed in their own modules (topology, providers, workload, faults, expectations, modes, generate);
the checks that read several parts are the rules of :mod:`pytest_pulsar_ha.scenario.rules`, run in their order once
every part is valid, every problem reported at once with its location.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import Field, model_validator

from pytest_pulsar_ha.scenario.base import Loc, MarkName, ScenarioName, Seed, _Model, _raise_problems
from pytest_pulsar_ha.scenario.expectation_rules import placement_cluster
from pytest_pulsar_ha.scenario.expectations import Expectation, PlacementSpec
from pytest_pulsar_ha.scenario.faults import Fault
from pytest_pulsar_ha.scenario.generate import FaultSpace
from pytest_pulsar_ha.scenario.modes import ExpectFailure, ExpectFailures, Soak
from pytest_pulsar_ha.scenario.providers import Client, NoProvider, Provider, PythonClient
from pytest_pulsar_ha.scenario.rules import RULES
from pytest_pulsar_ha.scenario.topology import Topology
from pytest_pulsar_ha.scenario.workload import Workload


class Scenario(_Model):
    """One chaos scenario: clusters, a failover provider, a workload, faults at set times and what must hold."""

    name: ScenarioName
    """Unique in its file; the test's name."""
    description: str = ""
    """What happens, in a sentence or two."""
    seed: Seed | None = None
    """Seed of every random choice (default: derived from the scenario id)."""
    marks: tuple[MarkName, ...] = ()
    """pytest marks applied to the test (register them as usual)."""
    topology: Topology = Topology()
    """The clusters (default: the session's)."""
    provider: Provider = NoProvider(kind="none")
    """How clients choose their cluster (default: `kind: none`, straight to the primary)."""
    client: Client = PythonClient(kind="python")
    """Which Pulsar client runs the workload (default: `kind: python`; `kind: java` runs Java's)."""
    workload: Workload
    """The producers and consumers that run while the faults happen."""
    faults: tuple[Fault, ...] = ()
    """What goes wrong, and when."""
    generate: FaultSpace | None = None
    """Faults drawn at random from the run's seed, added after `faults`."""
    expect: tuple[Expectation, ...] = Field(min_length=1)
    """What must hold; each item has one key naming the expectation."""
    expect_failure: ExpectFailures | None = None
    """Mark the scenario as written to fail (an expected failure, reported as XFAIL; a pass fails the run). A list
    names each failure seen, with the Pulsar versions it was seen on: a release that fails otherwise, or one seen
    to fail in two ways (a run must show one of them)."""
    soak: Soak | None = None
    """Run as a soak: the history streamed to Parquet in bounded memory and judged on Spark (long runs)."""

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        _raise_problems([problem for rule in RULES for problem in rule(self)])
        return self

    @property
    def expected_failures(self) -> tuple[ExpectFailure, ...]:
        """The scenario's expected failures, as a tuple (one, several, or none)."""
        if self.expect_failure is None:
            return ()
        return self.expect_failure if isinstance(self.expect_failure, tuple) else (self.expect_failure,)

    @property
    def failures_to_show(self) -> tuple[ExpectFailure, ...]:
        """The expected failures a run must show (XFAIL marks): all but declared deadlocks, which excuse a run
        only when the deadlock happens (the runner judges those)."""
        return tuple(entry for entry in self.expected_failures if entry.deadlock is None)

    def expected_failures_on(self, versions: set[str]) -> tuple[ExpectFailure, ...]:
        """The expected failures that apply on clusters that answered ``versions``: a run shows one of them (none:
        every expectation must hold there)."""
        return tuple(entry for entry in self.expected_failures if entry.applies_to(versions))

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster named by the provider, the workload, the faults and the expectations, with where."""
        provider = self.provider
        if provider.primary is not None:
            yield ("provider", "primary"), provider.primary
        for index, name in enumerate(getattr(provider, "secondaries", ())):
            yield ("provider", "secondaries", index), name
        for loc, name in self.workload.cluster_refs():
            yield ("workload", *loc), name
        for index, fault in enumerate(self.faults):
            for loc, name in fault.cluster_refs():
                yield ("faults", index, *loc), name
        if self.generate is not None:
            for loc, name in self.generate.cluster_refs():
                yield ("generate", *loc), name
        for index, expectation in enumerate(self.expect):
            for loc, name in expectation.cluster_refs():
                yield ("expect", index, *loc), name

    def placement_cluster(self, spec: PlacementSpec) -> str | None:
        """The cluster a placement expectation reads: its own, else the provider's primary, else the first."""
        return placement_cluster(self, spec)
