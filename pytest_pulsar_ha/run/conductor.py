"""Run one scenario on an environment: the parts of :data:`~pytest_pulsar_ha.run.parts.PARTS` in one fixed loop,
one history, then the checks.

Health is checked before the faults and after them (steady state); every part is closed whatever happens (every
fault undone). Switch windows and availability are measured from the history (which cluster acknowledged each
send, read from the brokers' storage); loss, ordering and duplicates are decided by the Spark checks
(:mod:`spark_checks`). The conductor records how the run ended (completed, refused, deviated before the faults,
interrupted) and what it found; it decides no outcome: ``judge`` (by default
:func:`~pytest_pulsar_ha.checks.outcome.decide` on the scenario alone) does, before the evidence is written. A
cluster whose JVM deadlocked is kept as evidence (the JVM's dump, the known Pulsar defect it matches) and
restarted, so that the next test gets a healthy one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks import evaluate
from pytest_pulsar_ha.checks.expected_failure import DEADLOCK_PROBLEM_PREFIX
from pytest_pulsar_ha.checks.outcome import DEVIATED_BEFORE, INTERRUPTED, REFUSED, Outcome, decide
from pytest_pulsar_ha.checks.side_by_side import client_label, side_by_side
from pytest_pulsar_ha.history import Event
from pytest_pulsar_ha.report.evidence import write_evidence
from pytest_pulsar_ha.report.proposals import proposal_of
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.run.client_version import client_version
from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.history import store_for
from pytest_pulsar_ha.run.parts import PARTS, RunPart
from pytest_pulsar_ha.run.phases import PhaseClock, part_name
from pytest_pulsar_ha.run.steady_state import STEADY_STATE_SECONDS, keep_deadlocks, restart_deadlocked, steady_state
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.generate import with_drawn_faults
from pytest_pulsar_ha.scenario.loader import ScenarioCase
from pytest_pulsar_ha.scenario.model import Scenario


def _refused(scenario: Scenario, env: PulsarHaEnvironment, clusters: list[str]) -> str | None:
    """Why this environment cannot run the scenario (clusters missing, another auth), or None."""
    missing = [n for n in clusters if n not in env.clusters]
    if missing:
        return (
            f"the scenario needs clusters {', '.join(missing)}; this environment has {', '.join(env.names)} "
            "(set --pulsar-ha-clusters to a list that includes them)"
        )
    wanted_auth = scenario.topology.auth
    actual = {n: ("token" if env.cluster(n).token else "none") for n in clusters}
    if any(mode != wanted_auth for mode in actual.values()):
        return (
            f"the scenario needs clusters with auth {wanted_auth}; this environment's are "
            + ", ".join(f"{n}: {m}" for n, m in actual.items())
            + f" (run it in a session started with --pulsar-ha-auth={wanted_auth})"
        )
    return None


def execute(
    case: ScenarioCase,
    env: PulsarHaEnvironment,
    *,
    evidence_dir: Path,
    spark: Callable[[], Any],
    seed: int | None = None,
    mutant: str | None = None,
    judge: Callable[[ScenarioResult], Outcome] | None = None,
) -> ScenarioResult:
    """Run ``case`` on ``env`` (with the client side changed by ``mutant``, one of :mod:`pytest_pulsar_ha.mutants`);
    have ``judge`` decide the outcome; write the evidence into ``evidence_dir`` (``verdict.json`` in every case);
    return the result (never raises on a failed expectation; raises KeyboardInterrupt after cleaning up)."""
    seed = case.seed if seed is None else seed
    scenario = with_drawn_faults(case.scenario, seed)  # `generate:` faults, drawn from this run's seed
    result = ScenarioResult(
        case.id, "not decided", seed, proposal=proposal_of(scenario), marks=tuple(scenario.marks), mutant=mutant
    )
    events = _run(case, scenario, env, evidence_dir, spark, result, seed, mutant)
    result.settle((judge or (lambda r: decide(r, scenario)))(result))
    with PhaseClock(result.phases).timed("evidence"):
        write_evidence(result, events, evidence_dir)
    if result.ended == INTERRUPTED:
        raise KeyboardInterrupt(f"scenario {case.id} interrupted; faults undone; evidence in {evidence_dir}")
    return result


def _run(
    case: ScenarioCase,
    scenario: Scenario,
    env: PulsarHaEnvironment,
    evidence_dir: Path,
    spark: Callable[[], Any],
    result: ScenarioResult,
    seed: int,
    mutant: str | None,
) -> list[Event]:
    """Run the scenario, filling ``result`` with what happened (how it ended, problems, verdicts, facts, side
    pictures); the history's events (none when it never started)."""
    clusters = list(scenario.topology.clusters or env.names)
    refused = _refused(scenario, env, clusters)
    if refused is not None:
        result.ended = REFUSED
        result.problems.append(refused)
        return []
    clock = PhaseClock(result.phases)
    started = time.time()  # a deadlock's block is read from the part of the broker's log written since
    with clock.timed("steady state before"):
        before = steady_state(env, clusters, 30, since=started, before_faults=True)
    result.facts["pulsar"] = env.describe_pulsar()
    result.versions = sorted({v for v in env.broker_versions().values() if not v.startswith("unknown")})
    if before:
        result.ended = DEVIATED_BEFORE
        result.problems += [f"steady state before the faults: {p}" for p in before.problems]
        if before.deadlocks:
            evidence_dir.mkdir(parents=True, exist_ok=True)
            keep_deadlocks(before.deadlocks, evidence_dir, result)
            restart_deadlocked(env, before.deadlocks, result)
        return []

    evidence_dir.mkdir(parents=True, exist_ok=True)
    store = store_for(scenario, evidence_dir)
    ctx = RunContext(case, scenario, seed, env, clusters, evidence_dir, store.log, result, mutant=mutant)
    try:
        _run_parts(ctx, clock)
    except BaseException:
        store.abandon()  # what was journaled stays as the run's partial history
        raise

    result.problems += ctx.ordered_problems()
    workload = ctx.needs_workload()
    stuck = workload.hung_closes + [h for h in ctx.hung if h]  # the client's own failure, kept as evidence
    result.problems += [f"the workload could not record a send's outcome: {e}" for e in workload.callback_errors]
    with clock.timed("steady state after"):
        after = steady_state(env, clusters, STEADY_STATE_SECONDS, since=started)
    if after:
        result.problems += [DEADLOCK_PROBLEM_PREFIX + p for p in after.problems]
    keep_deadlocks(after.deadlocks, evidence_dir, result)
    with clock.timed("history"):
        events, history = store.seal(ctx)
    ctx.facts.update(
        {
            "scenario": case.id,
            "file": f"{case.path}:{case.line}",
            "seed": str(seed),
            "pulsar": result.facts["pulsar"],
            "clusters": ", ".join(clusters),
            "provider": scenario.provider.kind,
            "client": scenario.client.kind,
            "client version": client_version(scenario, env),
            "events": str(ctx.log.count),
        }
    )
    if scenario.generate is not None:
        drawn = len(scenario.faults) - len(case.scenario.faults)
        ctx.facts["drawn faults"] = f"{drawn} from seed {seed} (in faults above)"
    if result.figures is not None:
        ctx.facts["figures"] = "; ".join(result.figures.summary().splitlines())
    if stuck:
        ctx.facts["client stuck"] = "; ".join(stuck)
    result.facts = ctx.ordered_facts()
    restart_deadlocked(env, after.deadlocks, result)  # its dump is kept: the next test gets a healthy cluster
    if ctx.interrupted:
        result.ended = INTERRUPTED
    else:
        hit = ctx.hit() if ctx.hit is not None else None
        with clock.timed("checks"):
            result.checks = evaluate(scenario, events, history, spark, primary=ctx.needs_provider().primary, hit=hit)
    label = client_label(scenario.client.kind, scenario.provider)
    if store.keeps_messages:  # a soak keeps no message events in memory: its figures come from Spark only
        result.side_by_side = side_by_side(case.id, label, events, result.figures)
    return events


def _run_parts(ctx: RunContext, clock: PhaseClock) -> None:
    """The fixed loop: prepare the parts in table order (each one's close registered first), start them by stage,
    wait out the workload, finish them by stage; close them all in reverse table order, whatever happens. Each
    step of each part is timed into ``clock`` (``prepare NemesisPart``, ``workload``, ...)."""
    parts: list[RunPart] = [part for factory in PARTS if (part := factory(ctx)) is not None]

    def close(part: RunPart) -> None:
        with clock.timed(f"close {part_name(part)}"):
            part.close(ctx)

    with ExitStack() as stack:
        for part in parts:
            stack.callback(close, part)
            with clock.timed(f"prepare {part_name(part)}"):
                part.prepare(ctx)
        try:
            for part in sorted(parts, key=lambda p: p.start_stage):
                with clock.timed(f"start {part_name(part)}"):
                    part.start(ctx)
            with clock.timed("workload"):
                ctx.sleep_until(ctx.t0 + ctx.needs_plan().duration_s)
            for part in sorted(parts, key=lambda p: p.finish_stage):
                with clock.timed(f"finish {part_name(part)}"):
                    part.finish(ctx)
        except KeyboardInterrupt:
            ctx.interrupted = True
