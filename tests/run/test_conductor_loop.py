"""The conductor's fixed loop over the run parts (pure logic: fake parts, no clusters): prepare in table order with
each close registered first, start and finish by stage, close in reverse whatever happens; and the real table's
orders, which are today's run order (the redesign changed no behaviour)."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from pytest_pulsar_ha.run import conductor
from pytest_pulsar_ha.run.context import FACT_ORDER, PROBLEM_ORDER, RunContext
from pytest_pulsar_ha.run.parts import PARTS
from pytest_pulsar_ha.run.phases import PhaseClock


def context() -> RunContext:
    ctx = RunContext(None, None, 1, None, [], None, None, None)  # type: ignore[arg-type]
    ctx.plan = SimpleNamespace(duration_s=0.0)  # type: ignore[assignment]
    return ctx


def fake(name: str, calls: list[str], starts: int = 0, finishes: int = 0, fail: str = "") -> Any:
    class Fake:
        start_stage: ClassVar[int] = starts
        finish_stage: ClassVar[int] = finishes

        def prepare(self, ctx: RunContext) -> None:
            calls.append(f"prepare {name}")
            if fail == "prepare":
                raise RuntimeError(name)

        def start(self, ctx: RunContext) -> None:
            calls.append(f"start {name}")
            if fail == "start":
                raise KeyboardInterrupt

        def finish(self, ctx: RunContext) -> None:
            calls.append(f"finish {name}")

        def close(self, ctx: RunContext) -> None:
            calls.append(f"close {name}")

    return lambda ctx: Fake()


def test_parts_prepare_in_table_order_run_by_stage_and_close_in_reverse(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    parts = (fake("a", calls, 20, 10), lambda ctx: None, fake("b", calls, 10, 30), fake("c", calls, 20, 20))
    monkeypatch.setattr(conductor, "PARTS", parts)
    conductor._run_parts(context(), PhaseClock({}))
    assert calls == [
        *("prepare a", "prepare b", "prepare c"),
        *("start b", "start a", "start c"),  # by stage; a stage's parts in table order
        *("finish a", "finish c", "finish b"),
        *("close c", "close b", "close a"),
    ]


def test_a_part_that_fails_to_prepare_is_closed_with_those_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(conductor, "PARTS", (fake("a", calls), fake("b", calls, fail="prepare"), fake("c", calls)))
    with pytest.raises(RuntimeError, match="b"):
        conductor._run_parts(context(), PhaseClock({}))
    assert calls == ["prepare a", "prepare b", "close b", "close a"]


def test_an_interrupt_while_running_closes_every_part_and_marks_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(conductor, "PARTS", (fake("a", calls, 10), fake("b", calls, 20, fail="start")))
    ctx = context()
    conductor._run_parts(ctx, PhaseClock({}))
    assert ctx.interrupted
    assert calls == ["prepare a", "prepare b", "start a", "start b", "close b", "close a"]


def test_each_step_of_each_part_is_timed_by_name_and_steps_that_take_no_time_are_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Slow:
        start_stage: ClassVar[int] = 10
        finish_stage: ClassVar[int] = 10

        def prepare(self, ctx: RunContext) -> None:
            time.sleep(0.05)

        def start(self, ctx: RunContext) -> None:
            return None

        def finish(self, ctx: RunContext) -> None:
            time.sleep(0.02)

        def close(self, ctx: RunContext) -> None:
            return None

    monkeypatch.setattr(conductor, "PARTS", (lambda ctx: Slow(),))
    phases: dict[str, float] = {}
    ctx = context()
    ctx.plan = SimpleNamespace(duration_s=0.3)  # type: ignore[assignment]
    ctx.t0 = time.monotonic()
    conductor._run_parts(ctx, PhaseClock(phases))
    assert list(phases) == ["prepare Slow", "workload", "finish Slow"]
    assert phases["prepare Slow"] >= 0.05 and phases["finish Slow"] >= 0.02
    assert phases["workload"] > 0  # the wait for the workload's end is a phase of its own


def test_a_phase_timed_twice_adds_up_and_one_that_raised_is_timed() -> None:
    phases: dict[str, float] = {}
    clock = PhaseClock(phases)
    for _ in range(2):
        with clock.timed("checks"):
            time.sleep(0.01)
    with pytest.raises(ValueError), clock.timed("history"):
        time.sleep(0.01)
        raise ValueError
    assert list(phases) == ["checks", "history"]
    assert phases["checks"] >= 0.02 and phases["history"] >= 0.01


def test_the_table_keeps_the_run_order() -> None:
    """Close is today's unwinding: sampler, watches, nemesis, workload, metadata, clients, provider, rollback."""
    names = [factory.__qualname__.split(".")[0] for factory in PARTS]
    assert names == [
        "FailureDomains",
        "Namespaces",
        "GroupPlacement",
        "Migrations",
        "ProviderPart",
        "Mutation",  # after the provider it may change, before the client takes it
        "PythonClientPart",
        "JavaClientPart",
        "Metadata",
        "WorkloadPart",
        "NemesisPart",
        "PlacementWatches",
        "SoakSampler",
        "Clock",
        "Drain",
    ]
    classes = {factory.__qualname__.split(".")[0]: factory.__self__ for factory in PARTS}  # type: ignore[attr-defined]
    # the conductor's order: by stage, table order within a stage (a stable sort); stage 0 does nothing
    starts = [n for n in sorted(names, key=lambda n: classes[n].start_stage) if classes[n].start_stage]
    finishes = [n for n in sorted(names, key=lambda n: classes[n].finish_stage) if classes[n].finish_stage]
    assert starts == [
        "WorkloadPart",
        "PlacementWatches",
        "Clock",
        "NemesisPart",
        "Metadata",
    ]
    assert finishes == [
        "WorkloadPart",
        "NemesisPart",
        "Metadata",
        "PlacementWatches",
        "Drain",
        "Mutation",  # what the mutant did, once nothing else can happen
    ]


def test_problems_and_facts_come_out_in_their_fixed_order() -> None:
    ctx = context()
    ctx.problem("metadata", "m")
    ctx.problem("pip-999", "new")
    ctx.problem("drain", "d")
    ctx.problems.setdefault("nemesis", []).append("n")
    assert ctx.ordered_problems() == ["d", "n", "m", "new"]
    assert PROBLEM_ORDER[0] == "drain"
    ctx.facts.update({"drain": "x", "zz": "last", "scenario": "s", "faults": "f"})
    assert list(ctx.ordered_facts()) == ["scenario", "faults", "drain", "zz"]
    assert FACT_ORDER.index("faults") < FACT_ORDER.index("drain")
