"""What both kinds of embedded cluster share: options, and token authentication of a cluster's brokers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.processes import ManagedProcess
from pytest_pulsar_ha.provisioning import PulsarDistribution
from pytest_pulsar_ha.runtime.nodes.tokens import create_token, new_secret_key

# Sized so that three clusters and a local Spark job fit in 24 GiB on 2 cores.
DEFAULT_HEAP = "512m"
DEFAULT_DIRECT_MEMORY = "512m"

ADMIN_ROLE = "pulsar-ha-admin"
TOKEN_PLUGIN = "org.apache.pulsar.client.impl.auth.AuthenticationToken"


class ProcessFactory(Protocol):
    """What runs a cluster process: :class:`ManagedProcess` itself (a local process), or the docker backend's
    container runner, which takes the same arguments."""

    def __call__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        log_path: Path,
        registry: PidRegistry,
        env: Mapping[str, str] | None = None,
    ) -> ManagedProcess: ...


@dataclass(frozen=True)
class EmbeddedOptions:
    distribution: PulsarDistribution
    work_dir: Path
    registry: PidRegistry
    heap: str = DEFAULT_HEAP
    direct_memory: str = DEFAULT_DIRECT_MEMORY
    startup_timeout: float = 180.0
    process_factory: ProcessFactory = ManagedProcess


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


def new_cluster_key(conf_dir: Path) -> tuple[str, dict[str, str]]:
    """A fresh secret key written (mode 600) into ``conf_dir``; returns the admin token and broker settings."""
    key = new_secret_key()
    key_file = conf_dir / "token-secret.key"
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key_file.write_bytes(key)
    key_file.chmod(0o600)
    token = create_token(key, ADMIN_ROLE)
    return token, token_settings(key_file, token)
