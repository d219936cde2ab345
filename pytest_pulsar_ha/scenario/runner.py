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

import json
import math
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks import evaluate
from pytest_pulsar_ha.checks.faults import fault_label
from pytest_pulsar_ha.checks.figures import RunFigures, run_figures
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.components.placement_watch import PlacementWatch, WatchTarget
from pytest_pulsar_ha.history import (
    PARTIAL_HISTORY,
    PROBE,
    SWITCH,
    SWITCH_FAILED,
    Event,
    EventLog,
    HistoryWriter,
    jsonl_to_parquet,
    write_events_jsonl,
)
from pytest_pulsar_ha.nemesis.broker_faults import broker_fault
from pytest_pulsar_ha.nemesis.scheduler import Nemesis, ScheduledFault
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.loader import ScenarioCase
from pytest_pulsar_ha.scenario.model import (
    BROKER_FAULT_KINDS,
    AutoProvider,
    BrokerKillFault,
    BrokerPauseFault,
    ControlledProvider,
    DomainOutageFault,
    NoProvider,
    PlacementExpectation,
    ReassignedExpectation,
    Scenario,
)
from pytest_pulsar_ha.scenario.namespaces import WorkloadNamespaces, create_namespaces, declare_domains
from pytest_pulsar_ha.workload.driver import ScenarioWorkload, WorkloadPlan

DRAIN_SECONDS = 90.0
STEADY_STATE_SECONDS = 120.0


@dataclass
class ScenarioResult:
    case_id: str
    outcome: str  # passed | failed | deviated | interrupted
    seed: int
    checks: list[CheckResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    evidence: dict[str, Path] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    evidence_root: Path | None = None
    """The ``pulsar_ha_evidence_dir`` this result was written under (its index page goes there)."""
    figures: RunFigures | None = None
    """RTO, switch times, stranded messages and duplicates, read from the history (:mod:`.fault_figures`)."""

    @property
    def failed_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.ok]

    def describe(self) -> str:
        lines = [f"scenario {self.case_id}: {self.outcome.upper()} (seed {self.seed})"]
        lines += [f"  - {p}" for p in self.problems]
        for check in self.checks:
            mark = "ok  " if check.ok else "FAIL"
            lines.append(f"  [{mark}] {check.name}: expected {check.expected}; measured {check.measured}")
            if check.details and not check.ok:
                lines += [f"         {line}" for line in check.details.splitlines()]
        if self.figures is not None:
            lines += [f"  figures: {line}" for line in self.figures.summary().splitlines()]
        for name, path in self.evidence.items():
            lines.append(f"  {name}: {path}")
        return "\n".join(lines)


# -- building the parts ------------------------------------------------------------------------------------


def _endpoint(env: PulsarHaEnvironment, name: str) -> Any:
    from pulsar_ha_providers import ClusterEndpoint

    cluster = env.cluster(name)
    return ClusterEndpoint(cluster.service_url, name=name, token=cluster.token, admin_url=cluster.admin_url)


@dataclass
class ProviderSetup:
    target: Any  # what pulsar.Client gets as its service URL
    events: Any = None  # an EventHub, for our providers
    url_provider: Any = None
    url_to_cluster: dict[str, str] = field(default_factory=dict)
    primary: str = ""


def build_provider(
    env: PulsarHaEnvironment, scenario: Scenario, clusters: list[str], stack: ExitStack
) -> ProviderSetup:
    spec = scenario.provider
    primary = spec.primary or clusters[0]
    url_to_cluster = {env.cluster(n).service_url: n for n in clusters}
    if isinstance(spec, NoProvider):  # straight to the primary (env.client takes a cluster name)
        return ProviderSetup(primary, primary=primary, url_to_cluster=url_to_cluster)
    secondaries = list(spec.secondaries) or [n for n in clusters if n != primary]
    if isinstance(spec, AutoProvider):
        from pulsar_ha_providers import AutoClusterFailover

        auto = AutoClusterFailover(
            _endpoint(env, primary),
            [_endpoint(env, n) for n in secondaries],
            check_interval=spec.check_interval.seconds,
            failover_delay=spec.failover_delay.seconds,
            switch_back_delay=spec.switch_back_delay.seconds,
            probe=spec.probe,
        )
        return ProviderSetup(auto, auto.events, primary=primary, url_to_cluster=url_to_cluster)
    if isinstance(spec, ControlledProvider):
        from pulsar_ha_providers import ControlledClusterFailover, UrlProviderService

        configs = {}
        for name in [primary, *secondaries]:
            config: dict[str, str] = {"serviceUrl": env.cluster(name).service_url}
            if env.cluster(name).token:
                config["authPluginClassName"] = "token"
                config["authParamsString"] = f"token:{env.cluster(name).token}"
            configs[name] = config
        service = stack.enter_context(UrlProviderService(configs, primary))
        controlled = ControlledClusterFailover(
            _endpoint(env, primary), service.url, check_interval=spec.check_interval.seconds
        )
        return ProviderSetup(controlled, controlled.events, service, url_to_cluster, primary)
    import pulsar

    def info(name: str) -> Any:
        return pulsar.ServiceInfo(env.cluster(name).service_url, env.cluster(name).authentication())

    interval = spec.check_interval.seconds
    native = pulsar.AutoClusterFailover(
        info(primary),
        [info(n) for n in secondaries],
        check_interval_ms=max(1, int(interval * 1000)),
        failover_threshold=max(1, math.ceil(spec.failover_delay.seconds / interval)),
        switch_back_threshold=max(1, math.ceil(spec.switch_back_delay.seconds / interval)),
    )
    return ProviderSetup(native, primary=primary, url_to_cluster=url_to_cluster)


def _fault_cluster(fault: Any) -> str | None:
    if fault.kind == "replication_cut":
        return str(fault.from_)
    if fault.kind == "url_provider":
        return None
    if fault.kind == "operator_switch":
        return str(fault.to)
    cluster = getattr(fault, "cluster", None)
    return None if cluster is None else str(cluster)


def schedule_faults(env: PulsarHaEnvironment, scenario: Scenario, setup: ProviderSetup) -> list[ScheduledFault]:
    out = []
    for index, fault in enumerate(scenario.faults):
        start = fault.at.seconds
        duration = getattr(fault, "for_", None)
        end = start + (duration.seconds if duration is not None else 0.2)
        if fault.kind == "operator_switch":
            end = start + 0.01
        make = _fault_context(env, fault, setup, scenario)
        out.append(ScheduledFault(index, fault_label(index, fault), _fault_cluster(fault), start, end, make))
    return out


def _broker_fault(env: PulsarHaEnvironment, scenario: Scenario, fault: Any) -> Any:
    domain = scenario.topology.domain_brokers(fault.cluster, fault.domain) if fault.kind == "domain_outage" else ()
    return broker_fault(
        env.cluster(fault.cluster), fault.kind, broker=getattr(fault, "broker", None), domain=domain or ()
    )


def hit_brokers(env: PulsarHaEnvironment, scenario: Scenario) -> dict[int, tuple[str, ...]]:
    """Fault index -> the load-manager ids of the brokers it hits (broker and domain faults only)."""
    return {
        index: _broker_fault(env, scenario, fault).brokers
        for index, fault in enumerate(scenario.faults)
        if fault.kind in BROKER_FAULT_KINDS
    }


def _fault_context(
    env: PulsarHaEnvironment, fault: Any, setup: ProviderSetup, scenario: Scenario | None = None
) -> Callable[[], AbstractContextManager[Any]]:
    kind = fault.kind
    if kind in BROKER_FAULT_KINDS and scenario is not None:
        return _broker_fault(env, scenario, fault).make  # type: ignore[no-any-return]
    if kind == "replication_cut":
        return lambda: env.replication_cut(fault.from_, fault.to)
    if kind == "operator_switch":

        @contextmanager
        def switch() -> Iterator[None]:
            setup.url_provider.switch_to(fault.to)
            yield

        return switch
    if kind == "url_provider":

        @contextmanager
        def misbehaving() -> Iterator[None]:
            setup.url_provider.misbehave(fault.answer)
            try:
                yield
            finally:
                setup.url_provider.misbehave(None)

        return misbehaving
    cluster = env.cluster(fault.cluster)
    if kind == "outage":
        return lambda: cluster.outage(replication=fault.replication)
    if kind == "kill":
        return cluster.killed
    if kind == "pause":
        return cluster.paused
    if kind == "latency":
        return lambda: cluster.latency(int(fault.latency.seconds * 1000), int(fault.jitter.seconds * 1000))
    if kind == "timeout":
        return cluster.hang
    if kind == "bandwidth":
        return lambda: cluster.bandwidth(max(1, int(fault.rate.bytes_per_second / 1024)))
    if kind == "reset":
        return cluster.resetting
    raise ValueError(f"fault kind {kind!r} has no implementation")  # the model rejects unknown kinds before


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
        target = WatchTarget(
            name,
            target_cluster.admin,
            [b.direct_admin_url for b in target_cluster.brokers] or [target_cluster.direct_admin_url],
            topics,
            group,
            spaces.tenant,
            target_cluster.token,
        )
        watches.append(PlacementWatch(target, record))
    return watches


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


def _provider_event(setup: ProviderSetup, event: Any) -> Event | None:
    """The history event of one provider event (None for kinds the history does not keep)."""
    ts = int(event.ts * 1e9)
    name = type(event).__name__
    if name == "SwitchEvent":
        to = setup.url_to_cluster.get(event.to_cluster, event.to_cluster)
        return Event(ts, SWITCH, "provider", cluster=to, detail=event.reason)
    if name == "ProbeEvent":
        detail = json.dumps(
            {"ok": event.ok, "probe": event.probe, "latency_s": round(event.latency_s, 4), "error": event.error}
        )
        return Event(ts, PROBE, "provider", cluster=event.cluster, detail=detail)
    if name == "SwitchFailedEvent":  # decided, but the client refused it: the provider retries
        to = setup.url_to_cluster.get(event.to_cluster, event.to_cluster)
        return Event(ts, SWITCH_FAILED, "provider", cluster=to, detail=f"{event.reason}: {event.error}")
    if name == "PollEvent":  # a controlled provider's poll
        cluster = setup.url_to_cluster.get(event.service_url)
        return Event(ts, PROBE, "provider", cluster=cluster, detail=json.dumps({"ok": event.ok, "error": event.error}))
    return None


def _provider_events(setup: ProviderSetup) -> list[Event]:
    if setup.events is None:
        return []
    return [e for e in (_provider_event(setup, event) for event in list(setup.events.recent)) if e is not None]


def _journal_provider_events(setup: ProviderSetup, journal: HistoryWriter) -> Callable[[], None]:
    """Append the provider's events to ``journal`` as they happen; returns the unsubscribe function."""
    if setup.events is None:
        return lambda: None

    def record(event: Any) -> None:
        mapped = _provider_event(setup, event)
        if mapped is not None and not journal.closed:
            journal.append(mapped)

    unsubscribe: Callable[[], None] = setup.events.subscribe(record)
    return unsubscribe


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
    scenario = case.scenario
    seed = case.seed if seed is None else seed
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
    )
    interrupted = False
    with ExitStack() as stack:
        setup = build_provider(env, scenario, clusters, stack)
        stack.callback(_journal_provider_events(setup, journal))
        client = env.client(setup.target, operation_timeout_seconds=10)
        stack.callback(client.close)
        consumer_client = None
        if w.consume_from is not None:
            consumer_client = env.client(w.consume_from, operation_timeout_seconds=10)
            stack.callback(consumer_client.close)
        workload = ScenarioWorkload(client, plan, log, consumer_client)
        nemesis = Nemesis(schedule_faults(env, scenario, setup), log)
        watches = placement_watches(env, scenario, spaces, log.add)
        stack.callback(workload.stop)
        stack.callback(nemesis.stop)  # runs first: faults are undone before the clients stop
        for watch in watches:
            stack.callback(watch.stop)
        try:
            workload.start()
            for watch in watches:  # a first reading before any fault, then one every interval
                watch.read_owners()
                watch.read_placement()
                watch.start()
            t0 = time.monotonic()
            nemesis.start(t0)
            while time.monotonic() < t0 + plan.duration_s:
                time.sleep(0.1)
            workload.stop_sending()
            nemesis.stop()
            for watch in watches:
                watch.stop()
            if not workload.drain(DRAIN_SECONDS):
                result.problems.append(
                    f"not every acknowledged send was received within {DRAIN_SECONDS:.0f}s of the end"
                )
        except KeyboardInterrupt:
            interrupted = True
    result.problems += nemesis.errors
    result.problems += [f"the workload could not record a send's outcome: {e}" for e in workload.callback_errors]
    after = steady_state(env, clusters, STEADY_STATE_SECONDS)
    if after:
        result.problems += [f"steady state after the faults: {p}" for p in after]
    workload.attribute_acks({n: env.cluster(n).admin for n in clusters})
    events = sorted(log.snapshot() + _provider_events(setup), key=lambda e: e.ts_ns)
    history = write_events_jsonl(events, evidence_dir / "history.jsonl")
    journal.close()  # the whole history is written: the journal of a run that could have died goes
    journal.path.unlink(missing_ok=True)
    result.evidence["history"] = history
    result.evidence["history_parquet"] = jsonl_to_parquet(history, evidence_dir / "history.parquet")
    result.figures = run_figures(events)
    result.facts = {
        "scenario": case.id,
        "file": f"{case.path}:{case.line}",
        "seed": str(seed),
        "clusters": ", ".join(clusters),
        "provider": scenario.provider.kind,
        "faults": "; ".join(f.label for f in nemesis.faults) or "none",
        "events": str(len(events)),
        "figures": "; ".join(result.figures.summary().splitlines()),
    }
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
    _write_report(result, events, evidence_dir)
    if interrupted:
        raise KeyboardInterrupt(f"scenario {case.id} interrupted; faults undone; evidence in {evidence_dir}")
    return result


def _write_report(result: ScenarioResult, events: list[Event], evidence_dir: Path) -> None:
    from pytest_pulsar_ha.report.timeline import render_html, render_png

    title = f"{result.case_id}: {result.outcome}"
    if events:
        png = render_png(events, evidence_dir / "timeline.png", title)
        result.evidence["timeline"] = png
        summary = [
            (c.name, "passed" if c.ok else "failed", f"{c.measured} (expected {c.expected})") for c in result.checks
        ]
        summary += [("problem", "failed", p) for p in result.problems]
        result.evidence["report"] = render_html(png, evidence_dir / "report.html", title, summary, result.facts)
    verdict = {
        "id": result.case_id,
        "outcome": result.outcome,
        "seed": result.seed,
        "problems": result.problems,
        "checks": [c.__dict__ for c in result.checks],
        "figures": None if result.figures is None else result.figures.to_dict(),
        "evidence": {k: str(v) for k, v in result.evidence.items()},
    }
    (evidence_dir / "verdict.json").write_text(json.dumps(verdict, indent=2))
    result.evidence["verdict"] = evidence_dir / "verdict.json"


# -- pytest ------------------------------------------------------------------------------------------------


def run_scenario(item: Any, case: ScenarioCase, record: Callable[[ScenarioResult], None] | None = None) -> None:
    """The runner of collected scenario tests (see :mod:`pytest_pulsar_ha.scenario.collect`); each result is
    passed to ``record`` (the plugin's state keeps them for its summary and index page) before a failure is
    raised."""
    from pytest_pulsar_ha.scenario.errors import ExpectedScenarioFailure, ScenarioFailed

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
    expect_failure = case.scenario.expect_failure
    if expect_failure is not None and result.outcome == "failed" and result.failed_checks and not result.problems:
        result.outcome = "xfailed"
        raise ExpectedScenarioFailure(f"expected failure ({expect_failure.reason}):\n{result.describe()}")
    if result.outcome != "passed":
        replay = f"replay: pytest '{item.nodeid}' --pulsar-ha-seed={result.seed}"
        raise ScenarioFailed(f"{result.describe()}\n  {replay}")
