"""The run's mutant (``pulsar-ha mutate``): a provider mutant changes our provider before the client takes it; a
client mutant wraps the workload's consumers or producers, acting after the provider's first switch."""

from __future__ import annotations

import threading
from typing import Any

from pytest_pulsar_ha.mutants.catalogue import MUTANTS, cannot_apply
from pytest_pulsar_ha.mutants.clients import CLIENT_MUTANTS
from pytest_pulsar_ha.mutants.providers import PROVIDER_MUTANTS
from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts.base import Part


class Mutation(Part):
    def __init__(self, name: str) -> None:
        self.name = name
        self.unsubscribe: Any = None

    @classmethod
    def of(cls, ctx: RunContext) -> Mutation | None:
        return None if ctx.mutant is None else cls(ctx.mutant)

    def prepare(self, ctx: RunContext) -> None:
        reason = cannot_apply(ctx.scenario, self.name)
        if reason is not None:
            raise ValueError(f"mutant {self.name} cannot apply to {ctx.case.id}: {reason}")
        setup = ctx.needs_provider()
        ctx.facts["mutant"] = f"{self.name}: {MUTANTS[self.name]}"
        if self.name in PROVIDER_MUTANTS:
            PROVIDER_MUTANTS[self.name].apply(setup.target)
            return
        from pulsar_ha_providers.events import SwitchEvent

        switched = threading.Event()
        self.unsubscribe = setup.events.subscribe(
            lambda event: switched.set() if isinstance(event, SwitchEvent) else None
        )
        mutant = CLIENT_MUTANTS[self.name]

        def wrap(handle: Any) -> Any:
            return mutant.wrap(handle, switched)

        if mutant.wraps == "consumer":
            ctx.wrap_consumer = wrap
        else:
            ctx.wrap_producer = wrap

    def close(self, ctx: RunContext) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
