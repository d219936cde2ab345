"""Configuration of a multi-broker cluster's processes: ZooKeeper, one bookie, N brokers (pure functions).

Every path is absolute (``bin/pulsar`` changes into the distribution's directory before it starts Java). Memory
is sized for a 2-core / 24 GiB machine: ZooKeeper 128 MB heap, the bookie 256 MB heap + 256 MB direct, each
broker ``heap`` + 256 MB direct, G1 instead of the scripts' ZGC with ``AlwaysPreTouch``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_pulsar_ha.network.listeners import INTERNAL_LISTENER, ListenerPlan
from pytest_pulsar_ha.process.ports import LOOPBACK
from pytest_pulsar_ha.runtime.clock import ClusterClock
from pytest_pulsar_ha.runtime.jvm_pauses import pause_log_option
from pytest_pulsar_ha.settings.clusters import ClusterSpec

ZOOKEEPER_MEM = "-Xms32m -Xmx128m"
BOOKIE_MEM = "-Xms64m -Xmx256m -XX:MaxDirectMemorySize=256m"
BROKER_DIRECT_MEMORY = "256m"
TOOL_MEM = "-Xms32m -Xmx256m"
GC = "-XX:+UseG1GC -XX:MaxGCPauseMillis=10"

# A killed broker's bundles move once its metadata session expires (default 30 s); ZooKeeper's minimum with
# tickTime=2000 is 4 s. 10 s keeps failover quick without expiring sessions of brokers starved of CPU.
SESSION_TIMEOUT_MS = "10000"


@dataclass(frozen=True)
class ServicePorts:
    """Ports of a cluster's shared services (chosen free by the harness)."""

    zookeeper: int
    bookie: int
    bookie_http: int
    bookie_metrics: int


def metadata_url(cluster: str, zookeeper_port: int) -> str:
    """The cluster's metadata store: a chroot named after the cluster in its own ZooKeeper."""
    return f"zk:{LOOPBACK}:{zookeeper_port}/{cluster}"


def zookeeper_config(data_dir: Path, port: int) -> str:
    """A standalone ZooKeeper on loopback only, no admin server and no metrics port (8000 would clash)."""
    return "\n".join(
        [
            "tickTime=2000",
            "initLimit=10",
            "syncLimit=5",
            f"dataDir={data_dir}",
            f"clientPort={port}",
            f"clientPortAddress={LOOPBACK}",
            "admin.enableServer=false",
            "autopurge.snapRetainCount=3",
            "autopurge.purgeInterval=1",
            "forceSync=no",
            "maxClientCnxns=0",
            "",
        ]
    )


def bookie_settings(data_dir: Path, ports: ServicePorts, cluster: str) -> dict[str, str]:
    """One bookie on loopback whose ledgers live under the cluster's metadata chroot."""
    return {
        "bookiePort": str(ports.bookie),
        "advertisedAddress": LOOPBACK,
        "allowLoopback": "true",
        "journalDirectory": str(data_dir / "journal"),
        "ledgerDirectories": str(data_dir / "ledgers"),
        "metadataServiceUri": f"metadata-store:{metadata_url(cluster, ports.zookeeper)}",
        "zkServers": f"{LOOPBACK}:{ports.zookeeper}",
        "httpServerEnabled": "true",
        "httpServerHost": LOOPBACK,
        "httpServerPort": str(ports.bookie_http),
        "prometheusStatsHttpAddress": LOOPBACK,
        "prometheusStatsHttpPort": str(ports.bookie_metrics),
        "autoRecoveryDaemonEnabled": "false",
        "dbStorage_writeCacheMaxSizeMb": "32",
        "dbStorage_readAheadCacheMaxSizeMb": "32",
        "journalSyncData": "false",
        "diskUsageThreshold": "0.99",
        "diskUsageWarnThreshold": "0.98",
    }


def broker_id(plan: ListenerPlan) -> str:
    """The load manager's id of a broker: ``advertisedAddress:webServicePort``."""
    return f"{LOOPBACK}:{plan.web_port}"


def broker_settings(
    spec: ClusterSpec, plan: ListenerPlan, zookeeper_port: int, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Settings of one broker of a multi-broker cluster; the spec's own ``broker_settings`` win."""
    store = metadata_url(spec.name, zookeeper_port)
    settings = {
        "clusterName": spec.name,
        "metadataStoreUrl": store,
        "configurationMetadataStoreUrl": store,
        "bookkeeperMetadataServiceUri": "",
        "bindAddress": LOOPBACK,
        "advertisedAddress": LOOPBACK,
        "brokerServicePort": str(plan.broker_port),
        "webServicePort": str(plan.web_port),
        "advertisedListeners": plan.advertised_listeners(LOOPBACK),
        "internalListenerName": INTERNAL_LISTENER,
        "managedLedgerDefaultEnsembleSize": "1",
        "managedLedgerDefaultWriteQuorum": "1",
        "managedLedgerDefaultAckQuorum": "1",
        "functionsWorkerEnabled": "false",
        "enableReplicatedSubscriptions": "true",
        # Topics of a test must not vanish between a fault and the check that reads them.
        "brokerDeleteInactiveTopicsEnabled": "false",
        # One bundle per namespace: anti-affinity counts namespaces, several bundles skew them (PR #16563).
        "defaultNumberOfNamespaceBundles": "1",
        "loadBalancerOverrideBrokerNicSpeedGbps": "1",
        # Every broker of the cluster runs on the same host and reports the same host CPU. On a busy 2-core
        # machine that is above the default 85 %, and ModularLoadManagerImpl then re-selects the owner among
        # all brokers, ignoring anti-affinity (seen: the 4 namespaces of one group on one broker). Upstream's
        # AntiAffinityNamespaceGroupTest raises it to 400 for the same reason.
        "loadBalancerBrokerOverloadedThresholdPercentage": "400",
        "metadataStoreSessionTimeoutMillis": SESSION_TIMEOUT_MS,
        "managedLedgerCacheSizeMB": "32",
    }
    settings.update(extra or {})
    settings.update(spec.broker_settings)
    return settings


def java_env(java_home: Path, clock: ClusterClock, log_dir: Path, log_file: str) -> dict[str, str]:
    """Environment every process of a multi-broker cluster shares (Java, where its log goes, the cluster's
    clock)."""
    return {
        "JAVA_HOME": str(java_home),
        "PULSAR_LOG_DIR": str(log_dir),
        "PULSAR_LOG_FILE": log_file,
        "PULSAR_GC": GC,
        "BOOKIE_GC": GC,
        "PULSAR_EXTRA_OPTS": pause_log_option(log_dir),
        "BOOKIE_EXTRA_OPTS": pause_log_option(log_dir),
        **clock.env(),
    }
