"""The embedded backend: each cluster is a local ``bin/pulsar standalone`` process on loopback ports."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .backend import INTERNAL_LISTENER, ListenerPlan
from .broker_config import write_config
from .errors import ConfigurationError
from .pid_registry import PidRegistry
from .ports import LOOPBACK
from .processes import ManagedProcess
from .provisioning import PulsarDistribution
from .readiness import AllOf, HttpWait, json_contains
from .tokens import create_token, new_secret_key
from .topology import ClusterSpec

# Sized so that three clusters and a local Spark job fit in 24 GiB on 2 cores.
DEFAULT_HEAP = "512m"
DEFAULT_DIRECT_MEMORY = "512m"


@dataclass(frozen=True)
class EmbeddedOptions:
    distribution: PulsarDistribution
    work_dir: Path
    registry: PidRegistry
    heap: str = DEFAULT_HEAP
    direct_memory: str = DEFAULT_DIRECT_MEMORY
    startup_timeout: float = 180.0


ADMIN_ROLE = "pulsar-ha-admin"
TOKEN_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationToken"


def token_settings(secret_key_file: Path, admin_token: str) -> dict[str, str]:
    """Token authentication with this cluster's own key; the broker's internal client uses the admin token."""
    return {
        "authenticationEnabled": "true",
        "authenticationProviders": "org.apache.pulsar.broker.authentication.AuthenticationProviderToken",
        "tokenSecretKey": f"file://{secret_key_file}",
        "superUserRoles": ADMIN_ROLE,
        "brokerClientAuthenticationPlugin": TOKEN_PLUGIN,
        "brokerClientAuthenticationParameters": f"token:{admin_token}",
    }


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


class StandaloneNode:
    """A cluster as one ``pulsar standalone`` process (broker, bookie, RocksDB metadata) with its own data dir."""

    def __init__(self, spec: ClusterSpec, plan: ListenerPlan, options: EmbeddedOptions) -> None:
        self.spec = spec
        self.plan = plan
        self.options = options
        self.dir = options.work_dir / spec.name
        dist = options.distribution
        conf = self.dir / "conf" / "standalone.conf"
        self.token: str | None = None
        extra: dict[str, str] = {}
        if spec.auth == "token":
            key = new_secret_key()
            key_file = self.dir / "conf" / "token-secret.key"
            key_file.parent.mkdir(parents=True, exist_ok=True)
            key_file.write_bytes(key)
            key_file.chmod(0o600)
            self.token = create_token(key, ADMIN_ROLE)
            extra = token_settings(key_file, self.token)
        write_config(dist.home / "conf" / "standalone.conf", conf, standalone_settings(spec, plan, extra))
        self.process = ManagedProcess(
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
            },
        )

    @property
    def broker_url(self) -> str:
        return f"pulsar://{LOOPBACK}:{self.plan.broker_port}"

    @property
    def web_url(self) -> str:
        return f"http://{LOOPBACK}:{self.plan.web_port}"

    def readiness(self) -> AllOf:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return AllOf(
            timeout=self.options.startup_timeout,
            poll_interval=0.5,
            hint=(
                "look for the first ERROR in the log above; a port clash or too little memory are common "
                f"causes (heap {self.options.heap}; raise it with --pulsar-ha-heap)"
            ),
            strategies=[
                HttpWait(
                    url=f"{self.web_url}/admin/v2/clusters", accept=json_contains(self.spec.name), headers=headers
                ),
                HttpWait(url=f"{self.web_url}/admin/v2/brokers/health", headers=headers),
            ],
        )

    def start(self) -> None:
        self.process.start()
        try:
            self.readiness().wait(self.process)
        except BaseException:
            self.process.stop(grace_seconds=2)
            raise

    def stop(self) -> None:
        self.process.stop()

    def kill(self) -> None:
        self.process.kill()

    def pause(self) -> None:
        self.process.pause()

    def resume(self) -> None:
        self.process.resume()

    def is_running(self) -> bool:
        return self.process.is_running()

    def is_paused(self) -> bool:
        return self.process.paused

    def log_tail(self, lines: int = 40) -> str:
        return self.process.log_tail(lines)


class EmbeddedBackend:
    """Local ``pulsar standalone`` processes; the default backend."""

    name = "embedded"

    def __init__(self, options: EmbeddedOptions) -> None:
        self.options = options

    def describe(self) -> str:
        dist = self.options.distribution
        return f"embedded (local standalone processes, Pulsar {dist.version} at {dist.home}, heap {self.options.heap})"

    def create(self, spec: ClusterSpec, plan: ListenerPlan) -> StandaloneNode:
        if spec.brokers != 1:
            raise ConfigurationError(
                f"cluster {spec.name}: the embedded backend runs one standalone broker per cluster; "
                f"{spec.brokers} brokers need a multi-broker backend"
            )
        return StandaloneNode(spec, plan, self.options)
