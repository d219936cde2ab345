"""What the parts of one run share: the inputs, the history's sink, what each part builds for the later ones, and
the problems and facts they report (emitted in a fixed order, whatever order the parts run in)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_pulsar_ha.history import EventLog
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.loader import ScenarioCase
from pytest_pulsar_ha.scenario.model import Scenario

if TYPE_CHECKING:
    from pytest_pulsar_ha.run.provider import ProviderSetup
    from pytest_pulsar_ha.workload.fleet.fleet import FleetWorkload
    from pytest_pulsar_ha.workload.java_workload import JavaWorkload
    from pytest_pulsar_ha.workload.plan import WorkloadPlan
    from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload

PROBLEM_ORDER = ("drain", "nemesis", "migrations", "metadata")
"""The order the parts' problems are reported in (a source not listed comes after, in the order it first reported)."""

FACT_ORDER = (
    "scenario",
    "file",
    "seed",
    "pulsar",
    "clusters",
    "provider",
    "client",
    "client version",
    "faults",
    "schedule",
    "drawn faults",
    "events",
    "figures",
    "soak history",
    "soak memory",
    "soak drain",
    "client stuck",
    "drain",
)
"""The order of a result's facts (a key not listed comes after, in the order it was set)."""


@dataclass(frozen=True)
class WorkloadNamespaces:
    """Where the workload runs: its namespaces, their tenant, and its anti-affinity group."""

    namespaces: tuple[str, ...]
    """``tenant/namespace`` of each, in order"""
    tenant: str
    group: str | None = None
    """the anti-affinity group's name in Pulsar (unique to this run)"""
    label: str | None = None
    """the group's name in the scenario"""


@dataclass
class RunContext:
    case: ScenarioCase
    scenario: Scenario
    """the case's scenario with this run's drawn faults (``generate:``)"""
    seed: int
    env: PulsarHaEnvironment
    clusters: list[str]
    evidence_dir: Path
    log: EventLog
    result: ScenarioResult
    # set by the parts, for the parts after them
    spaces: WorkloadNamespaces | None = None
    topics: list[str] = field(default_factory=list)
    plan: WorkloadPlan | None = None
    migrations: Any = None
    provider: ProviderSetup | None = None
    workload: SingleProcessWorkload | JavaWorkload | FleetWorkload | None = None
    client_initialized_s: float | None = None
    """when the Python client was built (a native provider checks from then on)"""
    hung: list[str | None] = field(default_factory=list)
    """clients whose close did not return in time"""
    sampler: Any = None
    """a soak's memory sampler"""
    t0: float = 0.0
    hit: Callable[[], Any] | None = None
    """which brokers the faults hit (for the checks), once the faults are known"""
    interrupted: bool = False
    mutant: str | None = None
    """the mutant this run applies (``pulsar-ha mutate``), if any"""
    wrap_consumer: Callable[[Any], Any] | None = None
    """wraps each consumer the Python workload creates (a client mutant), if set"""
    wrap_producer: Callable[[Any], Any] | None = None
    problems: dict[str, list[str]] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)

    def problem(self, source: str, message: str) -> None:
        self.problems.setdefault(source, []).append(message)

    def ordered_problems(self) -> list[str]:
        sources = [s for s in PROBLEM_ORDER if s in self.problems]
        sources += [s for s in self.problems if s not in PROBLEM_ORDER]
        return [message for source in sources for message in self.problems[source]]

    def ordered_facts(self) -> dict[str, str]:
        keys = [k for k in FACT_ORDER if k in self.facts] + [k for k in self.facts if k not in FACT_ORDER]
        return {key: self.facts[key] for key in keys}

    def needs_plan(self) -> WorkloadPlan:
        if self.plan is None:
            raise RuntimeError("no workload plan: the Namespaces part must run before this one")
        return self.plan

    def needs_workload(self) -> SingleProcessWorkload | JavaWorkload | FleetWorkload:
        if self.workload is None:
            raise RuntimeError("no workload: a client part must run before this one")
        return self.workload

    def needs_provider(self) -> ProviderSetup:
        if self.provider is None:
            raise RuntimeError("no provider: a client part must run before this one")
        return self.provider

    def sleep_until(self, moment: float) -> None:
        """Wait until ``moment`` (time.monotonic()), in steps of 0.1 s."""
        while time.monotonic() < moment:
            time.sleep(0.1)


def expand_partitions(scenario: Scenario, topics: list[str]) -> list[str]:
    """The workload's topics with each partitioned one as its partitions (what brokers load and migrate)."""
    partitions = {topic.name: topic.partitions for topic in scenario.workload.topics}
    out = []
    for topic in topics:
        count = partitions.get(topic.rsplit("/", 1)[-1], 0)
        out += [f"{topic}-partition-{i}" for i in range(count)] if count else [topic]
    return out
