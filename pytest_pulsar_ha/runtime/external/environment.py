"""The environment over external clusters: toxiproxy in front of what the harness can reach, nothing started.

Per cluster a client proxy (to its service URL) and an admin proxy (to its admin URL); no replication link
proxies (the clusters replicate as the operator registered them). Whether a client connection stays behind the
client proxy depends on what the cluster's lookups answer (the cluster's ``route`` in the clusters file); for
every cluster whose route says so, the start checks it with a real client: a producer through the proxy must
stop getting acknowledgments while the proxy is down, otherwise the start fails saying so.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.network.layout import BrokerRoute, ProxyLayout
from pytest_pulsar_ha.network.proxies import ProxyNetwork, client_proxy, http_proxy
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.ports import LOOPBACK, free_ports
from pytest_pulsar_ha.runtime.cluster import Cluster
from pytest_pulsar_ha.runtime.environment import GEO_TENANT, PulsarHaEnvironment
from pytest_pulsar_ha.runtime.external.backend import BACKEND, ExternalBackend, ExternalClusterNode, UnsupportedFault
from pytest_pulsar_ha.runtime.external.clusters import ExternalCluster, LoadedClusters
from pytest_pulsar_ha.settings.clusters import ClusterSpec

ROUTE_CHECK_SEND_TIMEOUT_MS = 3000
# after the proxy is back, how long the producer may take to reconnect: its reconnect backoff (0.1 s doubling) can
# put the next attempt beyond one send's timeout, so sends are retried until this deadline
ROUTE_CHECK_RECOVERY_S = 30.0


def send_until_acked(
    producer: Any,
    deadline: float,
    clock: Callable[[], float] = time.monotonic,
    payload: bytes = b"after the proxy is back",
) -> str | None:
    """Send until one message is acknowledged or ``deadline`` passed; None when one was, else what the sends met.
    With its proxy back, a producer reconnects on its own backoff (0.1 s, doubling), so one send may time out
    before the next attempt (stop 24's CI saw one do so)."""
    import pulsar

    attempts = 0
    while True:
        attempts += 1
        try:
            producer.send(payload)
            return None
        except pulsar.PulsarException as error:
            if clock() >= deadline:
                return f"{attempts} attempts, the last: {error}"


class ExternalClusterView(Cluster):
    """A :class:`Cluster` of the external backend: its proxied URLs keep the cluster's schemes (TLS passes through
    toxiproxy), and an outage that would cut replication links, which do not go through the harness, raises."""

    def __init__(self, node: ExternalClusterNode, network: ProxyNetwork, layout: ProxyLayout) -> None:
        super().__init__(node, network, layout)
        entry = node.entry
        route = layout.brokers(self.name)[0]
        self.entry = entry
        self.service_url = f"{entry.scheme}://{LOOPBACK}:{route.client_port}"
        self.admin_url = f"{entry.admin_scheme}://{LOOPBACK}:{route.http_port}"

    @contextlib.contextmanager
    def outage(self, *, replication: bool = True) -> Iterator[None]:
        if replication:
            raise UnsupportedFault(
                f"cannot cut {self.name}'s replication links: on the {BACKEND} backend they do not go through the "
                "harness's proxies (use outage(replication=False): clients only)"
            )
        with super().outage(replication=False):
            yield


class ExternalEnvironment(PulsarHaEnvironment):
    """A :class:`PulsarHaEnvironment` over the clusters of a clusters file (see the module's documentation)."""

    def __init__(
        self,
        specs: Sequence[ClusterSpec],
        loaded: LoadedClusters,
        *,
        toxiproxy_binary: Path,
        work_dir: Path,
        registry: PidRegistry,
        timeout: float = 30.0,
    ) -> None:
        self.external = ExternalBackend(loaded, timeout)
        super().__init__(
            specs,
            self.external,
            toxiproxy_binary=toxiproxy_binary,
            work_dir=work_dir,
            registry=registry,
        )
        self.loaded = loaded
        self.client_options = {}
        if loaded.model.listener_name is not None:
            self.client_options["listener_name"] = loaded.model.listener_name
        if loaded.model.tls_trust_certs is not None:
            self.client_options["tls_trust_certs_file_path"] = str(Path(loaded.model.tls_trust_certs).expanduser())
        self.route_checks: dict[str, str] = {}
        """cluster -> what the route check found (one line each)"""

    def entry(self, name: str) -> ExternalCluster:
        return self.loaded.model.cluster(name)

    def _create_clusters(self) -> None:
        entries = [self.entry(spec.name) for spec in self.specs]
        ports = iter(free_ports(2 * len(entries)))
        routes: dict[str, tuple[BrokerRoute, ...]] = {}
        for entry in entries:
            client_port = entry.proxy_port if entry.proxy_port is not None else next(ports)
            route = BrokerRoute(
                cluster=entry.name,
                index=0,
                broker_port=0,  # not ours: the proxies' upstreams are the cluster's own addresses
                web_port=0,
                client_proxy=client_proxy(entry.name),
                client_port=client_port,
                http_proxy=http_proxy(entry.name),
                http_port=next(ports),
                incoming={},
            )
            routes[entry.name] = (route,)
            self.toxiproxy.client.create_proxy(route.client_proxy, route.client_port, entry.service_address)
            self.toxiproxy.client.create_proxy(route.http_proxy, route.http_port, entry.admin_address)
        self.layout = ProxyLayout(routes)
        nodes = [self.external.create(spec, self.layout.listener_plans(spec.name)) for spec in self.specs]
        with ThreadPoolExecutor(max_workers=len(nodes)) as pool:
            errors = [exc for f in [pool.submit(node.start) for node in nodes] if (exc := f.exception()) is not None]
        if errors:
            raise errors[0]
        for node in nodes:
            self.clusters[node.spec.name] = ExternalClusterView(node, self.network, self.layout)

    def _wire_replication(self) -> None:
        """Register nothing (the operator did): check that every cluster knows the others, make sure the harness's
        tenant exists, then check the routes."""
        if self.loaded.model.geo_replication:
            for name, cluster in self.clusters.items():
                known = set(cluster.admin.get("clusters"))
                missing = [other for other in self.clusters if other not in known]
                if missing:
                    raise StartupError(
                        f"{name} ({BACKEND}) does not know {', '.join(missing)} (GET clusters: {sorted(known)}): the "
                        "clusters file says geo_replication: true, so register them in each other first (pulsar-admin "
                        "clusters create), or set geo_replication: false"
                    )
        self._ensure_tenant()
        for name in self.clusters:
            self.route_checks[name] = self._check_route(name)
            print(f"[pulsar-ha] {self.route_checks[name]}", file=sys.stderr, flush=True)

    def _ensure_tenant(self) -> None:
        """The harness's tenant on every cluster, allowed on every cluster it replicates to; a run before this one
        may have created it already (these clusters outlive the harness)."""
        for name, cluster in self.clusters.items():
            allowed = list(self.clusters) if self.loaded.model.geo_replication else [name]
            status, _, body = cluster.admin.get_raw(f"tenants/{GEO_TENANT}")
            if status == 404:
                cluster.admin.put(f"tenants/{GEO_TENANT}", {"adminRoles": [], "allowedClusters": allowed})
                continue
            info = json.loads(body)
            wanted = sorted(set(info.get("allowedClusters", [])) | set(allowed))
            if wanted != sorted(info.get("allowedClusters", [])):
                cluster.admin.post(f"tenants/{GEO_TENANT}", {**info, "allowedClusters": wanted})
        self._tenant_ready = True

    def _check_route(self, name: str) -> str:
        """With a real client through the cluster's client proxy: a send is acknowledged; with the proxy down, a
        send must not be (else some connection bypasses the proxy). Returns what was found; raises when the
        cluster's route claims its clients are behind the proxy and they are not."""
        import pulsar

        entry = self.entry(name)
        if not entry.proxied:
            return f"{name}: route direct (connection faults not applied)"
        namespace = self.create_geo_namespace(f"route-check-{uuid.uuid4().hex[:8]}", clusters=[name])
        topic = f"persistent://{namespace}/route"
        client = self.client(name, operation_timeout_seconds=10)
        try:
            producer = client.create_producer(topic, send_timeout_millis=ROUTE_CHECK_SEND_TIMEOUT_MS)
            producer.send(b"through the proxy")
            began = time.monotonic()
            with self.network.cut([client_proxy(name)]):
                try:
                    producer.send(b"with the proxy down")
                except pulsar.PulsarException:
                    refused = True
                else:
                    refused = False
            if not refused:
                raise StartupError(
                    f"{name} ({BACKEND}): the clusters file says route {entry.route}, but a producer created through "
                    f"the harness's proxy {self.cluster(name).service_url} was still acknowledged while that proxy "
                    "was down: lookups hand clients another address (the broker's own). "
                    + (
                        f"Make the brokers advertise listener {self.loaded.model.listener_name} at "
                        f"pulsar://{LOOPBACK}:{entry.proxy_port}, "
                        if entry.route == "listener"
                        else "Check that service_url is a Pulsar proxy, "
                    )
                    + "or declare route: direct (connection faults are then skipped)"
                )
            attempts = send_until_acked(producer, time.monotonic() + ROUTE_CHECK_RECOVERY_S)
            if attempts is not None:
                raise StartupError(
                    f"{name} ({BACKEND}): with the harness's proxy {self.cluster(name).service_url} enabled again, "
                    f"no send was acknowledged in {ROUTE_CHECK_RECOVERY_S:.0f}s ({attempts}): check that the "
                    "cluster is up and reachable through the proxy"
                )
            seconds = time.monotonic() - began
        finally:
            with contextlib.suppress(Exception):
                client.close()
            self._drop(name, topic, namespace)
        return f"{name}: route {entry.route} checked (sends stop while its proxy is down; {seconds:.1f}s)"

    def _drop(self, name: str, topic: str, namespace: str) -> None:
        admin = self.cluster(name).admin
        with contextlib.suppress(Exception):
            admin.delete(f"persistent/{namespace}/{topic.rsplit('/', 1)[-1]}?force=true")
        with contextlib.suppress(Exception):
            admin.delete(f"namespaces/{namespace}?force=true")

    def replication_cut(self, src: str, dst: str) -> Any:
        raise UnsupportedFault(
            f"cannot cut replication from {src} to {dst}: on the {BACKEND} backend the clusters replicate as the "
            "operator registered them, not through the harness's proxies"
        )

    def heal(self) -> None:
        """Undo the faults on the proxies (there are no processes to resume or start)."""
        self.network.heal()


def build_external_environment(
    specs: Sequence[ClusterSpec],
    loaded: LoadedClusters,
    *,
    toxiproxy_binary: Path,
    work_dir: Path,
    registry: PidRegistry,
) -> ExternalEnvironment:
    return ExternalEnvironment(specs, loaded, toxiproxy_binary=toxiproxy_binary, work_dir=work_dir, registry=registry)
