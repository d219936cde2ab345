"""The faults: the nemesis runs the scenario's schedule from t0 (pinned to the provider's checks where a window is
measured from them) and undoes every fault, whatever happens."""

from __future__ import annotations

from pytest_pulsar_ha.nemesis.primitives import FaultTarget, hit_brokers
from pytest_pulsar_ha.nemesis.schedule import schedule_faults
from pytest_pulsar_ha.nemesis.scheduler import Nemesis
from pytest_pulsar_ha.run.context import RunContext, expand_partitions
from pytest_pulsar_ha.run.parts import stages
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.run.provider import provider_grid
from pytest_pulsar_ha.scenario.tick_grid import TickGrid
from pytest_pulsar_ha.workload.java_workload import JavaWorkload


class NemesisPart(Part):
    start_stage = stages.FAULTS
    finish_stage = stages.UNDO

    def __init__(self) -> None:
        self.nemesis: Nemesis | None = None

    @classmethod
    def of(cls, ctx: RunContext) -> NemesisPart:
        return cls()

    def prepare(self, ctx: RunContext) -> None:
        setup, workload = ctx.needs_provider(), ctx.needs_workload()
        target = FaultTarget(
            ctx.env, ctx.scenario, setup.url_provider, ctx.migrations, expand_partitions(ctx.scenario, ctx.topics)
        )

        def grid() -> TickGrid | None:
            if isinstance(workload, JavaWorkload):
                return provider_grid(setup, workload.provider_initialized_s)
            return provider_grid(setup, ctx.client_initialized_s)

        self.nemesis = Nemesis(schedule_faults(target), ctx.log, grid)
        ctx.hit = lambda: hit_brokers(ctx.env, ctx.scenario)

    def start(self, ctx: RunContext) -> None:
        if self.nemesis is not None:
            self.nemesis.start(ctx.t0)

    def finish(self, ctx: RunContext) -> None:
        if self.nemesis is not None:
            self.nemesis.stop()

    def close(self, ctx: RunContext) -> None:
        nemesis = self.nemesis
        if nemesis is None:
            return
        nemesis.stop()  # runs before the clients stop: faults are undone first
        ctx.problems.setdefault("nemesis", []).extend(nemesis.errors)
        ctx.facts["faults"] = "; ".join(f.label for f in nemesis.faults) or "none"
        if nemesis.notes:
            ctx.facts["schedule"] = "; ".join(nemesis.notes)
