"""PIP-7: watches of the brokers that own the workload's bundles, read before any fault and every interval after,
for the placement and reassigned expectations (none run when no expectation reads them)."""

from __future__ import annotations

from collections.abc import Callable

from pytest_pulsar_ha.history import Event
from pytest_pulsar_ha.pips.placement_watch import PlacementWatch, WatchTarget
from pytest_pulsar_ha.run.context import RunContext, WorkloadNamespaces
from pytest_pulsar_ha.run.parts import stages
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.expectations import PlacementExpectation, ReassignedExpectation
from pytest_pulsar_ha.scenario.faults import BrokerKillFault, BrokerPauseFault, DomainOutageFault
from pytest_pulsar_ha.scenario.model import Scenario


def placement_watches(
    env: PulsarHaEnvironment, scenario: Scenario, spaces: WorkloadNamespaces, record: Callable[[Event], object]
) -> list[PlacementWatch]:
    """One watch per cluster whose owners or placement an expectation reads (none when no expectation does)."""
    wanted: dict[str, str | None] = {}
    for expectation in scenario.expect:
        if isinstance(expectation, PlacementExpectation):
            cluster = scenario.placement_cluster(expectation.placement)
            if cluster is not None:
                wanted[cluster] = expectation.placement.group
    if any(isinstance(e, ReassignedExpectation) for e in scenario.expect):
        for fault in scenario.faults:
            if isinstance(fault, BrokerKillFault | BrokerPauseFault | DomainOutageFault):
                wanted.setdefault(fault.cluster, None)
    topics = [
        f"{namespace}/{topic.name}" + (f"-partition-{p}" if topic.partitions else "")
        for namespace in spaces.namespaces
        for topic in scenario.workload.topics
        for p in range(max(1, topic.partitions))
    ]
    watches = []
    for name, group in wanted.items():
        target_cluster = env.cluster(name)
        ours = group is not None and group == spaces.label  # the workload's group: Pulsar knows it by another name
        target = WatchTarget(
            name,
            target_cluster.admin,
            [b.direct_admin_url for b in target_cluster.brokers] or [target_cluster.direct_admin_url],
            topics,
            spaces.group if ours else group,
            spaces.tenant,
            target_cluster.token,
            label=group,
        )
        watches.append(PlacementWatch(target, record))
    return watches


class PlacementWatches(Part):
    start_stage = stages.OBSERVE
    finish_stage = stages.STOP_OBSERVING

    def __init__(self) -> None:
        self.watches: list[PlacementWatch] = []

    @classmethod
    def of(cls, ctx: RunContext) -> PlacementWatches:
        return cls()

    def prepare(self, ctx: RunContext) -> None:
        if ctx.spaces is None:
            raise RuntimeError("no namespaces: the Namespaces part must run before this one")
        self.watches = placement_watches(ctx.env, ctx.scenario, ctx.spaces, ctx.log.add)

    def start(self, ctx: RunContext) -> None:
        for watch in self.watches:  # a first reading before any fault, then one every interval
            watch.read_owners()
            watch.read_placement()
            watch.start()

    def finish(self, ctx: RunContext) -> None:
        for watch in self.watches:
            watch.stop()

    def close(self, ctx: RunContext) -> None:
        for watch in reversed(self.watches):
            watch.stop()
