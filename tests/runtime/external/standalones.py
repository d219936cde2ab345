"""Two Pulsar standalones started by hand, outside the harness (no backend, no environment): what an operator
runs before pointing the ``external`` backend at them.

Each advertises, besides its own address, the listener ``pulsar_ha`` at ``127.0.0.1:<proxy_port>`` (a port
where nothing listens until the harness's proxy does), and the two are registered in each other directly, so
geo-replication works without the harness.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_pulsar_ha.admin.client import AdminClient
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.ports import LOOPBACK, free_ports
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.process.readiness import AllOf, HttpWait, json_contains
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION, default_cache_dir, ensure_pulsar
from pytest_pulsar_ha.runtime.nodes.broker_config import write_config

LISTENER = "pulsar_ha"


@dataclass
class HandStarted:
    name: str
    broker_port: int
    web_port: int
    proxy_port: int
    process: ManagedProcess

    @property
    def service_url(self) -> str:
        return f"pulsar://{LOOPBACK}:{self.broker_port}"

    @property
    def admin_url(self) -> str:
        return f"http://{LOOPBACK}:{self.web_port}"


def _standalone(name: str, work_dir: Path, registry: PidRegistry) -> HandStarted:
    dist = ensure_pulsar(DEFAULT_PULSAR_VERSION, default_cache_dir(), lambda message: None)
    broker_port, web_port, proxy_port = free_ports(3)
    home = work_dir / name
    conf = home / "standalone.conf"
    write_config(
        dist.home / "conf" / "standalone.conf",
        conf,
        {
            "clusterName": name,
            "bindAddress": LOOPBACK,
            "advertisedAddress": LOOPBACK,
            "brokerServicePort": str(broker_port),
            "webServicePort": str(web_port),
            "advertisedListeners": (
                f"internal:pulsar://{LOOPBACK}:{broker_port},{LISTENER}:pulsar://{LOOPBACK}:{proxy_port}"
            ),
            "internalListenerName": "internal",
            "enableReplicatedSubscriptions": "true",
            "functionsWorkerEnabled": "false",
            "brokerDeleteInactiveTopicsEnabled": "false",
        },
    )
    process = ManagedProcess(
        f"hand-started {name}",
        [
            str(dist.launcher),
            "standalone",
            "--no-functions-worker",
            "--no-stream-storage",
            "--metadata-dir",
            str(home / "metadata"),
            "--bookkeeper-dir",
            str(home / "bookkeeper"),
        ],
        cwd=home,
        log_path=home / "stdout.log",
        registry=registry,
        env={
            "JAVA_HOME": str(dist.java.parent.parent),
            "PULSAR_STANDALONE_CONF": str(conf),
            "PULSAR_LOG_DIR": str(home / "logs"),
            "PULSAR_MEM": "-Xms128m -Xmx512m -XX:MaxDirectMemorySize=512m",
        },
    )
    return HandStarted(name, broker_port, web_port, proxy_port, process)


@contextlib.contextmanager
def hand_started_pair(work_dir: Path, registry: PidRegistry) -> Iterator[list[HandStarted]]:
    """cluster-a and cluster-b, ready and replicating to each other; stopped on exit."""
    clusters = [_standalone(name, work_dir, registry) for name in ("cluster-a", "cluster-b")]
    with contextlib.ExitStack() as stack:
        for cluster in clusters:
            stack.callback(cluster.process.stop)
            cluster.process.start()
        for cluster in clusters:
            AllOf(
                timeout=180,
                poll_interval=0.5,
                hint="a hand-started standalone did not come up",
                strategies=[
                    HttpWait(url=f"{cluster.admin_url}/admin/v2/clusters", accept=json_contains(cluster.name)),
                    HttpWait(url=f"{cluster.admin_url}/admin/v2/brokers/health"),
                ],
            ).wait(cluster.process)
        for cluster in clusters:  # what an operator does once: register each cluster in the other
            for other in clusters:
                if other is not cluster:
                    registration = {"serviceUrl": other.admin_url, "brokerServiceUrl": other.service_url}
                    AdminClient(cluster.admin_url).put(f"clusters/{other.name}", registration)
        yield clusters


def clusters_file(path: Path, clusters: list[HandStarted], route: dict[str, str] | None = None) -> Path:
    """A clusters file for the external backend over ``clusters`` (route ``listener`` unless ``route`` says)."""
    lines = [f"listener_name: {LISTENER}", "clusters:"]
    for cluster in clusters:
        kind = (route or {}).get(cluster.name, "listener")
        lines += [
            f"  - name: {cluster.name}",
            f"    service_url: {cluster.service_url}",
            f"    admin_url: {cluster.admin_url}",
            f"    route: {kind}",
        ]
        if kind == "listener":
            lines.append(f"    proxy_port: {cluster.proxy_port}")
    path.write_text("\n".join(lines) + "\n")
    return path
