"""The nemesis' table: each YAML fault kind -> the primitive that applies it (a context manager factory over
the environment's clusters, links, brokers or URL provider), and the schedule of a scenario's faults."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any, Protocol

from pytest_pulsar_ha.nemesis.broker_faults import broker_fault
from pytest_pulsar_ha.nemesis.scheduler import ScheduledFault
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import runner_probe


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
        if fault.facts.on_brokers
    }


Primitive = Callable[["FaultTarget", Any], Callable[[], AbstractContextManager[Any]]]
"""What one fault kind does: given the target and the fault (its model object), a factory of the context
manager that applies the fault on entry and undoes it on exit."""


class FaultTarget:
    """What faults act on: the environment, the scenario (for its topology), the URL provider service of a
    controlled provider, the scenario's migrations (None when it has none) and the workload's topics (a quiet
    end loads them before clients may come back)."""

    def __init__(
        self,
        env: PulsarHaEnvironment,
        scenario: Scenario,
        url_provider: Any = None,
        migrations: Any = None,
        topics: list[str] | None = None,
    ) -> None:
        self.env = env
        self.scenario = scenario
        self.url_provider = url_provider
        self.migrations = migrations
        self.topics = list(topics or [])


def _operator_switch(target: FaultTarget, fault: Any) -> Callable[[], AbstractContextManager[Any]]:
    @contextmanager
    def switch() -> Iterator[None]:
        target.url_provider.switch_to(fault.to)
        yield

    return switch


def _migrate(target: FaultTarget, fault: Any) -> Callable[[], AbstractContextManager[Any]]:
    @contextmanager
    def migrating() -> Iterator[None]:
        target.migrations.start(fault)  # rolled back when the scenario ends, not at the entry's end
        yield

    return migrating


def _url_provider(target: FaultTarget, fault: Any) -> Callable[[], AbstractContextManager[Any]]:
    @contextmanager
    def misbehaving() -> Iterator[None]:
        target.url_provider.misbehave(fault.answer)
        try:
            yield
        finally:
            target.url_provider.misbehave(None)

    return misbehaving


def _on_broker(target: FaultTarget, fault: Any) -> Callable[[], AbstractContextManager[Any]]:
    return _broker_fault(target.env, target.scenario, fault).make  # type: ignore[no-any-return]


CLOCK_SHOWN_WITHIN_S = 10.0
"""How long a moved clock may take to show in the cluster's HTTP answers (libfaketime re-reads it every second)."""


def _clock_skew(target: FaultTarget, fault: Any) -> Callable[[], AbstractContextManager[Any]]:
    """Rewrite the cluster's clock offset, and wait until its broker's ``Date`` header shows it (the evidence
    that its processes follow; a cluster started without libfaketime is refused here, before the workload)."""
    cluster = target.env.cluster(fault.cluster)
    clock = cluster.clock
    if clock is None or not clock.controlled:
        why = "its backend runs no process of it" if clock is None else clock.why_not_controlled()
        raise RuntimeError(f"clock_skew cannot move {fault.cluster}'s clock: {why}")

    def shown(offset: float) -> None:
        deadline = time.monotonic() + CLOCK_SHOWN_WITHIN_S
        seen = float("nan")
        while time.monotonic() < deadline:
            with suppress(OSError, ValueError):
                seen = cluster.served_clock_offset_s(timeout=2.0)
            if abs(seen - offset) <= 1.5:
                return
            time.sleep(0.2)
        raise RuntimeError(
            f"{fault.cluster}'s broker still answers {seen:+.1f}s from the host's clock "
            f"{CLOCK_SHOWN_WITHIN_S:g}s after its clock was moved to {offset:+g}s"
        )

    @contextmanager
    def skewed() -> Iterator[None]:
        clock.set_offset(fault.offset_s)
        try:
            shown(fault.offset_s)
            yield
        finally:
            clock.set_offset(0.0)
        shown(0.0)  # undone once the broker answers on the host's clock again

    return skewed


PRIMITIVES: dict[str, Primitive] = {
    "outage": lambda t, f: lambda: t.env.cluster(f.cluster).outage(replication=f.replication),
    "kill": lambda t, f: t.env.cluster(f.cluster).killed,
    "pause": lambda t, f: t.env.cluster(f.cluster).paused,
    "latency": lambda t, f: (
        lambda: t.env.cluster(f.cluster).latency(int(f.latency.seconds * 1000), int(f.jitter.seconds * 1000))
    ),
    "timeout": lambda t, f: t.env.cluster(f.cluster).hang,
    "bandwidth": lambda t, f: lambda: t.env.cluster(f.cluster).bandwidth(max(1, int(f.rate.bytes_per_second / 1024))),
    "reset": lambda t, f: t.env.cluster(f.cluster).resetting,
    "replication_cut": lambda t, f: lambda: t.env.replication_cut(f.from_, f.to),
    "operator_switch": _operator_switch,
    "url_provider": _url_provider,
    "broker_kill": _on_broker,
    "broker_pause": _on_broker,
    "domain_outage": _on_broker,
    "clock_skew": _clock_skew,
    "migrate": _migrate,
}
"""Fault kind (the YAML name) -> its primitive."""


def fault_context(target: FaultTarget, fault: Any) -> Callable[[], AbstractContextManager[Any]]:
    """The primitive of ``fault``'s kind applied to ``target``."""
    primitive = PRIMITIVES.get(fault.kind)
    if primitive is None:  # the model rejects unknown kinds before a run
        raise ValueError(f"fault kind {fault.kind!r} has no primitive; known: {', '.join(PRIMITIVES)}")
    return primitive(target, fault)


SETTLE_TIMEOUT_S = 120.0


def pinned_faults(scenario: Scenario) -> tuple[set[int], set[int]]:
    """(faults whose start, faults whose end) a switch or switch-back window is measured from."""
    starts: set[int] = set()
    ends: set[int] = set()
    for expectation in scenario.expect:
        if isinstance(expectation, SwitchExpectation):
            spec = expectation.switch
            (starts if spec.of == "fault_start" else ends).add(spec.fault)
        elif isinstance(expectation, SwitchBackExpectation):
            ends.add(expectation.switch_back.fault)
    return starts, ends


def _settle(target: FaultTarget, cluster: str) -> Callable[[], None]:
    """Load the workload's topics on the recovered cluster, through its brokers' own ports, warm its write path,
    and wait until it passes the provider's own probe there steadily (:func:`wait_steady`)."""

    def settle() -> None:
        admin = target.env.cluster(cluster).admin
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        _load_topics(admin, target.topics, cluster, deadline)
        _warm_writes(target, cluster)
        _pass_probe(target, cluster, deadline)

    return settle


WARM_WRITES = 50
WARM_TOPIC = "persistent://public/default/pulsar-ha-warm-up"
"""A topic of the cluster's own namespace (not replicated, no consumer), outside the workload and its history."""


def _warm_writes(target: FaultTarget, cluster: str) -> None:
    """Publish :data:`WARM_WRITES` messages on the recovered cluster through its broker's own port, so that a
    restarted broker's cold write path (its JVM's first publishes) is not measured as the client's reconnection:
    once on 4.2.4 (CI rehearsal #14, killed-primary) the first sends after the switch back waited 0.66 s for their
    acks, then 0.1-0.2 s each for a second, where a warm broker acks in milliseconds. It also opens and closes a
    producer on each workload topic (nothing sent: the history stays the workload's), since the first ack after
    the switch back still came 0.34 s after the switch once (rehearsal #16), 0.1 s in others. Best effort: a cluster
    without ``public/default`` (a multi-broker one) is not warmed, and the probe still decides."""
    import pulsar

    node = target.env.cluster(cluster)
    options: dict[str, Any] = {"operation_timeout_seconds": 10, "logger": _quiet_logger(target.env)}
    if node.token is not None:
        options["authentication"] = node.authentication()
    client = pulsar.Client(node.direct_service_url, **options)
    try:
        producer = client.create_producer(WARM_TOPIC, send_timeout_millis=10_000)
        for _ in range(WARM_WRITES):
            producer.send(b"warm-up")
        for topic in target.topics:  # the workload's topics: a producer opened and closed, nothing sent
            client.create_producer(topic).close()
    except Exception:  # best effort: the provider's probe decides when clients come back
        pass
    finally:
        client.close()


def _quiet_logger(env: PulsarHaEnvironment) -> Any:
    import pulsar

    return pulsar.FileLogger(pulsar.LoggerLevel.Warn, str(env.work_dir / "clients.log"))


def _pass_probe(target: FaultTarget, cluster: str, deadline: float) -> None:
    probed = runner_probe(target.scenario)
    if probed is None:
        return  # the others probe by TCP (native, Java) or poll a URL service (controlled)
    from pulsar_ha_providers import ClusterEndpoint
    from pulsar_ha_providers.probes import default_probe_timeout, make_probe

    node = target.env.cluster(cluster)
    endpoint = ClusterEndpoint(node.direct_service_url, name=cluster, token=node.token, admin_url=node.direct_admin_url)
    probe, interval = make_probe(probed[0]), probed[1]
    timeout = default_probe_timeout(interval)
    wait_steady(lambda: probe.run(endpoint, timeout), cluster, probe.kind, interval, timeout, deadline)


STEADY_S = 3.0
"""How long a recovered cluster must pass the provider's probe, every check, before clients may reach it."""


class _ProbeResult(Protocol):
    @property
    def ok(self) -> bool: ...
    @property
    def latency_s(self) -> float: ...
    @property
    def error(self) -> str: ...


def wait_steady(
    run: Callable[[], _ProbeResult],
    cluster: str,
    kind: str,
    interval: float,
    timeout: float,
    deadline: float,
    *,
    steady_s: float = STEADY_S,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Probe every ``interval`` until the probe has passed, each time within half its ``timeout``, for
    ``steady_s`` in a row. A restarted broker takes its namespaces back on the first lookups and its JVM is cold:
    an answer that comes once, or only just in time, is not yet a cluster the provider will see as healthy at
    every check after the end."""
    since: float | None = None
    while True:
        started = clock()
        result = run()
        if result.ok and result.latency_s <= timeout / 2:
            since = started if since is None else since
            if clock() - since >= steady_s:
                return
        else:
            since = None
            if clock() > deadline:
                why = result.error or f"answered in {result.latency_s:.2f}s, over half its {timeout:g}s timeout"
                raise TimeoutError(f"{cluster} did not pass the {kind} probe steadily: {why}")
        sleep(max(0.0, started + interval - clock()))


def _load_topics(admin: Any, topics: list[str], cluster: str, deadline: float) -> None:
    for topic in topics:
        path = topic.replace("://", "/", 1) + "/stats"
        while True:
            try:
                admin.get(path)
                break
            except Exception as exc:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{topic} was not served by {cluster} within {SETTLE_TIMEOUT_S:g}s: {exc}"
                    ) from exc
                time.sleep(0.2)


def fault_offsets(fault: Any) -> tuple[float, float]:
    """When the nemesis applies and undoes ``fault``, in seconds from the workload's start (before any pin)."""
    start = float(fault.at.seconds)
    duration = getattr(fault, "for_", None)
    end = start + (duration.seconds if duration is not None else 0.2)
    if fault.facts.instant:
        end = start + 0.01
    return start, end


def schedule_faults(target: FaultTarget) -> list[ScheduledFault]:
    """The scenario's faults as the nemesis runs them: start and end offsets, label, primitive and pins."""
    starts, ends = pinned_faults(target.scenario)
    out = []
    for index, fault in enumerate(target.scenario.faults):
        start, end = fault_offsets(fault)
        make = fault_context(target, fault)
        cluster = fault.target
        quiet = settle = None
        if index in ends and fault.facts.quiet_end and cluster is not None:
            quiet = target.env.cluster(cluster).clients_cut
            settle = _settle(target, cluster)
        out.append(
            ScheduledFault(
                index,
                fault.label(index),
                cluster,
                start,
                end,
                make,
                pin_start=index in starts,
                pin_end=index in ends,
                quiet=quiet,
                settle=settle,
            )
        )
    return out
