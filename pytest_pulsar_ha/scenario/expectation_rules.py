"""The rules that each expectation can be judged in its scenario: what it needs (a provider, consumers, keyed
messages), the faults and clusters it refers to, and the metadata writes PIP-136's expectations judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_pulsar_ha.scenario.base import Loc
from pytest_pulsar_ha.scenario.expectations import (
    ConvergedExpectation,
    DrainedBeforeRedirectExpectation,
    DrainedSpec,
    LastWriterWinsExpectation,
    LatestWriteKeptExpectation,
    OrderingExpectation,
    PlacementExpectation,
    PlacementSpec,
    ProducersRedirectedExpectation,
    ReassignedExpectation,
    ReassignedSpec,
    RedirectSpec,
    SwitchBackExpectation,
    SwitchBackSpec,
    SwitchExpectation,
    SwitchSpec,
)
from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES, MigrateFault

METADATA_EXPECTATIONS = (ConvergedExpectation, LastWriterWinsExpectation, LatestWriteKeptExpectation)
"""The expectations that judge a workload's metadata writes (PIP-136)."""

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario


def placement_cluster(scenario: Scenario, spec: PlacementSpec) -> str | None:
    """The cluster a placement expectation reads: its own, else the provider's primary, else the first."""
    if spec.cluster is not None:
        return spec.cluster
    if scenario.provider.primary is not None:
        return scenario.provider.primary
    return scenario.topology.clusters[0] if scenario.topology.clusters else None


def check_expectations(scenario: Scenario) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    workload = scenario.workload
    kinds = {e.kind for e in scenario.expect}
    for index, expectation in enumerate(scenario.expect):
        loc: Loc = ("expect", index, expectation.kind)
        if expectation.facts.needs_provider and not scenario.provider.facts.fails_over:
            problems.append(
                (
                    loc,
                    f"{expectation.kind} needs a failover provider (provider kind auto, controlled or native), "
                    "found provider kind none",
                )
            )
        if expectation.kind == "no_switch" and kinds & {"switch", "switch_back"}:
            problems.append((loc, "no_switch contradicts the switch expectations of this scenario"))
        if expectation.facts.needs_consumer and workload.consumers == 0:
            problems.append((loc, f"{expectation.kind} needs at least one consumer, found workload.consumers 0"))
        if isinstance(expectation, OrderingExpectation) and expectation.ordering.per == "key" and not workload.keys:
            problems.append(
                (
                    (*loc, "per"),
                    "ordering per key needs keyed messages, found workload.keys 0; set workload.keys or use "
                    "per: producer",
                )
            )
        if isinstance(expectation, SwitchExpectation | SwitchBackExpectation):
            problems += _check_fault_ref(scenario, expectation, loc)
        if isinstance(expectation, PlacementExpectation):
            problems += _check_placement(scenario, expectation.placement, loc)
        if isinstance(expectation, ProducersRedirectedExpectation):
            problems += _check_window_ref(scenario, expectation.producers_redirected, loc)
        if isinstance(expectation, DrainedBeforeRedirectExpectation):
            problems += _check_drained(scenario, expectation.drained_before_redirect, loc)
        if isinstance(expectation, ReassignedExpectation):
            problems += _check_reassigned(scenario, expectation.reassigned, loc)
    return problems


def _check_placement(scenario: Scenario, spec: PlacementSpec, loc: Loc) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    group = scenario.workload.anti_affinity_group
    if group is None:
        problems.append(
            (
                (*loc, "group"),
                f"placement needs the workload in a group; set workload.anti_affinity_group: {spec.group}",
            )
        )
    elif spec.group != group:
        problems.append(
            ((*loc, "group"), f"expected the workload's anti-affinity group {group!r}, found {spec.group!r}")
        )
    cluster = placement_cluster(scenario, spec)
    if cluster is None or cluster not in scenario.topology.failure_domains:
        problems.append(
            (
                loc,
                f"spread: domain needs failure domains declared for {cluster or 'the cluster'} in "
                "topology.failure_domains",
            )
        )
    return problems


def _check_reassigned(scenario: Scenario, spec: ReassignedSpec, loc: Loc) -> list[tuple[Loc, str]]:
    if spec.fault >= len(scenario.faults):
        if not scenario.faults:
            return [(loc, "reassigned is measured from a broker fault, found no faults in this scenario")]
        return [
            ((*loc, "fault"), f"expected the index of a fault (0 to {len(scenario.faults) - 1}), found {spec.fault}")
        ]
    kind = scenario.faults[spec.fault].kind
    if not scenario.faults[spec.fault].facts.on_brokers:
        on_brokers = ", ".join(k for k, c in FAULT_CLASSES.items() if c.facts.on_brokers)
        return [
            (
                (*loc, "fault"),
                f"reassigned is measured from a fault on brokers ({on_brokers}); fault {spec.fault} is a {kind} fault",
            )
        ]
    return []


def _check_window_ref(scenario: Scenario, spec: RedirectSpec, loc: Loc) -> list[tuple[Loc, str]]:
    if not scenario.faults:
        return [(loc, "producers_redirected is measured from a migrate entry, found no faults in this scenario")]
    if spec.fault >= len(scenario.faults):
        return [
            ((*loc, "fault"), f"expected the index of a fault (0 to {len(scenario.faults) - 1}), found {spec.fault}")
        ]
    fault = scenario.faults[spec.fault]
    if spec.of == "fault_end" and fault.end is None:
        return [
            (
                (*loc, "fault"),
                f"the window is measured from the end of fault {spec.fault}, found a {fault.kind} fault "
                "without a duration ('for')",
            )
        ]
    if not any(isinstance(f, MigrateFault) and f.to == spec.to for f in scenario.faults):
        return [((*loc, "to"), f"no migrate entry in faults redirects clients to {spec.to!r}")]
    return []


def _check_drained(scenario: Scenario, spec: DrainedSpec, loc: Loc) -> list[tuple[Loc, str]]:
    if any(isinstance(f, MigrateFault) and f.from_ == spec.from_ and f.to == spec.to for f in scenario.faults):
        return []
    return [(loc, f"no migrate entry in faults moves clients from {spec.from_!r} to {spec.to!r}")]


def _check_fault_ref(
    scenario: Scenario, expectation: SwitchExpectation | SwitchBackExpectation, loc: Loc
) -> list[tuple[Loc, str]]:
    if isinstance(expectation, SwitchExpectation):
        spec: SwitchSpec | SwitchBackSpec = expectation.switch
        needs_end = expectation.switch.of == "fault_end"
    else:
        spec = expectation.switch_back
        needs_end = True
    drawn = scenario.generate.count if scenario.generate is not None else 0
    total = len(scenario.faults) + drawn
    if not total:
        return [(loc, f"{expectation.kind} is measured from a fault, found no faults in this scenario")]
    if spec.fault >= total:
        also = f", the drawn ones after the {len(scenario.faults)} written" if drawn else ""
        return [
            (
                (*loc, "fault"),
                f"expected the index of a fault (0 to {total - 1}{also}), found {spec.fault}",
            )
        ]
    if spec.fault >= len(scenario.faults):
        return []  # a drawn fault: it always has a duration
    fault = scenario.faults[spec.fault]
    if needs_end and fault.end is None:
        what = "the window" if isinstance(expectation, SwitchExpectation) else "switch_back"
        return [
            (
                (*loc, "fault"),
                f"{what} is measured from the end of fault {spec.fault}, found a {fault.kind} fault "
                "without a duration ('for')",
            )
        ]
    return []


def check_metadata(scenario: Scenario) -> list[tuple[Loc, str]]:
    """Metadata writes need metadata sync, and the metadata expectations need metadata writes."""
    problems: list[tuple[Loc, str]] = []
    metadata = scenario.workload.metadata
    if metadata is not None and scenario.topology.metadata_sync is None:
        problems.append(
            (
                ("workload", "metadata"),
                "metadata writes need clusters that sync metadata: set topology.metadata_sync to pulsar or reference",
            )
        )
    until = metadata.until if metadata is not None else None
    if until is not None and until.seconds > scenario.workload.duration.seconds:
        problems.append(
            (
                ("workload", "metadata", "until"),
                f"the writes stop at {until}, after the end of the workload ({scenario.workload.duration})",
            )
        )
    for index, expectation in enumerate(scenario.expect):
        if isinstance(expectation, METADATA_EXPECTATIONS) and metadata is None:
            problems.append(
                (
                    ("expect", index, expectation.kind),
                    f"{expectation.kind} judges metadata writes: add workload.metadata (policy, writers, every)",
                )
            )
    return problems
