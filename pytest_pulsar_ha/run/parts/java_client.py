"""A scenario on the Java client (``client: {kind: java}``): the driver built for the client's version, its
configuration from the scenario's provider and workload blocks, and the provider's side of the run (the
URL-provider service of a controlled provider, which the nemesis switches as for the Python client).

Java's switches come from the driver's stream as ``switch`` events; Java's providers report no probes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.history import EventLog
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION, default_cache_dir
from pytest_pulsar_ha.provisioning.java_driver import ensure_java_driver
from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.run.provider import ProviderSetup
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.kind_facts import Decides
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import AutoProvider, ControlledProvider, NoProvider
from pytest_pulsar_ha.workload.java_workload import JavaWorkload
from pytest_pulsar_ha.workload.plan import WorkloadPlan

JAVA_TOKEN_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationToken"


def brokers_version(env: PulsarHaEnvironment) -> str:
    """The Pulsar version the environment's brokers run (the Java client's default version)."""
    options = getattr(env.backend, "options", None)
    version = getattr(getattr(options, "distribution", None), "version", None)
    return version if isinstance(version, str) and version != "unknown" else DEFAULT_PULSAR_VERSION


def _progress(message: str) -> None:
    print(f"pulsar-ha: {message}", file=sys.stderr, flush=True)


def driver_config(
    env: PulsarHaEnvironment, scenario: Scenario, clusters: list[str], plan: WorkloadPlan, url_provider: str | None
) -> dict[str, Any]:
    """The driver's JSON configuration (the fields of ``drivers/java/.../DriverConfig.java``)."""
    spec = scenario.provider
    primary = spec.primary or clusters[0]
    provider: dict[str, Any] = {"kind": spec.kind, "primary": primary}
    provider |= _java_of(spec).settings(spec, url_provider)
    return {
        "clusters": {n: {"serviceUrl": env.cluster(n).service_url, "token": env.cluster(n).token} for n in clusters},
        "listenerName": env.client_options.get("listener_name"),
        "provider": provider,
        "consumeFrom": scenario.workload.consume_from,
        "topics": plan.topics,
        "producers": plan.producers,
        "subscriptions": plan.subscription_names() if plan.consumers else [],
        "subscriptionType": plan.subscription_type,
        "keys": plan.keys,
        "ratePerSecond": plan.rate_per_second,
        "messageSize": plan.message_size,
        "replicatedSubscriptions": plan.replicated_subscriptions,
        "sendTimeoutMs": plan.send_timeout_ms,
        "seed": plan.seed,
        "consumerDelayMs": round(plan.consumer_delay_s * 1000),
        "initialPosition": plan.initial_position,
        "maxBackoffMs": _max_backoff_ms(scenario),
    }


def _max_backoff_ms(scenario: Scenario) -> int:
    backoff = scenario.client.max_backoff
    return 0 if backoff is None else max(1, round(backoff.seconds * 1000))


def _auto_settings(spec: AutoProvider, url_provider: str | None) -> dict[str, Any]:
    return {
        "secondaries": list(spec.secondaries),
        "checkIntervalMs": round(spec.check_interval.seconds * 1000),
        "failoverDelayMs": round(spec.failover_delay.seconds * 1000),
        "switchBackDelayMs": round(spec.switch_back_delay.seconds * 1000),
    }


def _controlled_settings(spec: ControlledProvider, url_provider: str | None) -> dict[str, Any]:
    return {"checkIntervalMs": round(spec.check_interval.seconds * 1000), "urlProvider": url_provider}


def _no_settings(spec: NoProvider, url_provider: str | None) -> dict[str, Any]:
    return {}


def _checks_every(spec: AutoProvider | ControlledProvider) -> float:
    """Java's check, from the client's initialize() on."""
    return spec.check_interval.seconds


def _no_checks(spec: NoProvider) -> None:
    return None


def _url_service(env: PulsarHaEnvironment, spec: ControlledProvider, clusters: list[str], primary: str) -> Any:
    """The URL-provider service Java's ControlledClusterFailover polls (the nemesis switches it)."""
    from pulsar_ha_providers import UrlProviderService

    configs = {}
    for name in [primary, *(spec.secondaries or [n for n in clusters if n != primary])]:
        config: dict[str, str] = {"serviceUrl": env.cluster(name).service_url}
        token = env.cluster(name).token
        if token:  # Java's ControlledClusterFailover creates the plugin by its class name
            config |= {"authPluginClassName": JAVA_TOKEN_PLUGIN, "authParamsString": f"token:{token}"}
        configs[name] = config
    return UrlProviderService(configs, primary)


@dataclass(frozen=True)
class _Java:
    """How the driver runs one way of deciding a switch."""

    settings: Callable[..., dict[str, Any]]
    """its settings in the driver's configuration"""
    checks_every_s: Callable[..., float | None]
    """how often it checks, from the client's initialize() on (None: never)"""
    url_service: Callable[..., Any] | None = None
    """the URL-provider service it polls, which the run starts (a context manager), or None"""


JAVA: dict[Decides, _Java] = {
    "policy": _Java(_auto_settings, _checks_every),
    "url_provider": _Java(_controlled_settings, _checks_every, _url_service),
    "nothing": _Java(_no_settings, _no_checks),
}
"""The ways of deciding a switch the Java driver runs (the providers whose facts name Java's own class)."""


def _java_of(spec: Any) -> _Java:
    java = JAVA.get(spec.facts.decides)
    if java is None or spec.facts.java is None:
        raise ValueError(f"provider kind {spec.kind} does not run on the Java client")  # refused at load time
    return java


def java_workload(
    env: PulsarHaEnvironment,
    scenario: Scenario,
    clusters: list[str],
    plan: WorkloadPlan,
    log: EventLog,
    evidence_dir: Path,
    stack: ExitStack,
) -> tuple[ProviderSetup, JavaWorkload]:
    """The provider's side and the Java workload of ``scenario`` (not started); services it needs are closed by
    ``stack``."""
    client = scenario.client
    if not client.facts.driver:
        raise TypeError(f"the scenario's client is {client.kind}, not java")
    driver = ensure_java_driver(client.version or brokers_version(env), default_cache_dir(), _progress)
    spec = scenario.provider
    primary = spec.primary or clusters[0]
    url_to_cluster = {env.cluster(n).service_url: n for n in clusters}
    setup = ProviderSetup(None, primary=primary, url_to_cluster=url_to_cluster)
    java = _java_of(spec)
    setup.checks_from_client_s = java.checks_every_s(spec)
    if java.url_service is not None:
        setup.url_provider = stack.enter_context(java.url_service(env, spec, clusters, primary))
    url = setup.url_provider.url if setup.url_provider is not None else None
    config = driver_config(env, scenario, clusters, plan, url)
    workload = JavaWorkload(driver.command(evidence_dir / "java-driver.json"), config, log, evidence_dir, env.registry)
    return setup, workload


class JavaClientPart(Part):
    """Java's provider and clients, in the Java driver's process (``client: {kind: java}``)."""

    def __init__(self) -> None:
        self.stack = ExitStack()

    @classmethod
    def of(cls, ctx: RunContext) -> JavaClientPart | None:
        return cls() if ctx.scenario.client.facts.driver else None

    def prepare(self, ctx: RunContext) -> None:
        ctx.provider, ctx.workload = java_workload(
            ctx.env, ctx.scenario, ctx.clusters, ctx.needs_plan(), ctx.log, ctx.evidence_dir, self.stack
        )

    def close(self, ctx: RunContext) -> None:
        self.stack.close()
