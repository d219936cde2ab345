"""The listeners a cluster advertises: its own (internal) address, the clients' proxy, and one proxy per incoming
replication link, so that every client and replicator is handed an address that goes through toxiproxy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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
