"""The client side of a scenario's ``provider:`` block: the service-URL target a ``pulsar.Client`` gets (our
AutoClusterFailover / ControlledClusterFailover, the native one, or a plain cluster), and the provider's events
mapped to history events (``switch``, ``switch_failed``, ``probe``) as they happen."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from pytest_pulsar_ha.history import PROBE, SWITCH, SWITCH_FAILED, Event, EventLog
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.kind_facts import Decides
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import (
    AutoProvider,
    ControlledProvider,
    CustomProvider,
    NativeProvider,
    NoProvider,
)
from pytest_pulsar_ha.scenario.tick_grid import TickGrid


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
    grid: TickGrid | None = None
    """when the provider checks its clusters, if known (see :mod:`~pytest_pulsar_ha.scenario.tick_grid`)"""
    checks_from_client_s: float | None = None
    """a provider run by the client library (the native one, Java's) checks every this often, the first time
    one interval after the client handed itself to it (the runner, or the Java driver, notes when)"""


def build_provider(
    env: PulsarHaEnvironment, scenario: Scenario, clusters: list[str], stack: ExitStack
) -> ProviderSetup:
    """The provider the Python client gets, built as its facts' ``decides`` says (:data:`BUILDERS`)."""
    spec = scenario.provider
    primary = spec.primary or clusters[0]
    url_to_cluster = {env.cluster(n).service_url: n for n in clusters}
    setup: ProviderSetup = BUILDERS[spec.facts.decides](_Build(env, clusters, stack, primary, url_to_cluster), spec)
    return setup


@dataclass(frozen=True)
class _Build:
    env: PulsarHaEnvironment
    clusters: list[str]
    stack: ExitStack
    primary: str
    url_to_cluster: dict[str, str]

    def secondaries(self, spec: AutoProvider | ControlledProvider | NativeProvider) -> list[str]:
        return list(spec.secondaries) or [n for n in self.clusters if n != self.primary]


def _plain(b: _Build, spec: NoProvider) -> ProviderSetup:
    """Straight to the primary (env.client takes a cluster name)."""
    return ProviderSetup(b.primary, primary=b.primary, url_to_cluster=b.url_to_cluster)


def _custom(b: _Build, spec: CustomProvider) -> ProviderSetup:
    return build_custom(b.env, spec, b.clusters, b.url_to_cluster)


def _auto(b: _Build, spec: AutoProvider) -> ProviderSetup:
    from pulsar_ha_providers import AutoClusterFailover

    auto = AutoClusterFailover(
        _endpoint(b.env, b.primary),
        [_endpoint(b.env, n) for n in b.secondaries(spec)],
        check_interval=spec.check_interval.seconds,
        failover_delay=spec.failover_delay.seconds,
        switch_back_delay=spec.switch_back_delay.seconds,
        probe=spec.probe,
    )
    return ProviderSetup(auto, auto.events, primary=b.primary, url_to_cluster=b.url_to_cluster, grid=_grid_of(auto))


def _controlled(b: _Build, spec: ControlledProvider) -> ProviderSetup:
    from pulsar_ha_providers import ControlledClusterFailover, UrlProviderService

    env, primary = b.env, b.primary
    configs = {}
    for name in [primary, *b.secondaries(spec)]:
        config: dict[str, str] = {"serviceUrl": env.cluster(name).service_url}
        if env.cluster(name).token:
            config["authPluginClassName"] = "token"
            config["authParamsString"] = f"token:{env.cluster(name).token}"
        configs[name] = config
    service = b.stack.enter_context(UrlProviderService(configs, primary))
    controlled = ControlledClusterFailover(
        _endpoint(env, primary), service.url, check_interval=spec.check_interval.seconds
    )
    return ProviderSetup(controlled, controlled.events, service, b.url_to_cluster, primary, _grid_of(controlled))


def _native(b: _Build, spec: NativeProvider) -> ProviderSetup:
    import pulsar

    env = b.env

    def info(name: str) -> Any:
        return pulsar.ServiceInfo(env.cluster(name).service_url, env.cluster(name).authentication())

    interval = spec.check_interval.seconds
    native = pulsar.AutoClusterFailover(
        info(b.primary),
        [info(n) for n in b.secondaries(spec)],
        check_interval_ms=max(1, int(interval * 1000)),
        failover_threshold=max(1, math.ceil(spec.failover_delay.seconds / interval)),
        switch_back_threshold=max(1, math.ceil(spec.switch_back_delay.seconds / interval)),
    )
    return ProviderSetup(native, primary=b.primary, url_to_cluster=b.url_to_cluster, checks_from_client_s=interval)


BUILDERS: dict[Decides, Callable[..., ProviderSetup]] = {
    "nothing": _plain,
    "factory": _custom,
    "policy": _auto,
    "url_provider": _controlled,
    "probe_counts": _native,
}
"""How each way of deciding a switch (:data:`~pytest_pulsar_ha.scenario.kind_facts.Decides`) is built for the
Python client."""


def provider_grid(setup: ProviderSetup, client_initialized_s: float | None) -> TickGrid | None:
    """When the provider checks: its own grid, or the client library's from when the client initialized it."""
    if setup.grid is not None:
        return setup.grid
    if setup.checks_from_client_s is None or client_initialized_s is None:
        return None
    return TickGrid(client_initialized_s, setup.checks_from_client_s)


def _grid_of(provider: Any) -> TickGrid | None:
    """The provider's ``tick_grid`` ((origin, interval) on ``time.monotonic()``), when it has one."""
    grid = getattr(provider, "tick_grid", None)
    if grid is None:
        return None
    origin, interval = grid
    return TickGrid(float(origin), float(interval))


def build_custom(
    env: PulsarHaEnvironment, spec: CustomProvider, clusters: list[str], url_to_cluster: dict[str, str]
) -> ProviderSetup:
    """The user's provider: their factory called with the clusters as clients reach them; what it reports with
    ``context.switched`` goes into the history as ``switch`` events."""
    from pulsar_ha_providers import EventHub, SwitchEvent
    from pytest_pulsar_ha.scenario.factories import ClusterInfo, ProviderContext, check_returned, resolve_factory

    hub = EventHub()
    current = [spec.primary]

    def switched(to: str, reason: str) -> None:
        hub.publish(SwitchEvent(current[0], to, reason or "custom provider"))
        current[0] = to

    infos = {
        name: ClusterInfo(name, env.cluster(name).service_url, env.cluster(name).admin_url, env.cluster(name).token)
        for name in clusters
    }
    context = ProviderContext(infos, spec.primary, dict(spec.args), switched)
    provider = check_returned(spec.factory, resolve_factory(spec.factory)(context))
    return ProviderSetup(provider, hub, primary=spec.primary, url_to_cluster=url_to_cluster, grid=_grid_of(provider))


def provider_event(setup: ProviderSetup, event: Any) -> Event | None:
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


def record_provider_events(
    setup: ProviderSetup, log: EventLog, on_error: Callable[[str], None] | None = None
) -> Callable[[], None]:
    """Add the provider's events to the run's sink ``log`` as they happen (and those it already had); returns the
    unsubscribe function. The provider writes through the same sink as the workload and the nemesis. An event that
    cannot be written goes to ``on_error`` (the run reports it as a problem: the history misses it), never only to
    a log."""
    if setup.events is None:
        return lambda: None

    def record(event: Any) -> None:
        try:
            mapped = provider_event(setup, event)
            if mapped is not None:
                log.add(mapped)
        except Exception as exc:
            if on_error is None:
                raise
            on_error(f"{type(event).__name__} at {getattr(event, 'ts', '?')}: {type(exc).__name__}: {exc}")

    unsubscribe: Callable[[], None] = setup.events.subscribe(record, replay=True)
    return unsubscribe
