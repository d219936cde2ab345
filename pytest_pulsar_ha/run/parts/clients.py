"""The Python client side of a run (our provider or the client's, the client, the workload), the clock the
schedule counts from, and the drain at the end."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack

from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts import stages
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.run.provider import build_provider, record_provider_events
from pytest_pulsar_ha.workload.closing import close_within
from pytest_pulsar_ha.workload.fleet.config import Service
from pytest_pulsar_ha.workload.fleet.fleet import FleetTarget, FleetWorkload
from pytest_pulsar_ha.workload.plan import WorkloadPlan
from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload


def _nothing() -> None:
    return None


class ProviderPart(Part):
    """How the Python client chooses its cluster; its events go into the history as they happen."""

    def __init__(self) -> None:
        self.stack = ExitStack()
        self.unsubscribe: Callable[[], None] = _nothing
        self.unrecorded: list[str] = []
        """provider events that could not be written to the history"""

    @classmethod
    def of(cls, ctx: RunContext) -> ProviderPart | None:
        return None if ctx.scenario.client.facts.driver else cls()

    def prepare(self, ctx: RunContext) -> None:
        ctx.provider = build_provider(ctx.env, ctx.scenario, ctx.clusters, self.stack)
        self.unsubscribe = record_provider_events(ctx.provider, ctx.log, self.unrecorded.append)

    def close(self, ctx: RunContext) -> None:
        try:
            self.unsubscribe()
        finally:
            self.stack.close()  # e.g. the URL provider's service, after the events stopped
        for missing in self.unrecorded:
            ctx.problem("provider", f"a provider event could not be written to the history: {missing}")


class PythonClientPart(Part):
    """The Python client on the provider's target (and one straight to ``consume_from``), and the workload on it."""

    def __init__(self) -> None:
        self.stack = ExitStack()

    @classmethod
    def of(cls, ctx: RunContext) -> PythonClientPart | None:
        return None if ctx.scenario.client.facts.driver else cls()

    def prepare(self, ctx: RunContext) -> None:
        client = ctx.env.client(ctx.needs_provider().target, operation_timeout_seconds=10)
        ctx.client_initialized_s = time.monotonic()  # a native provider checks from here on
        self.stack.callback(lambda: ctx.hung.append(close_within(client.close, "client")))
        plan = ctx.needs_plan()
        if plan.processes > 1:  # the provider switches this client; the workers' clients follow (fleet_of)
            ctx.workload = fleet_of(ctx, plan)
            return
        consumer_client = None
        consume_from = ctx.scenario.workload.consume_from
        if consume_from is not None:
            consumer_client = ctx.env.client(consume_from, operation_timeout_seconds=10)
            self.stack.callback(lambda: ctx.hung.append(close_within(consumer_client.close, "consumer client")))
        ctx.workload = SingleProcessWorkload(
            client,
            plan,
            ctx.log,
            consumer_client,
            wrap_consumer=ctx.wrap_consumer,
            wrap_producer=ctx.wrap_producer,
            seeded=ctx.env.seeded_ledger_ids(),
        )

    def close(self, ctx: RunContext) -> None:
        self.stack.close()


def fleet_of(ctx: RunContext, plan: WorkloadPlan) -> FleetWorkload:
    """The workload over ``plan.processes`` workers: their clients start where the provider points and follow
    its switches (the runner's own client, built above, is the one the provider switches itself)."""
    setup = ctx.needs_provider()
    services = {name: Service(ctx.env.cluster(name).service_url, ctx.env.cluster(name).token) for name in ctx.clusters}
    consume_from = ctx.scenario.workload.consume_from
    target = FleetTarget(
        services[setup.primary],
        services,
        setup.events,
        services[consume_from] if consume_from is not None else None,
    )
    return FleetWorkload(
        plan,
        ctx.log,
        target,
        processes=plan.processes,
        parts_dir=ctx.evidence_dir / "history.parts",
        client_options=ctx.env.client_options,
        seeded=ctx.env.seeded_ledger_ids(),
        registry=ctx.env.registry,
    )


class WorkloadPart(Part):
    """The producers and consumers, whichever client runs them."""

    start_stage = stages.LOAD
    finish_stage = stages.STOP_LOAD

    @classmethod
    def of(cls, ctx: RunContext) -> WorkloadPart:
        return cls()

    def start(self, ctx: RunContext) -> None:
        ctx.needs_workload().start()

    def finish(self, ctx: RunContext) -> None:
        workload = ctx.needs_workload()
        workload.stop_sending()
        for shortfall in workload.rate_shortfalls():
            ctx.problem("workload", shortfall)
        if isinstance(workload, FleetWorkload):
            ctx.facts["workload"] = workload.describe()

    def close(self, ctx: RunContext) -> None:
        if ctx.workload is not None:
            ctx.workload.stop()


class Clock(Part):
    """t0: the faults' and the writes' offsets count from here."""

    start_stage = stages.CLOCK

    @classmethod
    def of(cls, ctx: RunContext) -> Clock:
        return cls()

    def start(self, ctx: RunContext) -> None:
        ctx.t0 = time.monotonic()


class Drain(Part):
    """Every acknowledged send received: a fact when ``no_loss`` judges it from the history, else a problem."""

    finish_stage = stages.DRAIN

    @classmethod
    def of(cls, ctx: RunContext) -> Drain:
        return cls()

    def finish(self, ctx: RunContext) -> None:
        drain_s = ctx.scenario.workload.drain_timeout.seconds
        if not ctx.needs_workload().drain(drain_s):
            undrained = f"not every acknowledged send was received within {drain_s:g}s of the end"
            if any(e.kind == "no_loss" for e in ctx.scenario.expect):
                ctx.facts["drain"] = undrained  # a fact: the no_loss check judges it, from the history
            else:
                ctx.problem("drain", undrained)
