"""A multi-broker cluster from the binary distribution: one ZooKeeper, one bookie and N brokers, each a process.

Each process has its own ports, conf file, data and log directory under ``<work dir>/<cluster>/<process>``, is
started in its own process group and recorded in the pid registry like a standalone. The cluster comes up in
order (ZooKeeper, metadata initialisation once, bookie, then the brokers one after the other: on 2 cores
parallel JVM starts only compete) and each step waits for its readiness strategy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.network.layout import multi_host_url
from pytest_pulsar_ha.network.listeners import ListenerPlan
from pytest_pulsar_ha.process.control import Controlled
from pytest_pulsar_ha.process.ports import LOOPBACK, free_ports
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.process.readiness import AllOf, HttpWait, WaitStrategy, ZooKeeperWait, json_contains
from pytest_pulsar_ha.runtime.clock import ClusterClock
from pytest_pulsar_ha.runtime.nodes.broker_config import write_config
from pytest_pulsar_ha.runtime.nodes.common import EmbeddedOptions, new_cluster_key
from pytest_pulsar_ha.runtime.nodes.multi_broker_config import (
    BOOKIE_MEM,
    BROKER_DIRECT_MEMORY,
    TOOL_MEM,
    ZOOKEEPER_MEM,
    ServicePorts,
    bookie_settings,
    broker_id,
    broker_settings,
    java_env,
    metadata_url,
    zookeeper_config,
)
from pytest_pulsar_ha.settings.clusters import ClusterSpec


class Service(Controlled):
    """One process of a multi-broker cluster and the strategy that tells when it is ready."""

    process: ManagedProcess

    @property
    def name(self) -> str:
        return self.process.name

    def readiness(self) -> WaitStrategy:  # pragma: no cover - abstract
        raise NotImplementedError

    def _start_ready(self) -> None:
        """Start the process and return once it is ready; a process that does not get ready is stopped."""
        self.process.start()
        try:
            self.readiness().wait(self.process)
        except BaseException:
            self.process.stop(grace_seconds=2)
            raise

    def stop(self, grace_seconds: float = 10.0) -> None:
        self.process.stop(grace_seconds)


class ZooKeeperService(Service):
    def __init__(self, cluster: str, port: int, options: EmbeddedOptions, clock: ClusterClock) -> None:
        self.port = port
        self.options = options
        base = options.work_dir / cluster / "zookeeper"
        conf = base / "conf" / "zookeeper.conf"
        conf.parent.mkdir(parents=True, exist_ok=True)
        conf.write_text(zookeeper_config(base / "data", port))
        dist = options.distribution
        self.process = options.process_factory(
            f"zookeeper {cluster}",
            [str(dist.launcher), "zookeeper"],
            cwd=base,
            log_path=base / "logs" / "stdout.log",
            registry=options.registry,
            env={
                **java_env(dist.java.parent.parent, clock, base / "logs", "zookeeper.log"),
                "PULSAR_ZK_CONF": str(conf),
                "PULSAR_MEM": ZOOKEEPER_MEM,
            },
        )

    def readiness(self) -> WaitStrategy:
        return ZooKeeperWait(
            host=LOOPBACK,
            port=self.port,
            timeout=self.options.startup_timeout,
            poll_interval=0.3,
            hint=f"ZooKeeper did not answer 'ruok' on port {self.port}; look for a port clash in the log above",
        )


class BookieService(Service):
    def __init__(self, cluster: str, ports: ServicePorts, options: EmbeddedOptions, clock: ClusterClock) -> None:
        self.ports = ports
        self.options = options
        base = options.work_dir / cluster / "bookie"
        conf = base / "conf" / "bookkeeper.conf"
        dist = options.distribution
        write_config(dist.home / "conf" / "bookkeeper.conf", conf, bookie_settings(base / "data", ports, cluster))
        self.process = options.process_factory(
            f"bookie {cluster}",
            [str(dist.launcher), "bookie"],
            cwd=base,
            log_path=base / "logs" / "stdout.log",
            registry=options.registry,
            env={
                **java_env(dist.java.parent.parent, clock, base / "logs", "bookkeeper.log"),
                "PULSAR_BOOKKEEPER_CONF": str(conf),
                "BOOKIE_MEM": BOOKIE_MEM,
            },
        )

    def readiness(self) -> WaitStrategy:
        return HttpWait(
            url=f"http://{LOOPBACK}:{self.ports.bookie_http}/api/v1/bookie/is_ready",
            timeout=self.options.startup_timeout,
            poll_interval=0.5,
            hint="the bookie did not become writable; it needs ZooKeeper and the cluster's metadata "
            "(initialize-cluster-metadata) under the chroot named in metadataServiceUri",
        )


class BrokerService(Service):
    def __init__(
        self,
        spec: ClusterSpec,
        index: int,
        plan: ListenerPlan,
        zookeeper_port: int,
        options: EmbeddedOptions,
        token: str | None,
        extra: dict[str, str],
        clock: ClusterClock,
    ) -> None:
        self.spec = spec
        self.index = index
        self.plan = plan
        self.options = options
        self.token = token
        base = options.work_dir / spec.name / f"broker-{index}"
        conf = base / "conf" / "broker.conf"
        dist = options.distribution
        write_config(dist.home / "conf" / "broker.conf", conf, broker_settings(spec, plan, zookeeper_port, extra))
        self.process = options.process_factory(
            f"broker {spec.name}/{index}",
            [str(dist.launcher), "broker"],
            cwd=base,
            log_path=base / "logs" / "stdout.log",
            registry=options.registry,
            env={
                **java_env(dist.java.parent.parent, clock, base / "logs", "broker.log"),
                "PULSAR_BROKER_CONF": str(conf),
                "PULSAR_MEM": f"-Xms128m -Xmx{options.heap} -XX:MaxDirectMemorySize={BROKER_DIRECT_MEMORY}",
            },
        )

    @property
    def id(self) -> str:
        return broker_id(self.plan)

    @property
    def broker_url(self) -> str:
        return f"pulsar://{LOOPBACK}:{self.plan.broker_port}"

    @property
    def web_url(self) -> str:
        return f"http://{LOOPBACK}:{self.plan.web_port}"

    def readiness(self) -> WaitStrategy:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return AllOf(
            timeout=self.options.startup_timeout,
            poll_interval=0.5,
            hint=(
                "look for the first ERROR in the log above; the broker needs ZooKeeper and a writable bookie "
                f"(heap {self.options.heap}; raise it with --pulsar-ha-heap)"
            ),
            strategies=[
                HttpWait(url=f"{self.web_url}/admin/v2/brokers/health", headers=headers),
                HttpWait(
                    url=f"{self.web_url}/admin/v2/brokers/{self.spec.name}",
                    accept=json_contains(self.id),
                    headers=headers,
                ),
            ],
        )


class MultiBrokerNode(Controlled):
    """A cluster of ``spec.brokers`` brokers sharing one ZooKeeper and one bookie: the verbs act on its
    :meth:`services` (kill and pause brokers first, resume ZooKeeper first)."""

    def __init__(self, spec: ClusterSpec, plans: Sequence[ListenerPlan], options: EmbeddedOptions) -> None:
        self.spec = spec
        self.options = options
        self.dir = options.work_dir / spec.name
        self.clock = ClusterClock(self.dir)
        zk, bk, bk_http, bk_metrics = free_ports(4)
        self.ports = ServicePorts(zookeeper=zk, bookie=bk, bookie_http=bk_http, bookie_metrics=bk_metrics)
        self.token: str | None = None
        extra: dict[str, str] = {}
        if spec.auth == "token":
            self.token, extra = new_cluster_key(self.dir / "conf")
        self._zookeeper = ZooKeeperService(spec.name, zk, options, self.clock)
        self._bookie = BookieService(spec.name, self.ports, options, self.clock)
        self._brokers = [
            BrokerService(spec, i, plan, zk, options, self.token, extra, self.clock) for i, plan in enumerate(plans)
        ]
        self._initialized = self.dir / "metadata-initialized"
        self.start_seconds: dict[str, float] = {}
        """Seconds each step of the last :meth:`start` took (process name -> seconds), for benchmarks."""

    # -- addresses -------------------------------------------------------------------------------------

    @property
    def broker_url(self) -> str:
        """Every broker's own address (multi-host): the harness's direct path, around the proxies."""
        return multi_host_url("pulsar", [b.plan.broker_port for b in self._brokers])

    @property
    def web_url(self) -> str:
        return self._brokers[0].web_url

    @property
    def web_urls(self) -> list[str]:
        return [b.web_url for b in self._brokers]

    @property
    def brokers(self) -> Sequence[BrokerService]:
        return list(self._brokers)

    @property
    def zookeeper(self) -> ZooKeeperService:
        return self._zookeeper

    @property
    def bookie(self) -> BookieService:
        return self._bookie

    def services(self) -> list[Service]:
        """In start order."""
        return [self._zookeeper, self._bookie, *self._brokers]

    def processes(self) -> list[Service]:
        return self.services()

    # -- lifecycle -------------------------------------------------------------------------------------

    def _initialize_metadata(self) -> None:
        dist = self.options.distribution
        store = metadata_url(self.spec.name, self.ports.zookeeper)
        logs = self.dir / "init"
        tool = self.options.process_factory(
            f"initialize-cluster-metadata {self.spec.name}",
            [
                str(dist.launcher),
                "initialize-cluster-metadata",
                "--cluster",
                self.spec.name,
                "--metadata-store",
                store,
                "--configuration-metadata-store",
                store,
                "--web-service-url",
                multi_host_url("http", [b.plan.web_port for b in self._brokers]),
                "--broker-service-url",
                self.broker_url,
            ],
            cwd=self.dir,
            log_path=logs / "stdout.log",
            registry=self.options.registry,
            env={**java_env(dist.java.parent.parent, self.clock, logs, "initialize.log"), "PULSAR_MEM": TOOL_MEM},
        )
        tool.run_to_completion(
            timeout=self.options.startup_timeout,
            hint=f"the cluster metadata could not be written into ZooKeeper at {store}",
        )
        self._initialized.write_text("ok\n")

    def _start_ready(self) -> None:
        """Start, in order, every process that is not running, each waited for; metadata is written once."""
        self.start_seconds = {}
        try:
            if not self._zookeeper.is_running():
                self._timed(self._zookeeper.name, self._zookeeper.start)
            if not self._initialized.exists():
                self._timed("initialize-cluster-metadata", self._initialize_metadata)
            for service in [self._bookie, *self._brokers]:
                if not service.is_running():
                    self._timed(service.name, service.start)
        except StartupError as exc:
            raise StartupError(f"cluster {self.spec.name} (work dir {self.dir}):\n{exc}") from None

    def _timed(self, step: str, action: Callable[[], None]) -> None:
        began = time.monotonic()
        action()
        self.start_seconds[step] = time.monotonic() - began

    def stop(self) -> None:
        """Brokers first (together: each unloads its bundles), then the bookie, then ZooKeeper."""
        for service in self.services():
            if service.is_paused():
                service.resume()
        with ThreadPoolExecutor(max_workers=len(self._brokers)) as pool:
            list(pool.map(lambda b: b.stop(grace_seconds=10), self._brokers))
        self._bookie.stop(grace_seconds=5)
        self._zookeeper.stop(grace_seconds=5)

    def describe_dirs(self) -> dict[str, Path]:
        """Where each process keeps its conf, data and logs."""
        return {s.name: s.process.cwd for s in self.services()}
