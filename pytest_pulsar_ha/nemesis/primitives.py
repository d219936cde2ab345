"""The nemesis' table: each fault kind -> the primitive that applies it (a context manager factory over the
environment's clusters, links, brokers or URL provider), one typed row per kind: the row's function sees the
kind's own class (its fields checked by mypy)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any, TypeVar

from pytest_pulsar_ha.nemesis.broker_faults import BrokerFault, on_broker, on_domain
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.base import _kind_of
from pytest_pulsar_ha.scenario.faults import (
    BandwidthFault,
    BrokerKillFault,
    BrokerPauseFault,
    ClockSkewFault,
    DomainOutageFault,
    KillFault,
    LatencyFault,
    MigrateFault,
    OperatorSwitchFault,
    OutageFault,
    PauseFault,
    ReplicationCutFault,
    ReplicationLatencyFault,
    ResetFault,
    SetPolicyFault,
    TimeoutFault,
    UnloadFault,
    UrlProviderFault,
    _Fault,
)
from pytest_pulsar_ha.scenario.faults.admin import POLICIES
from pytest_pulsar_ha.scenario.model import Scenario

Factory = Callable[[], AbstractContextManager[Any]]
Primitive = Callable[["FaultTarget", Any], Factory]
"""What one fault kind does: given the target and the fault (its model object), a factory of the context
manager that applies the fault on entry and undoes it on exit."""

F = TypeVar("F", bound=_Fault)


class FaultTarget:
    """What faults act on: the environment, the scenario (for its topology), the URL provider service of a
    controlled provider, the scenario's migrations (None when it has none) and the workload's topics (a quiet
    end loads them before clients may come back; an unload unloads them)."""

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


def _broker_fault(env: PulsarHaEnvironment, scenario: Scenario, fault: _Fault) -> BrokerFault:
    """The brokers a broker or domain fault strikes, and what it does to them."""
    if isinstance(fault, DomainOutageFault):
        domain = scenario.topology.domain_brokers(fault.cluster, fault.domain)
        return on_domain(env.cluster(fault.cluster), domain or ())
    if isinstance(fault, BrokerKillFault):
        return on_broker(env.cluster(fault.cluster), fault.broker, lambda broker: broker.killed)
    if isinstance(fault, BrokerPauseFault):
        return on_broker(env.cluster(fault.cluster), fault.broker, lambda broker: broker.paused)
    raise ValueError(f"{fault.kind!r} is not a broker fault")


def hit_brokers(env: PulsarHaEnvironment, scenario: Scenario) -> dict[int, tuple[str, ...]]:
    """Fault index -> the load-manager ids of the brokers it hits (broker and domain faults only)."""
    return {
        index: _broker_fault(env, scenario, fault).brokers
        for index, fault in enumerate(scenario.faults)
        if fault.facts.on_brokers
    }


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


def _on_broker(target: FaultTarget, fault: _Fault) -> Factory:
    return _broker_fault(target.env, target.scenario, fault).make


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


def _unload(target: FaultTarget, fault: UnloadFault) -> Factory:
    """Unload the fault's topic (each of its partitions) or each namespace of the workload's topics, on the
    fault's cluster through its admin API: ``PUT persistent/{tenant}/{namespace}/{topic}/unload`` or
    ``PUT namespaces/{tenant}/{namespace}/unload``."""

    def paths() -> list[str]:
        if fault.topic is None:
            namespaces = dict.fromkeys(t.removeprefix("persistent://").rsplit("/", 1)[0] for t in target.topics)
            return [f"namespaces/{namespace}/unload" for namespace in namespaces]
        named = [
            t
            for t in target.topics
            if (local := t.rsplit("/", 1)[1]) == fault.topic or local.startswith(f"{fault.topic}-partition-")
        ]
        if not named:
            raise RuntimeError(f"unload: {fault.topic} is not a topic of the workload ({', '.join(target.topics)})")
        return [t.replace("://", "/", 1) + "/unload" for t in named]

    @contextmanager
    def unloaded() -> Iterator[None]:
        admin = target.env.cluster(fault.cluster).admin
        for path in paths():
            admin.put(path)
        yield

    return unloaded


POLICY_SHOWN_WITHIN_S = 10.0
"""How long a policy set (or restored) may take before its admin GET answers the new value (topic policies
travel through the namespace's ``__change_events`` topic)."""


def _policy_paths(target: FaultTarget, fault: SetPolicyFault) -> list[str]:
    """The admin REST paths of the fault's policy: one per namespace of the workload's topics, or one per
    topic (a partitioned topic's policy is set on its base name)."""
    segment = POLICIES[fault.policy].paths[fault.scope]
    if fault.scope == "namespace":
        namespaces = dict.fromkeys(t.removeprefix("persistent://").rsplit("/", 1)[0] for t in target.topics)
        return [f"namespaces/{namespace}/{segment}" for namespace in namespaces]
    topics = dict.fromkeys(t.split("-partition-", 1)[0] for t in target.topics)
    named = [t for t in topics if fault.topic is None or t.rsplit("/", 1)[1] == fault.topic]
    if not named:
        raise RuntimeError(f"set_policy: {fault.topic} is not a topic of the workload ({', '.join(target.topics)})")
    return [f"{t.replace('://', '/', 1)}/{segment}" for t in named]


def _set_policy(target: FaultTarget, fault: SetPolicyFault) -> Factory:
    """Set the fault's policy at each of its paths on the fault's cluster (``POST`` the value), wait until the
    admin API answers it, and at the end restore what each path held before (``POST`` it back, or ``DELETE``
    where nothing was set), waiting again."""

    def answers(admin: Any, path: str, value: Any) -> None:
        deadline = time.monotonic() + POLICY_SHOWN_WITHIN_S
        seen: Any = None
        while time.monotonic() < deadline:
            seen = admin.get(path)
            if seen == value:
                return
            time.sleep(0.2)
        raise RuntimeError(
            f"set_policy: {fault.cluster} answers {seen!r} at {path}, {POLICY_SHOWN_WITHIN_S:g}s after it was set "
            f"to {value!r}"
        )

    @contextmanager
    def policy_set() -> Iterator[None]:
        admin = target.env.cluster(fault.cluster).admin
        before: dict[str, Any] = {}
        try:
            for path in _policy_paths(target, fault):
                before[path] = admin.get(path)
                admin.post(path, fault.value)
                answers(admin, path, fault.value)
            yield
        finally:
            for path, value in before.items():
                if value is None:
                    admin.delete(path)
                else:
                    admin.post(path, value)
                answers(admin, path, value)

    return policy_set


def _replication_latency(target: FaultTarget, fault: ReplicationLatencyFault) -> Factory:
    """A latency toxic on the upstream stream of each link proxy the replicator of ``from`` reaches ``to`` by
    (what it sends: the replicated messages); the downstream stream (``to``'s receipts) is left alone."""
    env = target.env
    proxies = env.layout.link_proxies(fault.from_, fault.to)
    attributes = {"latency": int(fault.latency.seconds * 1000), "jitter": int(fault.jitter.seconds * 1000)}
    return lambda: env.network.toxic(proxies, "latency", attributes, ("upstream",))


def _row(kind: type[F], apply: Callable[[FaultTarget, F], Factory]) -> tuple[str, Primitive]:
    return _kind_of(kind), apply


PRIMITIVES: dict[str, Primitive] = dict(
    [
        _row(OutageFault, lambda t, f: lambda: t.env.cluster(f.cluster).outage(replication=f.replication)),
        _row(KillFault, lambda t, f: t.env.cluster(f.cluster).killed),
        _row(PauseFault, lambda t, f: t.env.cluster(f.cluster).paused),
        _row(
            LatencyFault,
            lambda t, f: (
                lambda: t.env.cluster(f.cluster).latency(int(f.latency.seconds * 1000), int(f.jitter.seconds * 1000))
            ),
        ),
        _row(TimeoutFault, lambda t, f: t.env.cluster(f.cluster).hang),
        _row(
            BandwidthFault,
            lambda t, f: lambda: t.env.cluster(f.cluster).bandwidth(max(1, int(f.rate.bytes_per_second / 1024))),
        ),
        _row(ResetFault, lambda t, f: t.env.cluster(f.cluster).resetting),
        _row(ReplicationCutFault, lambda t, f: lambda: t.env.replication_cut(f.from_, f.to)),
        _row(ReplicationLatencyFault, _replication_latency),
        _row(OperatorSwitchFault, _operator_switch),
        _row(UrlProviderFault, _url_provider),
        _row(BrokerKillFault, _on_broker),
        _row(BrokerPauseFault, _on_broker),
        _row(DomainOutageFault, _on_broker),
        _row(ClockSkewFault, _clock_skew),
        _row(MigrateFault, _migrate),
        _row(UnloadFault, _unload),
        _row(SetPolicyFault, _set_policy),
    ]
)
"""Fault kind (the YAML name) -> its primitive."""


def fault_context(target: FaultTarget, fault: Any) -> Factory:
    """The primitive of ``fault``'s kind applied to ``target``."""
    primitive = PRIMITIVES.get(fault.kind)
    if primitive is None:  # the model rejects unknown kinds before a run
        raise ValueError(f"fault kind {fault.kind!r} has no primitive; known: {', '.join(PRIMITIVES)}")
    return primitive(target, fault)
