"""The run's mutant (``pulsar-ha mutate``): a provider mutant changes our provider before the client takes it; a
client mutant wraps the workload's consumers or producers, acting after the provider's first switch."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pytest_pulsar_ha.checks.outcome import ACTS_FACT
from pytest_pulsar_ha.mutants.catalogue import MUTANTS, NEVER_ACTED_FACT, cannot_apply
from pytest_pulsar_ha.mutants.clients import CLIENT_MUTANTS
from pytest_pulsar_ha.mutants.providers import PROVIDER_MUTANTS
from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts import stages
from pytest_pulsar_ha.run.parts.base import Part


class Mutation(Part):
    finish_stage = stages.LAST_WORD

    def __init__(self, name: str) -> None:
        self.name = name
        self.unsubscribe: Any = None
        self.never_acted: Callable[[], str | None] = lambda: None
        """after the run: why the mutant never acted (its run was the shipped code's), or None"""
        self.wrapped: list[Any] | None = None
        """a client mutant's wrapped consumers or producers (None for a provider mutant): each acts once at most"""

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
            self.never_acted = PROVIDER_MUTANTS[self.name].apply(setup.target)
            return
        from pulsar_ha_providers.events import SwitchEvent

        switched = threading.Event()
        self.unsubscribe = setup.events.subscribe(
            lambda event: switched.set() if isinstance(event, SwitchEvent) else None
        )
        mutant = CLIENT_MUTANTS[self.name]

        wrapped: list[Any] = []
        self.wrapped = wrapped

        def wrap(handle: Any) -> Any:
            wrapped.append(mutant.wrap(handle, switched))
            return wrapped[-1]

        def never_acted() -> str | None:
            if any(w.acted for w in wrapped):
                return None
            if not switched.is_set():
                return "the provider never switched in this run, and the mutant acts after its first switch"
            return f"no {mutant.wraps} call came after the provider's first switch in this run"

        self.never_acted = never_acted

        if mutant.wraps == "consumer":
            ctx.wrap_consumer = wrap
        else:
            ctx.wrap_producer = wrap

    def finish(self, ctx: RunContext) -> None:
        reason = self.never_acted()
        if reason is not None:
            ctx.facts[NEVER_ACTED_FACT] = reason
        if self.wrapped is not None:
            ctx.facts[ACTS_FACT] = str(sum(1 for w in self.wrapped if w.acted))

    def close(self, ctx: RunContext) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
