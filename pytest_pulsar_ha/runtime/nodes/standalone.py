"""A 1-broker cluster as one ``bin/pulsar standalone`` process (local, or in a container), and the choice between it
and ZooKeeper + bookie + brokers (:func:`create_node`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_pulsar_ha.errors import ConfigurationError, StartupError
from pytest_pulsar_ha.network.listeners import INTERNAL_LISTENER, ListenerPlan
from pytest_pulsar_ha.process.control import Controlled
from pytest_pulsar_ha.process.ports import LOOPBACK
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.process.readiness import AllOf, HttpWait, WaitStrategy, json_contains
from pytest_pulsar_ha.runtime.clock import ClusterClock
from pytest_pulsar_ha.runtime.jvm_pauses import pause_log_option
from pytest_pulsar_ha.runtime.nodes.broker_config import write_config
from pytest_pulsar_ha.runtime.nodes.common import (
    ADMIN_ROLE,
    DEFAULT_DIRECT_MEMORY,
    DEFAULT_HEAP,
    TOKEN_PLUGIN,
    EmbeddedOptions,
    new_cluster_key,
    token_settings,
)
from pytest_pulsar_ha.runtime.nodes.ledger_ids import seed_ledger_ids
from pytest_pulsar_ha.runtime.nodes.multi_broker import MultiBrokerNode
from pytest_pulsar_ha.runtime.nodes.multi_broker_config import broker_id
from pytest_pulsar_ha.runtime.nodes.registration_loop import RegistrationLoop, RegistrationLoopWatch, log_size
from pytest_pulsar_ha.settings.clusters import ClusterSpec

__all__ = [
    "ADMIN_ROLE",
    "DEFAULT_DIRECT_MEMORY",
    "DEFAULT_HEAP",
    "TOKEN_PLUGIN",
    "EmbeddedOptions",
    "StandaloneNode",
    "standalone_settings",
    "token_settings",
]


def standalone_settings(spec: ClusterSpec, plan: ListenerPlan, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Broker settings of one embedded cluster; the spec's own ``broker_settings`` win."""
    settings = {
        "clusterName": spec.name,
        "bindAddress": LOOPBACK,
        "advertisedAddress": LOOPBACK,
        "brokerServicePort": str(plan.broker_port),
        "webServicePort": str(plan.web_port),
        "advertisedListeners": plan.advertised_listeners(LOOPBACK),
        "internalListenerName": INTERNAL_LISTENER,
        "enableReplicatedSubscriptions": "true",
        "functionsWorkerEnabled": "false",
        "managedLedgerCacheSizeMB": "64",
        # Topics of a test must not vanish between a fault and the check that reads them.
        "brokerDeleteInactiveTopicsEnabled": "false",
    }
    settings.update(extra or {})
    settings.update(spec.broker_settings)
    return settings


def config_store_url(cluster_dir: Path) -> str:
    """A configuration store of the standalone's own (a second RocksDB instance beside its metadata store):
    PIP-136's configuration synchronizer attaches only to a configuration store separate from the metadata
    store (verified on 4.0.8: namespace policies written on one standalone appear on the other in ~0.5 s)."""
    return f"rocksdb://{cluster_dir / 'data' / 'config-store'}"


class StandaloneNode(Controlled):
    """A cluster as one ``pulsar standalone`` process (broker, bookie, RocksDB metadata) with its own data dir."""

    process: ManagedProcess

    def __init__(
        self, spec: ClusterSpec, plan: ListenerPlan, options: EmbeddedOptions, ledger_id_high_bits: int | None = None
    ) -> None:
        self.spec = spec
        self.ledger_id_high_bits = ledger_id_high_bits
        """the high 32 bits of every ledger id this standalone hands out (None: Pulsar's own numbering)"""
        self.plan = plan
        self.options = options
        self.dir = options.work_dir / spec.name
        self.clock = ClusterClock(self.dir)
        dist = options.distribution
        conf = self.dir / "conf" / "standalone.conf"
        self.token: str | None = None
        self.starts = 0
        self.restarts_after_lock_loop = 0
        """graceful restarts the backend made because Pulsar's registration lock looped after a kill"""
        extra: dict[str, str] = {}
        if spec.auth == "token":
            self.token, extra = new_cluster_key(self.dir / "conf")
        if spec.metadata_sync is not None:
            extra["configurationMetadataStoreUrl"] = config_store_url(self.dir)
        write_config(dist.home / "conf" / "standalone.conf", conf, standalone_settings(spec, plan, extra))
        self.process = options.process_factory(
            f"pulsar {spec.name}",
            [
                str(dist.launcher),
                "standalone",
                "--no-functions-worker",
                "--no-stream-storage",
                "--metadata-dir",
                str(self.dir / "data" / "metadata"),
                "--bookkeeper-dir",
                str(self.dir / "data" / "bookkeeper"),
            ],
            cwd=self.dir,
            log_path=self.dir / "logs" / "stdout.log",
            registry=options.registry,
            env={
                "JAVA_HOME": str(dist.java.parent.parent),
                "PULSAR_STANDALONE_CONF": str(conf),
                "PULSAR_LOG_DIR": str(self.dir / "logs"),
                "PULSAR_MEM": (f"-Xms128m -Xmx{options.heap} -XX:MaxDirectMemorySize={options.direct_memory}"),
                "PULSAR_GC": "-XX:+UseG1GC -XX:MaxGCPauseMillis=10",
                "PULSAR_EXTRA_OPTS": pause_log_option(self.dir / "logs"),
                **self.clock.env(),
            },
        )

    @property
    def broker_url(self) -> str:
        return f"pulsar://{LOOPBACK}:{self.plan.broker_port}"

    @property
    def web_url(self) -> str:
        return f"http://{LOOPBACK}:{self.plan.web_port}"

    @property
    def name(self) -> str:
        return self.process.name

    @property
    def id(self) -> str:
        """The load manager's id of the standalone's broker."""
        return broker_id(self.plan)

    @property
    def brokers(self) -> Sequence[StandaloneNode]:
        """A standalone is its own (only) broker: killing broker 0 kills the standalone."""
        return [self]

    @property
    def zookeeper(self) -> None:
        return None

    @property
    def bookie(self) -> None:
        return None

    def readiness(self, loop_watch_from: int | None = None) -> AllOf:
        """The checks of a ready standalone; after a restart (``loop_watch_from``: where the new process's log
        begins) the first one ends the wait as soon as Pulsar's registration lock loops."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        strategies: list[WaitStrategy] = [
            HttpWait(url=f"{self.web_url}/admin/v2/clusters", accept=json_contains(self.spec.name), headers=headers),
            HttpWait(url=f"{self.web_url}/admin/v2/brokers/health", headers=headers),
        ]
        if loop_watch_from is not None:
            strategies.insert(0, RegistrationLoopWatch(log_path=self.process.log_path, offset=loop_watch_from))
        return AllOf(
            timeout=self.options.startup_timeout,
            poll_interval=0.5,
            hint=(
                "look for the first ERROR in the log above; a port clash or too little memory are common "
                f"causes (heap {self.options.heap}; raise it with --pulsar-ha-heap)"
            ),
            strategies=strategies,
        )

    def _start_ready(self) -> None:
        """Start it and wait until it is ready. A restart that falls into Pulsar's bookie-registration lock loop
        (:mod:`pytest_pulsar_ha.runtime.nodes.registration_loop`) is stopped gracefully and started once more."""
        restart = self.starts > 0
        try:
            self._start_once(restart)
        except RegistrationLoop as exc:
            note = f"{self.spec.name}: the restarted standalone loops: {exc}; stopping it gracefully, starting again"
            print(f"[pulsar-ha] {note}", file=sys.stderr, flush=True)
            self.process.note(note)
            self.process.stop()
            self.restarts_after_lock_loop += 1
            try:
                self._start_once(True)
            except RegistrationLoop as again:
                self.process.stop()
                raise StartupError(
                    f"{self.spec.name}: still looping after a graceful restart: {again}; log: {self.process.log_path}"
                ) from None

    def _start_once(self, watch_loop: bool) -> None:
        metadata = self.dir / "data" / "metadata"
        if self.ledger_id_high_bits is not None and not metadata.exists():  # before the first start only
            dist = self.options.distribution
            seed_ledger_ids(dist.java, dist.home, metadata, self.ledger_id_high_bits, self.dir / "logs" / "seed.log")
        offset = log_size(self.process.log_path)
        self.starts += 1
        self.process.start()
        try:
            self.readiness(offset if watch_loop else None).wait(self.process)
        except RegistrationLoop:
            raise  # the caller stops it gracefully: a graceful stop deletes the registration
        except BaseException:
            self.process.stop(grace_seconds=2)
            raise

    def stop(self) -> None:
        self.process.stop()


def create_node(
    spec: ClusterSpec, plans: Sequence[ListenerPlan], options: EmbeddedOptions, ledger_id_high_bits: int | None = None
) -> StandaloneNode | MultiBrokerNode:
    """A standalone for a 1-broker cluster, ZooKeeper + bookie + brokers otherwise; their processes are run by
    ``options.process_factory`` (local processes, or containers for the docker backend). A standalone given
    ``ledger_id_high_bits`` numbers its ledgers apart from the other clusters' (runtime/nodes/ledger_ids.py)."""
    if len(plans) != spec.brokers:
        raise ConfigurationError(
            f"cluster {spec.name}: {spec.brokers} brokers need {spec.brokers} listener plans, got {len(plans)}"
        )
    if spec.brokers == 1:
        return StandaloneNode(spec, plans[0], options, ledger_id_high_bits)
    return MultiBrokerNode(spec, plans, options)
