"""The multi-cluster environment: toxiproxy, N clusters behind it, geo-replication wired through it."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_pulsar_ha.network.layout import ProxyLayout, multi_host_url
from pytest_pulsar_ha.network.listeners import replication_listener
from pytest_pulsar_ha.network.proxies import ProxyNetwork
from pytest_pulsar_ha.network.toxiproxy import ToxiproxyClient, ToxiproxyServer
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.ports import free_ports
from pytest_pulsar_ha.runtime.backend_protocol import Backend, ClusterNode
from pytest_pulsar_ha.runtime.cluster import Cluster
from pytest_pulsar_ha.settings.clusters import ClusterSpec, ordered_pairs

if TYPE_CHECKING:
    import pulsar

    from pytest_pulsar_ha.pips.metadata_sync.service import SynchronizerService

GEO_TENANT = "pulsar-ha"
RETENTION = {"retentionTimeInMinutes": 120, "retentionSizeInMB": 512}
"""Every namespace of a workload keeps consumed messages for the run: a fully consumed ledger is otherwise
deleted (at the latest when a restarted broker loads the topic again), and the run's attribution, which reads a
message's entry after the run where its ledger id does not name the cluster, could not tell who delivered it
(runtime/nodes/ledger_ids.py has the other half)."""


KEEP_WORK_DIR_ENV = "PULSAR_HA_KEEP_WORK_DIR"
"""Set (to anything) to keep an environment's own temporary work directory after it closes."""


class PulsarHaEnvironment:
    """Start with ``with PulsarHaEnvironment(...) as env:`` (or :meth:`start` / :meth:`close`).

    ``clusters`` maps name to :class:`Cluster` in topology order. Every client must add
    ``client_options`` to its ``pulsar.Client(...)`` arguments so that brokers hand it proxied addresses.
    """

    def __init__(
        self,
        specs: Sequence[ClusterSpec],
        backend: Backend,
        *,
        toxiproxy_binary: Path,
        work_dir: Path,
        registry: PidRegistry,
    ) -> None:
        self.toxiproxy = ToxiproxyServer(toxiproxy_binary, work_dir, registry)
        self._fields(specs, backend, work_dir, registry, self.toxiproxy.client)

    @classmethod
    def adopted(
        cls,
        specs: Sequence[ClusterSpec],
        backend: Backend,
        *,
        toxiproxy: ToxiproxyClient,
        layout: ProxyLayout,
        nodes: Mapping[str, ClusterNode],
        work_dir: Path,
        registry: PidRegistry,
    ) -> PulsarHaEnvironment:
        """The running environment of another process (a warm environment's keeper), as its clusters' ``nodes``
        and its toxiproxy: nothing is started, and :meth:`close` stops nothing but what :meth:`on_close` adds."""
        env = cls.__new__(cls)
        env._fields(specs, backend, work_dir, registry, toxiproxy)
        env.layout = layout
        for spec in env.specs:
            env.clusters[spec.name] = Cluster(nodes[spec.name], env.network, layout)
        env._tenant_ready = all(c.admin.get_raw(f"tenants/{GEO_TENANT}")[0] == 200 for c in env.clusters.values())
        return env

    def on_close(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` when the environment closes (before what was registered earlier)."""
        self._stack.callback(callback)

    def _fields(
        self,
        specs: Sequence[ClusterSpec],
        backend: Backend,
        work_dir: Path,
        registry: PidRegistry,
        toxiproxy: ToxiproxyClient,
    ) -> None:
        self.specs = list(specs)
        self.backend = backend
        self.work_dir = work_dir
        self.registry = registry
        self.network = ProxyNetwork(toxiproxy)
        self.clusters: dict[str, Cluster] = {}
        self.client_options: dict[str, Any] = {"listener_name": "external"}
        self.startup_seconds: float | None = None
        self.owns_work_dir = False
        """the work directory is this environment's own temporary one (see :meth:`close`)"""
        self._stack = contextlib.ExitStack()
        self._tenant_ready = False
        self._broker_versions: dict[str, str] | None = None
        self.metadata_syncs: dict[str, SynchronizerService] = {}
        """the reference synchronizers running beside clusters with ``metadata_sync="reference"``"""

    # -- lifecycle ---------------------------------------------------------------------------------------

    def __enter__(self) -> PulsarHaEnvironment:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        began = time.monotonic()
        self._stack.callback(atexit.unregister, self.close)
        atexit.register(self.close)
        try:
            self.toxiproxy.start()
            self._stack.callback(self.toxiproxy.stop)
            self._create_clusters()
            self._wire_replication()
            self._start_metadata_sync()
        except BaseException:
            self.close()
            raise
        self.startup_seconds = time.monotonic() - began

    def close(self) -> None:
        """Stop every process this environment started (idempotent); then remove the work directory when the
        environment owns it (:attr:`owns_work_dir`), it started well and ``$PULSAR_HA_KEEP_WORK_DIR`` is unset."""
        self._stack.close()
        if self.owns_work_dir and self.startup_seconds is not None and not os.environ.get(KEEP_WORK_DIR_ENV):
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def _create_clusters(self) -> None:
        layout = ProxyLayout.plan(self.specs, iter(free_ports(ProxyLayout.port_count(self.specs))))
        self.layout = layout
        for name, port, upstream in layout.proxy_specs():
            self.toxiproxy.client.create_proxy(name, port, upstream)

        nodes = [self.backend.create(spec, layout.listener_plans(spec.name)) for spec in self.specs]
        for node in nodes:
            self._stack.callback(node.stop)
        with ThreadPoolExecutor(max_workers=len(nodes)) as pool:
            results = [pool.submit(node.start) for node in nodes]
            errors = [exc for future in results if (exc := future.exception()) is not None]
        if errors:
            raise errors[0]
        for node in nodes:
            self.clusters[node.spec.name] = Cluster(node, self.network, layout)

    def _wire_replication(self) -> None:
        """Register every cluster in every other one; each direction points at its own link proxies.

        A multi-broker cluster is registered with a multi-host URL over its brokers' link proxies from that
        source; each broker advertises its own link proxy, so lookups land on the owner's proxy.
        """
        for src, dst in ordered_pairs(self.names):
            registration = {
                "serviceUrl": multi_host_url("http", [r.web_port for r in self.layout.brokers(dst)]),
                "brokerServiceUrl": self.layout.link_service_url(src, dst),
                "listenerName": replication_listener(src),
            }
            remote_token = self.clusters[dst].token
            if remote_token is not None:  # the replicator of src authenticates to dst with dst's token
                registration["authenticationPlugin"] = "org.apache.pulsar.client.impl.auth.AuthenticationToken"
                registration["authenticationParameters"] = f"token:{remote_token}"
            self.clusters[src].admin.put(f"clusters/{dst}", registration)

    def _start_metadata_sync(self) -> None:
        """PIP-136 among the clusters that ask for it (``ClusterSpec.metadata_sync``), after the registrations:
        the event namespace first, then each cluster's synchronizer."""
        from pytest_pulsar_ha.pips.metadata_sync.bootstrap import enable_pulsar_sync, prepare_event_namespace

        members = [spec.name for spec in self.specs if spec.metadata_sync is not None]
        if not members:
            return
        prepare_event_namespace({n: c.admin for n, c in self.clusters.items()}, members)
        self._tenant_ready = True  # the shared tenant exists everywhere; creating it again would be synced
        for spec in self.specs:
            if spec.metadata_sync == "pulsar":
                enable_pulsar_sync(self.clusters[spec.name].admin)
            elif spec.metadata_sync == "reference":
                service = self._reference_sync(spec.name)
                self._stack.callback(service.stop)
                service.start()
                self.metadata_syncs[spec.name] = service

    def _reference_sync(self, name: str) -> SynchronizerService:
        """This project's synchronizer for cluster ``name``, beside it: straight to its broker, its state in the
        cluster's work directory."""
        import pulsar

        from pytest_pulsar_ha.admin.client import AdminClient
        from pytest_pulsar_ha.pips.metadata_sync.documents import ClusterDocuments
        from pytest_pulsar_ha.pips.metadata_sync.reference import ReferenceSynchronizer
        from pytest_pulsar_ha.pips.metadata_sync.service import SynchronizerService

        cluster = self.clusters[name]

        def build() -> ReferenceSynchronizer:
            options: dict[str, Any] = {"operation_timeout_seconds": 10}
            if cluster.token is not None:
                options["authentication"] = cluster.authentication()
            log = pulsar.FileLogger(pulsar.LoggerLevel.Warn, str(self.work_dir / "reference-sync.log"))
            client = pulsar.Client(cluster.direct_service_url, logger=log, **options)
            documents = ClusterDocuments(AdminClient(cluster.direct_admin_url, 10.0, cluster.token), [GEO_TENANT])
            state = self.work_dir / name / "reference-sync.json"
            clock = cluster.clock  # the synchronizer runs beside the cluster: on its clock
            if clock is None:
                return ReferenceSynchronizer(name, documents, client, state)
            return ReferenceSynchronizer(name, documents, client, state, clock_ms=clock.now_ms)

        return SynchronizerService(name, build)

    # -- use -------------------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return list(self.clusters)

    def broker_versions(self) -> dict[str, str]:
        """Each cluster's answer to ``GET /admin/v2/brokers/version``: the Pulsar that runs, as the brokers say
        (asked once; an answer that could not be had is not kept, so the next call asks again)."""
        if self._broker_versions is not None:
            return self._broker_versions
        answers: dict[str, str] = {}
        complete = True
        for name, cluster in self.clusters.items():
            try:
                status, _, body = cluster.admin.get_raw("brokers/version")
            except OSError as exc:
                answers[name], complete = f"unknown ({exc})", False
                continue
            answers[name] = body.decode(errors="replace").strip() if status == 200 else f"unknown (HTTP {status})"
            complete &= status == 200
        if complete:
            self._broker_versions = answers
        return answers

    def describe_pulsar(self) -> str:
        """The Pulsar these clusters run, for a verdict's facts: how the backend has it (an assembled runtime says
        so, with any substituted dependency), and what the brokers answer."""
        versions = self.broker_versions()
        answered = ", ".join(sorted(set(versions.values()))) if versions else "no cluster"
        runtime = getattr(self.backend, "pulsar_runtime", None)
        return f"{runtime}; brokers answer {answered}" if runtime else f"brokers answer {answered}"

    def cluster(self, name: str) -> Cluster:
        try:
            return self.clusters[name]
        except KeyError:
            raise KeyError(f"no cluster {name!r}; this environment has {', '.join(self.clusters)}") from None

    def client(self, cluster: str | Any, **options: Any) -> pulsar.Client:
        """A ``pulsar.Client`` with ``client_options`` applied, logging to ``clients.log`` in the work dir.

        ``cluster`` is a cluster name (its proxied service URL is used) or a ``pulsar.ServiceInfoProvider``
        (e.g. a failover provider built from :meth:`endpoint`).
        """
        import pulsar

        options.setdefault("logger", pulsar.FileLogger(pulsar.LoggerLevel.Info, str(self.work_dir / "clients.log")))
        if isinstance(cluster, str):
            target = self.cluster(cluster)
            if target.token is not None:
                options.setdefault("authentication", target.authentication())
            return pulsar.Client(target.service_url, **{**self.client_options, **options})
        return pulsar.Client(cluster, **{**self.client_options, **options})

    def create_geo_namespace(
        self,
        name: str | None = None,
        clusters: Sequence[str] | None = None,
        replication: Mapping[str, Sequence[str]] | None = None,
    ) -> str:
        """Create ``pulsar-ha/<name>`` on every cluster of ``clusters`` (default: all), replicated among them; or,
        with ``replication``, on each cluster it names with that cluster's own replication list."""
        members = list(clusters or self.clusters)
        if not self._tenant_ready:
            for cluster in self.clusters.values():
                cluster.admin.put(f"tenants/{GEO_TENANT}", {"adminRoles": [], "allowedClusters": list(self.clusters)})
            self._tenant_ready = True
        namespace = f"{GEO_TENANT}/{name or 'ns-' + uuid.uuid4().hex[:10]}"
        lists = replication or {member: members for member in members}
        synced = [m for m in lists if self.specs_by_name[m].metadata_sync is not None]
        for member, replicated in lists.items():
            if member in synced[1:]:
                continue  # created by the sync from the first synced cluster (below)
            policies = {"replication_clusters": list(replicated), "retention_policies": RETENTION}
            self.clusters[member].admin.put(f"namespaces/{namespace}", policies)
        for member in synced[1:]:
            self._wait_synced(member, f"namespaces/{namespace}")
        return namespace

    def _wait_synced(self, member: str, path: str, timeout_s: float = 30.0) -> None:
        """Wait until ``member`` has ``path`` from the metadata sync.

        With PIP-136 sync, metadata is created on one cluster only: a namespace created on two clusters before
        the sync carried it has a version of its own on each, and 4.0.8 then drops every later update of it
        from the other side (the event's expected version never matches: seen here, each cluster kept only its
        own writes)."""
        deadline = time.monotonic() + timeout_s
        while True:
            status, _, _ = self.clusters[member].admin.get_raw(path)
            if status == 200:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{member} did not get {path} from the metadata sync within {timeout_s:g}s")
            time.sleep(0.2)

    def seeded_ledger_ids(self) -> dict[int, str]:
        """The high 32 bits of each cluster's ledger ids, where its backend seeded them, to the cluster's name."""
        return {bits: name for name, c in self.clusters.items() if (bits := c.ledger_id_high_bits) is not None}

    @property
    def specs_by_name(self) -> dict[str, ClusterSpec]:
        return {spec.name: spec for spec in self.specs}

    @contextlib.contextmanager
    def replication_cut(self, src: str, dst: str) -> Iterator[None]:
        """Replication from ``src`` into ``dst`` stops (its link proxy is down); clients are unaffected."""
        self.cluster(src)
        self.cluster(dst)
        if src == dst:
            raise ValueError("replication_cut needs two different clusters")
        with self.network.cut(self.layout.link_proxies(src, dst)):
            yield

    def heal(self) -> None:
        """Undo every fault still in force: proxies enabled, toxics removed, and each cluster's capabilities healed
        (:meth:`~pytest_pulsar_ha.runtime.cluster.Cluster.heal`: clocks back on the host's time, every process
        resumed and started), the clusters side by side."""
        self.network.heal()
        clusters = list(self.clusters.values())
        if clusters:
            with ThreadPoolExecutor(max_workers=len(clusters)) as pool:
                list(pool.map(lambda c: c.heal(), clusters))
