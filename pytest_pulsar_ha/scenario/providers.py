"""How clients choose their cluster (``provider:``) and which client runs the workload (``client:``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import (
    AfterValidator,
    Field,
    JsonValue,
    Strict,
    model_validator,
)

from pytest_pulsar_ha.scenario.base import (
    ClusterName,
    Loc,
    PositiveDuration,
    SettingName,
    _duplicates,
    _kind_of,
    _matching,
    _members,
    _Model,
    _raise_problems,
    _string,
)
from pytest_pulsar_ha.scenario.kind_facts import ClientFacts, ProviderFacts
from pytest_pulsar_ha.scenario.quantities import Duration

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario


# -- providers -----------------------------------------------------------------------------------------------


class _FailoverProvider(_Model):
    kind: str
    primary: ClusterName
    """The cluster clients start on."""
    secondaries: tuple[ClusterName, ...] = Field(min_length=1)
    """The clusters the provider may switch to, in order of preference."""
    check_interval: PositiveDuration = Duration("1s")
    """How often the provider checks the clusters."""
    failover_delay: Duration
    """How long the active cluster must fail before the provider switches away from it."""
    switch_back_delay: Duration
    """How long the primary must be healthy again before the provider switches back to it."""

    @model_validator(mode="after")
    def _check(self) -> _FailoverProvider:
        problems = _duplicates(self.secondaries, ("secondaries",), "cluster")
        if self.primary in self.secondaries:
            index = self.secondaries.index(self.primary)
            problems.append((("secondaries", index), f"the primary {self.primary!r} cannot also be a secondary"))
        _raise_problems(problems)
        return self


class AutoProvider(_FailoverProvider):
    """Our `AutoClusterFailover` (PIP-121): probes the clusters and switches on its own."""

    facts: ClassVar[ProviderFacts] = ProviderFacts(
        "policy",
        "ours (auto, {probe} probe)",
        java="Java's AutoClusterFailover",
        relayed=True,
        ours=True,
        probed=True,
    )
    kind: Literal["auto"]
    probe: Literal["lookup", "tcp", "health"] = "lookup"
    """How a cluster is checked: `lookup` (binary-protocol lookup), `tcp` (connect only) or `health`."""


class NativeProvider(_FailoverProvider):
    """The Pulsar client's own `pulsar.AutoClusterFailover` (delays are turned into probe counts)."""

    facts: ClassVar[ProviderFacts] = ProviderFacts("probe_counts", "native AutoClusterFailover")
    kind: Literal["native"]


class ControlledProvider(_Model):
    """`ControlledClusterFailover` (PIP-121): clients follow a URL-provider service that an operator switches."""

    facts: ClassVar[ProviderFacts] = ProviderFacts(
        "url_provider", "controlled", java="Java's ControlledClusterFailover", relayed=True, ours=True
    )
    kind: Literal["controlled"]
    primary: ClusterName
    """The cluster the URL provider serves first."""
    secondaries: tuple[ClusterName, ...] = ()
    """Further clusters the URL provider can serve (empty: every other cluster of the topology)."""
    check_interval: PositiveDuration = Duration("1s")
    """How often clients poll the URL provider."""

    @model_validator(mode="after")
    def _check(self) -> ControlledProvider:
        problems = _duplicates(self.secondaries, ("secondaries",), "cluster")
        if self.primary in self.secondaries:
            index = self.secondaries.index(self.primary)
            problems.append((("secondaries", index), f"the primary {self.primary!r} cannot also be a secondary"))
        _raise_problems(problems)
        return self


class NoProvider(_Model):
    """No failover: clients connect to one cluster directly."""

    facts: ClassVar[ProviderFacts] = ProviderFacts("nothing", "none", java="plain service URL", relayed=True)
    kind: Literal["none"]
    primary: ClusterName | None = None
    """The cluster clients connect to (default: the first cluster of the topology)."""


FACTORY_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*"
FactoryReference = Annotated[
    str,
    Strict(),
    AfterValidator(_matching(FACTORY_PATTERN, "'package.module:function', e.g. 'mypackage.failover:build'")),
    _string(FACTORY_PATTERN, "`package.module:function`, e.g. `mypackage.failover:build`."),
]


class CustomProvider(_Model):
    """Your own `pulsar.ServiceInfoProvider`, built by a function of yours when the scenario runs."""

    facts: ClassVar[ProviderFacts] = ProviderFacts("factory", "custom ({factory})", relayed=True)
    kind: Literal["custom"]
    factory: FactoryReference
    """`package.module:function`, importable where pytest runs. It is called with a
    `pytest_pulsar_ha.scenario.factories.ProviderContext` (every cluster's service URL, admin URL and token,
    `primary`, `args`) and returns a `pulsar.ServiceInfoProvider`."""
    primary: ClusterName
    """The cluster clients are expected to start on (what switch checks and figures measure from)."""
    args: dict[SettingName, JsonValue] = Field(default_factory=dict)
    """Anything your factory takes, passed as `context.args`."""


Provider = Annotated[
    AutoProvider | ControlledProvider | NativeProvider | NoProvider | CustomProvider, Field(discriminator="kind")
]

# -- client --------------------------------------------------------------------------------------------------

CLIENT_VERSION_PATTERN = r"[0-9]+\.[0-9]+\.[0-9]+"
ClientVersion = Annotated[
    str,
    Strict(),
    AfterValidator(_matching(CLIENT_VERSION_PATTERN, "a Pulsar client version X.Y.Z, e.g. '4.0.8'")),
    _string(CLIENT_VERSION_PATTERN, "A Pulsar client version X.Y.Z, e.g. `4.0.8`."),
]


class PythonClient(_Model):
    """The Python client (`pulsar-client`, the C++ library) runs the workload, in the pytest process."""

    facts: ClassVar[ClientFacts] = ClientFacts()
    kind: Literal["python"]

    @property
    def version(self) -> None:
        """The installed ``pulsar-client``'s (the Python client has no version setting)."""
        return None

    @property
    def max_backoff(self) -> None:
        """The client's own (the Python client has no backoff setting; a switch makes it reconnect at once)."""
        return None


class JavaClient(_Model):
    """The Java client (`org.apache.pulsar:pulsar-client` from Maven Central) runs the workload, in a driver
    process of its own (`drivers/java`, built once and cached). The provider block configures Java's own
    classes: `auto` is Java's `AutoClusterFailover` (it probes by TCP connect only: `probe: tcp`), `controlled`
    is Java's `ControlledClusterFailover` polling the same URL-provider service, `none` a plain service URL."""

    facts: ClassVar[ClientFacts] = ClientFacts(driver=True, waits_out_backoff=True)
    kind: Literal["java"]
    version: ClientVersion | None = None
    """The client's version (default: the brokers' Pulsar version)."""
    max_backoff: PositiveDuration | None = None
    """The longest reconnect backoff of the Java clients (`ClientBuilder.maxBackoffInterval`; default: the
    client's own, 60 s). A provider's switch does not make a Java producer reconnect: it waits out the backoff
    sleep in progress, which doubles from 100 ms while the old cluster refuses it."""


Client = Annotated[PythonClient | JavaClient, Field(discriminator="kind")]

# The kinds, derived from the unions (the one place each kind is declared), in their order.
PROVIDER_KINDS: tuple[str, ...] = tuple(_kind_of(m) for m in _members(Provider))
PROVIDER_CLASSES: dict[str, type[AutoProvider | ControlledProvider | NativeProvider | NoProvider | CustomProvider]] = {
    _kind_of(m): m for m in _members(Provider)
}
CLIENT_KINDS: tuple[str, ...] = tuple(_kind_of(m) for m in _members(Client))
CLIENT_CLASSES: dict[str, type[PythonClient | JavaClient]] = {_kind_of(m): m for m in _members(Client)}
JAVA_PROVIDER_KINDS = tuple(sorted(kind for kind, cls in PROVIDER_CLASSES.items() if cls.facts.java is not None))
"""The provider kinds the Java client runs, by name (native and custom providers are Python objects)."""
RELAYED_PROVIDER_KINDS = tuple(sorted(kind for kind, cls in PROVIDER_CLASSES.items() if cls.facts.relayed))
"""The provider kinds whose switches a fleet's workers follow, by name (the native provider lives inside one
client)."""


def runner_probe(scenario: Scenario) -> tuple[str, float] | None:
    """The probe and check interval (s) the scenario's provider probes clusters with in the runner, where its
    facts say ``probed`` and the client runs in the runner (not a driver), else None."""
    provider = scenario.provider
    if not provider.facts.probed or scenario.client.facts.driver or not isinstance(provider, AutoProvider):
        return None
    return provider.probe, provider.check_interval.seconds


def factory_of(provider: Provider) -> str | None:
    """The factory (``package.module:function``) that builds the provider, where its facts say it decides by
    ``factory``, else None."""
    if provider.facts.decides != "factory" or not isinstance(provider, CustomProvider):
        return None
    return provider.factory


# -- the rule ------------------------------------------------------------------------------------------------


def check_client(scenario: Scenario) -> list[tuple[Loc, str]]:
    """The Java client runs Java's providers: no native or custom one, and Java's AutoClusterFailover only
    connects (TCP) to probe."""
    if not scenario.client.facts.driver:
        return []
    single = scenario.workload.single_process_options()
    if single:
        name, value = single[0]
        return [
            (
                ("workload", name),
                f"the Java driver does not run workload.{name}: {value} (the Python client's single-process "
                "workload does; use client kind python)",
            )
        ]
    if scenario.workload.batching is True:
        return [(("workload", "batching"), "the Java driver sends without batching; batching is the Python client's")]
    provider = scenario.provider
    if provider.facts.java is None:
        return [
            (
                ("provider", "kind"),
                f"client kind java runs Java's own providers ({', '.join(JAVA_PROVIDER_KINDS)}); provider kind "
                f"{provider.kind} is a Python client's (use auto for Java's AutoClusterFailover)",
            )
        ]
    if isinstance(provider, AutoProvider) and provider.probe != "tcp":
        return [
            (
                ("provider", "probe"),
                f"client kind java runs Java's AutoClusterFailover, which probes by TCP connect only: set "
                f"provider.probe: tcp (found {provider.probe})",
            )
        ]
    return []


def check_processes(scenario: Scenario) -> list[tuple[Loc, str]]:
    """A workload over several processes runs the Python client in each, following a provider whose switches
    the runner can see."""
    if scenario.workload.processes in (1, "auto"):  # auto keeps one process where several could not run
        return []
    single = scenario.workload.single_process_options()
    if single:
        name, value = single[0]
        return [
            (
                ("workload", "processes"),
                f"workload.{name}: {value} runs in the single-process workload; set workload.processes to 1 or auto",
            )
        ]
    if scenario.client.facts.driver:
        return [
            (
                ("workload", "processes"),
                "the Java driver is one process of its own; workload.processes is the Python client's (leave it at 1)",
            )
        ]
    if not scenario.provider.facts.relayed:
        return [
            (
                ("workload", "processes"),
                f"provider kind {scenario.provider.kind} runs inside one client, so the workers of "
                f"workload.processes: {scenario.workload.processes} could not follow its switches; use one of "
                f"{', '.join(RELAYED_PROVIDER_KINDS)}, or processes: 1",
            )
        ]
    return []
