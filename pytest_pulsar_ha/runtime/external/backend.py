"""The ``external`` backend: clusters that run elsewhere (staging, a Kubernetes namespace), named in a clusters file.

The harness starts no broker. A node checks, when "started", that its cluster answers (its admin API lists it
and its health check passes) and stops nothing when stopped. Killing, pausing or starting a cluster it does not
run raises :class:`UnsupportedFault` naming the backend; scenarios that need such faults are skipped before they
start (:func:`external_capabilities`, :mod:`pytest_pulsar_ha.runtime.capabilities`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar
from urllib.parse import urlsplit

from pytest_pulsar_ha.errors import PulsarHaError, StartupError
from pytest_pulsar_ha.network.listeners import ListenerPlan
from pytest_pulsar_ha.process.control import VERBS, Controlled
from pytest_pulsar_ha.process.readiness import http_get
from pytest_pulsar_ha.runtime.capabilities import Capabilities
from pytest_pulsar_ha.runtime.external.clusters import ExternalCluster, LoadedClusters
from pytest_pulsar_ha.settings.clusters import ClusterSpec

BACKEND = "external"


class UnsupportedFault(PulsarHaError):
    """A fault the backend cannot apply was asked for (e.g. killing a cluster the harness does not run)."""


def _refuse(cluster: str, action: str) -> UnsupportedFault:
    return UnsupportedFault(
        f"cannot {action} {cluster}: it runs on the {BACKEND} backend (a cluster the harness does not run); "
        "only faults on connections through the harness's proxies, controlled switches, URL-provider answers and "
        "migrations are possible there"
    )


def external_capabilities(loaded: LoadedClusters) -> Capabilities:
    """What the harness can do to the clusters of ``loaded``: connection faults on clusters whose route puts every
    client connection behind its proxy; no kill or pause; no replication cut (links are the operator's)."""
    model = loaded.model
    return Capabilities(
        backend=BACKEND,
        clusters=tuple(model.names),
        processes=False,
        proxied_clients=frozenset(c.name for c in model.clusters if c.proxied),
        links_proxied=False,
        replicated=model.geo_replication,
        configurable=False,
        auth={c.name: "token" if loaded.token(c.name) else "none" for c in model.clusters},
        routes={c.name: c.route for c in model.clusters},
    )


class _NotRunHere:
    """The processes of a cluster the harness does not run, as one process: each verb of
    :class:`~pytest_pulsar_ha.process.control.Controls` that acts refuses, naming the cluster; one that asks is
    answered as for a running, unpaused process with no log of its own here."""

    ANSWERS: ClassVar[dict[str, object]] = {"is_running": True, "is_paused": False, "log_tail": ""}

    def __init__(self, cluster: str) -> None:
        self.cluster = cluster

    def __getattr__(self, verb: str) -> Callable[..., Any]:
        if verb not in VERBS:
            raise AttributeError(verb)
        if verb in self.ANSWERS:
            return lambda *args, **kwargs: self.ANSWERS[verb]

        def refuse(*args: Any, **kwargs: Any) -> None:
            raise _refuse(self.cluster, verb)

        return refuse


class ExternalBroker(Controlled):
    """The cluster as one broker of the harness's view (its service URL): nothing to kill, pause or start."""

    def __init__(self, entry: ExternalCluster) -> None:
        self.entry = entry
        self.process = _NotRunHere(entry.name)

    @property
    def name(self) -> str:
        return f"{self.entry.name} (external)"

    @property
    def id(self) -> str:
        return urlsplit(self.entry.admin_url).netloc

    @property
    def broker_url(self) -> str:
        return self.entry.service_url

    @property
    def web_url(self) -> str:
        return self.entry.admin_url


class ExternalClusterNode(Controlled):
    """A cluster the harness reaches but does not run (a
    :class:`~pytest_pulsar_ha.runtime.backend_protocol.ClusterNode`)."""

    def __init__(self, spec: ClusterSpec, entry: ExternalCluster, token: str | None, timeout: float) -> None:
        self.spec = spec
        self.entry = entry
        self.token = token
        self.timeout = timeout
        self.broker = ExternalBroker(entry)
        self.process = _NotRunHere(spec.name)

    @property
    def broker_url(self) -> str:
        return self.entry.service_url

    @property
    def web_url(self) -> str:
        return self.entry.admin_url

    @property
    def brokers(self) -> Sequence[ExternalBroker]:
        return [self.broker]

    @property
    def zookeeper(self) -> None:
        return None

    @property
    def bookie(self) -> None:
        return None

    def _start_ready(self) -> None:
        """Check that the cluster answers as the clusters file says: its admin API lists it, and it is healthy."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        for path, accept in (("clusters", f'"{self.spec.name}"'), ("brokers/health", "")):
            url = f"{self.web_url}/admin/v2/{path}"
            try:
                status, body = http_get(url, timeout=min(10.0, self.timeout), headers=headers)
            except OSError as exc:
                raise StartupError(f"{self.spec.name} ({BACKEND}): GET {url} failed: {exc}") from None
            if status != 200:
                raise StartupError(f"{self.spec.name} ({BACKEND}): GET {url} answered HTTP {status}: {body[:300]}")
            if accept not in body:
                raise StartupError(
                    f"{self.spec.name} ({BACKEND}): GET {url} does not list {self.spec.name} ({body[:300]}): is "
                    "the name in the clusters file its clusterName?"
                )

    def stop(self) -> None:
        """Nothing to stop: the harness started nothing."""


class ExternalBackend:
    """Clusters named in a clusters file; see the module's documentation."""

    name = BACKEND

    def __init__(self, loaded: LoadedClusters, timeout: float = 30.0) -> None:
        self.loaded = loaded
        self.timeout = timeout

    def describe(self) -> str:
        return self.loaded.describe()

    def create(self, spec: ClusterSpec, plans: Sequence[ListenerPlan]) -> ExternalClusterNode:
        """The node of ``spec`` (the plans are the harness's proxies; an external cluster cannot follow them)."""
        return ExternalClusterNode(
            spec, self.loaded.model.cluster(spec.name), self.loaded.token(spec.name), self.timeout
        )
