"""Run one scenario against the environment: workload + nemesis + schedule, one history, then the checks.

Roles are kept apart as in Jepsen: :mod:`~pytest_pulsar_ha.workload.driver` (the clients),
:mod:`~pytest_pulsar_ha.nemesis.scheduler` (the faults) and this schedule; everything they do goes into one history, the
only input of the checks. Switch windows and availability are measured from that history (which cluster
acknowledged each send, read from the brokers' storage); loss, ordering and duplicates are decided by the
Spark checks (:mod:`spark_checks`). Health is checked before the faults and after them (steady state); every
fault is undone whatever happens. A run ends as passed, failed, deviated (the environment did not come back
to its steady state) or interrupted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks import evaluate
from pytest_pulsar_ha.checks.expected_failure import mismatches
from pytest_pulsar_ha.checks.figures import run_figures
from pytest_pulsar_ha.checks.side_by_side import client_label, side_by_side
from pytest_pulsar_ha.components.placement_watch import PlacementWatch, WatchTarget
from pytest_pulsar_ha.history import (
    PARTIAL_HISTORY,
    Event,
    EventLog,
    HistoryWriter,
    jsonl_to_parquet,
    write_events_jsonl,
)
from pytest_pulsar_ha.nemesis.kinds import FaultTarget, hit_brokers, schedule_faults
from pytest_pulsar_ha.nemesis.scheduler import Nemesis
from pytest_pulsar_ha.report.evidence import write_evidence
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.java_client import java_workload
from pytest_pulsar_ha.scenario.metadata import ScenarioMetadata
from pytest_pulsar_ha.scenario.migrations import ScenarioMigrations
from pytest_pulsar_ha.scenario.namespaces import (
    WorkloadNamespaces,
    create_namespaces,
    declare_domains,
    place_group,
)
from pytest_pulsar_ha.scenario.provider_setup import build_provider, provider_grid, record_provider_events
from pytest_pulsar_ha.scenario.soak import MemorySampler, soak_facts, soak_log
from pytest_pulsar_ha.spec.expectations import PlacementExpectation, ReassignedExpectation
from pytest_pulsar_ha.spec.faults import BrokerKillFault, BrokerPauseFault, DomainOutageFault
from pytest_pulsar_ha.spec.generate import with_drawn_faults
from pytest_pulsar_ha.spec.loader import ScenarioCase
from pytest_pulsar_ha.spec.providers import JavaClient
from pytest_pulsar_ha.spec.scenario import Scenario
from pytest_pulsar_ha.workload.closing import close_within
from pytest_pulsar_ha.workload.driver import Workload, WorkloadPlan
from pytest_pulsar_ha.workload.java_workload import JavaWorkload

STEADY_STATE_SECONDS = 120.0


# -- building the parts ------------------------------------------------------------------------------------


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


def expand_partitions(scenario: Scenario, topics: list[str]) -> list[str]:
    """The workload's topics with each partitioned one as its partitions (what brokers load and migrate)."""
    partitions = {topic.name: topic.partitions for topic in scenario.workload.topics}
    out = []
    for topic in topics:
        count = partitions.get(topic.rsplit("/", 1)[-1], 0)
        out += [f"{topic}-partition-{i}" for i in range(count)] if count else [topic]
    return out


# -- steady state ------------------------------------------------------------------------------------------


def steady_state(env: PulsarHaEnvironment, clusters: list[str], timeout: float) -> list[str]:
    """Problems with the environment's health (empty when every cluster answers its health check)."""
    deadline = time.monotonic() + timeout
    while True:
        problems = []
        for name in clusters:
            try:
                env.cluster(name).admin.get("brokers/health")
            except Exception as exc:
                problems.append(f"{name} is not healthy: {exc}")
        if not problems or time.monotonic() > deadline:
            return problems
        time.sleep(1.0)


# -- the run -----------------------------------------------------------------------------------------------


def execute(
    case: ScenarioCase,
    env: PulsarHaEnvironment,
    *,
    evidence_dir: Path,
    spark: Callable[[], Any],
    seed: int | None = None,
) -> ScenarioResult:
    """Run ``case`` on ``env``; write the evidence into ``evidence_dir``; return the result (never raises on a
    failed expectation; raises KeyboardInterrupt after cleaning up)."""
    seed = case.seed if seed is None else seed
    scenario = with_drawn_faults(case.scenario, seed)  # `generate:` faults, drawn from this run's seed
    result = ScenarioResult(case.id, "passed", seed)
    clusters = list(scenario.topology.clusters or env.names)
    missing = [n for n in clusters if n not in env.clusters]
    if missing:
        result.outcome = "failed"
        result.problems.append(
            f"the scenario needs clusters {', '.join(missing)}; this environment has {', '.join(env.names)} "
            "(set --pulsar-ha-clusters to a list that includes them)"
        )
        return result
    wanted_auth = scenario.topology.auth
    actual = {n: ("token" if env.cluster(n).token else "none") for n in clusters}
    if any(mode != wanted_auth for mode in actual.values()):
        result.outcome = "failed"
        result.problems.append(
            f"the scenario needs clusters with auth {wanted_auth}; this environment's are "
            + ", ".join(f"{n}: {m}" for n, m in actual.items())
            + f" (run it in a session started with --pulsar-ha-auth={wanted_auth})"
        )
        return result
    before = steady_state(env, clusters, 30)
    if before:
        result.outcome = "deviated"
        result.problems += [f"steady state before the faults: {p}" for p in before]
        return result

    evidence_dir.mkdir(parents=True, exist_ok=True)
    segments = sampler = None
    if scenario.soak is not None:  # every event streamed to Parquet files; only the steering ones kept
        log, segments = soak_log(evidence_dir, scenario.soak)
        sampler = MemorySampler()
    else:
        journal = HistoryWriter(evidence_dir / PARTIAL_HISTORY)
        log = EventLog(journal=journal)
    declare_domains(env, scenario)
    spaces = create_namespaces(env, scenario, clusters)
    topics = []
    for namespace in spaces.namespaces:
        for topic in scenario.workload.topics:
            full = f"persistent://{namespace}/{topic.name}"
            if topic.partitions:
                for name in clusters:
                    env.cluster(name).admin.put(f"persistent/{namespace}/{topic.name}/partitions", topic.partitions)
            topics.append(full)
    first = scenario.workload.topics[0]  # its bundle is the namespace's (one bundle per namespace here)
    place_group(env, spaces, first.name + ("-partition-0" if first.partitions else ""), clusters)
    w = scenario.workload
    plan = WorkloadPlan(
        topics,
        w.producers,
        w.consumers,
        w.subscription_type,
        w.keys,
        w.rate.per_second,
        w.message_size.bytes,
        w.duration.seconds,
        w.replicated_subscriptions,
        int(w.send_timeout.seconds * 1000),
        seed,
        w.consumer_delay.seconds,
        w.initial_position,
    )
    migrations = ScenarioMigrations(
        env, scenario, spaces.namespaces, expand_partitions(scenario, topics), plan.subscription_names(), log.add
    )
    interrupted = False
    drained: str | None = None
    with ExitStack() as stack:
        stack.callback(migrations.rollback)  # last: after the clients stopped
        migrations.prepare()
        hung: list[str | None] = []
        client_initialized: float | None = None
        workload: Workload | JavaWorkload
        if isinstance(scenario.client, JavaClient):  # Java's provider and clients, in the driver's process
            setup, workload = java_workload(env, scenario, clusters, plan, log, evidence_dir, stack)
        else:
            setup = build_provider(env, scenario, clusters, stack)
            stack.callback(record_provider_events(setup, log))
            client = env.client(setup.target, operation_timeout_seconds=10)
            client_initialized = time.monotonic()  # a native provider checks from here on
            stack.callback(lambda: hung.append(close_within(client.close, "client")))
            consumer_client = None
            if w.consume_from is not None:
                consumer_client = env.client(w.consume_from, operation_timeout_seconds=10)
                stack.callback(lambda: hung.append(close_within(consumer_client.close, "consumer client")))
            workload = Workload(client, plan, log, consumer_client)
        target = FaultTarget(env, scenario, setup.url_provider, migrations, expand_partitions(scenario, topics))
        nemesis = Nemesis(
            schedule_faults(target),
            log,
            lambda: provider_grid(
                setup,
                workload.provider_initialized_s if isinstance(workload, JavaWorkload) else client_initialized,
            ),
        )
        watches = placement_watches(env, scenario, spaces, log.add)
        metadata = None
        if w.metadata is not None:
            metadata = ScenarioMetadata(env, w.metadata, spaces.namespaces[0], clusters, plan.duration_s, log.add)
            stack.callback(metadata.stop)
        stack.callback(workload.stop)
        stack.callback(nemesis.stop)  # runs first: faults are undone before the clients stop
        for watch in watches:
            stack.callback(watch.stop)
        if sampler is not None:
            sampler.start()
            stack.callback(sampler.stop)
        try:
            workload.start()
            for watch in watches:  # a first reading before any fault, then one every interval
                watch.read_owners()
                watch.read_placement()
                watch.start()
            t0 = time.monotonic()
            nemesis.start(t0)
            if metadata is not None:
                metadata.start(t0)
            while time.monotonic() < t0 + plan.duration_s:
                time.sleep(0.1)
            workload.stop_sending()
            nemesis.stop()
            if metadata is not None:
                metadata.finish()
            for watch in watches:
                watch.stop()
            drain_s = w.drain_timeout.seconds
            if not workload.drain(drain_s):
                undrained = f"not every acknowledged send was received within {drain_s:g}s of the end"
                if any(e.kind == "no_loss" for e in scenario.expect):
                    drained = undrained  # a fact: the no_loss check judges it, from the history
                else:
                    result.problems.append(undrained)
        except KeyboardInterrupt:
            interrupted = True
    result.problems += nemesis.errors + migrations.errors + (metadata.errors if metadata is not None else [])
    stuck = workload.hung_closes + [h for h in hung if h]  # the client's own failure, kept as evidence
    result.problems += [f"the workload could not record a send's outcome: {e}" for e in workload.callback_errors]
    after = steady_state(env, clusters, STEADY_STATE_SECONDS)
    if after:
        result.problems += [f"steady state after the faults: {p}" for p in after]
    if segments is not None and sampler is not None:  # a soak: the history is the directory of Parquet files
        events = sorted(log.snapshot(), key=lambda e: e.ts_ns)
        history = segments.close()
        result.evidence["history"] = history
        soak_figures = soak_facts(log, segments, sampler, workload.drain_held())
    else:
        workload.attribute_acks({n: env.cluster(n).admin for n in clusters})
        events = sorted(log.snapshot(), key=lambda e: e.ts_ns)
        history = write_events_jsonl(events, evidence_dir / "history.jsonl")
        journal.close()  # the whole history is written: the journal of a run that could have died goes
        journal.path.unlink(missing_ok=True)
        result.evidence["history"] = history
        result.evidence["history_parquet"] = jsonl_to_parquet(history, evidence_dir / "history.parquet")
        result.figures = run_figures(events)
        soak_figures = {}
    result.facts = {
        "scenario": case.id,
        "file": f"{case.path}:{case.line}",
        "seed": str(seed),
        "clusters": ", ".join(clusters),
        "provider": scenario.provider.kind,
        "client": scenario.client.kind,
        "faults": "; ".join(f.label for f in nemesis.faults) or "none",
        **({"schedule": "; ".join(nemesis.notes)} if nemesis.notes else {}),
        **(
            {"drawn faults": f"{len(scenario.faults) - len(case.scenario.faults)} from seed {seed} (in faults above)"}
            if scenario.generate is not None
            else {}
        ),
        "events": str(log.count),
        **({"figures": "; ".join(result.figures.summary().splitlines())} if result.figures is not None else {}),
        **soak_figures,
    }
    if stuck:
        result.facts["client stuck"] = "; ".join(stuck)
    if drained:
        result.facts["drain"] = drained
    if interrupted:
        result.outcome = "interrupted"
    else:
        result.checks = evaluate(
            scenario, events, history, spark, primary=setup.primary, hit=hit_brokers(env, scenario)
        )
        if any(not c.ok for c in result.checks) or (result.problems and not after):
            result.outcome = "failed"
        if after:
            result.outcome = "deviated"
    label = client_label(scenario.client.kind, scenario.provider)
    if scenario.soak is None:  # a soak keeps no message events in memory: its figures come from Spark only
        result.side_by_side = side_by_side(case.id, label, events, result.figures)
    write_evidence(result, events, evidence_dir)
    if interrupted:
        raise KeyboardInterrupt(f"scenario {case.id} interrupted; faults undone; evidence in {evidence_dir}")
    return result


# -- pytest ------------------------------------------------------------------------------------------------


def run_scenario(item: Any, case: ScenarioCase, record: Callable[[ScenarioResult], None] | None = None) -> None:
    """The runner of collected scenario tests (see :mod:`pytest_pulsar_ha.pytest.collect`); each result is
    passed to ``record`` (the plugin's state keeps them for its summary and index page) before a failure is
    raised."""
    from pytest_pulsar_ha.spec.errors import ExpectedScenarioFailure, ScenarioFailed

    config = item.config
    seed_option = config.getoption("pulsar_ha_seed", None)
    evidence_root: Path = item.getfixturevalue("pulsar_ha_evidence_dir")
    safe_id = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in case.id)
    result = execute(
        case,
        item.pulsar_ha,
        evidence_dir=evidence_root / safe_id,
        spark=lambda: item.getfixturevalue("pulsar_ha_spark"),
        seed=int(seed_option) if seed_option is not None else None,
    )
    result.evidence_root = evidence_root
    if record is not None:
        record(result)
    replay = f"replay: pytest '{item.nodeid}' --pulsar-ha-seed={result.seed}"
    expect_failure = case.scenario.expect_failure
    if expect_failure is not None and result.outcome == "failed" and not result.problems:
        kinds = [e.kind for e in case.scenario.expect]
        found = mismatches(expect_failure.names, expect_failure.measured, kinds, result.checks)
        if not found:
            result.outcome = "xfailed"
            raise ExpectedScenarioFailure(f"expected failure ({expect_failure.reason}):\n{result.describe()}")
        announced = ", ".join(expect_failure.names)
        lines = "\n".join(f"  - {line}" for line in found)
        raise ScenarioFailed(
            f"not the announced failure (expect_failure names {announced}):\n{lines}\n{result.describe()}\n  {replay}"
        )
    if result.outcome != "passed":
        raise ScenarioFailed(f"{result.describe()}\n  {replay}")
