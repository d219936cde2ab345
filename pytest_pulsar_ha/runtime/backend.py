"""The seam between the environment and whatever runs the brokers.

The environment decides the network plan (which proxied addresses each cluster must advertise) and asks a
backend for cluster nodes that follow it. The embedded backend runs local processes; a Docker or an
"existing clusters" backend implements the same two protocols.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_pulsar_ha.runtime.topology import ClusterSpec

INTERNAL_LISTENER = "internal"
CLIENT_LISTENER = "external"


def replication_listener(source: str) -> str:
    """The listener a cluster advertises to the replicator of ``source`` (one per incoming link)."""
    return "from_" + source.replace("-", "_")


@dataclass(frozen=True)
class ListenerPlan:
    """Ports a cluster must advertise: its own, the client proxy, and one proxy per incoming replication link."""

    broker_port: int
    web_port: int
    client_proxy_port: int
    replication_proxy_ports: Mapping[str, int]  # source cluster -> proxy port into this cluster

    def advertised_listeners(self, host: str) -> str:
        listeners = [
            f"{INTERNAL_LISTENER}:pulsar://{host}:{self.broker_port}",
            f"{CLIENT_LISTENER}:pulsar://{host}:{self.client_proxy_port}",
        ]
        listeners += [
            f"{replication_listener(src)}:pulsar://{host}:{port}" for src, port in self.replication_proxy_ports.items()
        ]
        return ",".join(listeners)


class ProcessControl(Protocol):
    """One process (or the single process of a standalone) that faults can hit."""

    @property
    def name(self) -> str: ...

    def start(self) -> None:
        """Start it again (same ports and data) and return once it is ready."""

    def kill(self) -> None:
        """SIGKILL its process group; data is kept."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def is_running(self) -> bool: ...

    def is_paused(self) -> bool: ...

    def log_tail(self, lines: int = 40) -> str: ...


class BrokerControl(ProcessControl, Protocol):
    """One broker of a cluster, with its direct (unproxied) addresses."""

    @property
    def id(self) -> str:
        """The load manager's broker id (``advertisedAddress:webServicePort``), as ``GET /admin/v2/brokers/{c}``."""

    @property
    def broker_url(self) -> str: ...

    @property
    def web_url(self) -> str: ...


class ClusterNode(Protocol):
    """A running (or stopped) cluster as a backend controls it; addresses are direct, not proxied."""

    spec: ClusterSpec
    token: str | None
    """A superuser token of this cluster when it runs with token authentication, else None."""

    @property
    def broker_url(self) -> str: ...

    @property
    def web_url(self) -> str: ...

    @property
    def brokers(self) -> Sequence[BrokerControl]:
        """The brokers in order (one for a standalone: the standalone process itself)."""

    @property
    def zookeeper(self) -> ProcessControl | None:
        """The metadata store process, or None where it runs inside the broker (standalone)."""

    @property
    def bookie(self) -> ProcessControl | None:
        """The bookie process, or None where it runs inside the broker (standalone)."""

    def start(self) -> None:
        """Start whatever is not running (or all of it, keeping data) and return once the cluster serves."""

    def stop(self) -> None:
        """Stop for good, releasing every process."""

    def kill(self) -> None:
        """Crash: every process killed at once, data kept."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def is_running(self) -> bool:
        """Every process of the cluster runs."""

    def is_paused(self) -> bool:
        """Some process of the cluster is paused."""

    def log_tail(self, lines: int = 40) -> str: ...


class Backend(Protocol):
    name: str

    def describe(self) -> str:
        """One line for the report header (what runs the brokers, which version)."""

    def create(self, spec: ClusterSpec, plans: Sequence[ListenerPlan]) -> ClusterNode:
        """A not-yet-started cluster whose broker ``i`` follows ``plans[i]`` (``spec.brokers`` plans)."""
