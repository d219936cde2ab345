"""A cluster as tests see it: client-facing (proxied) addresses and the faults that can hit it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_pulsar_ha.admin.failover import FailoverAdminClient
from pytest_pulsar_ha.network.layout import BrokerRoute, ProxyLayout
from pytest_pulsar_ha.network.proxies import ProxyNetwork
from pytest_pulsar_ha.process.control import Controlled, Controls
from pytest_pulsar_ha.runtime.backend_protocol import BrokerControl, ClusterNode, ProcessControl
from pytest_pulsar_ha.runtime.clock import ClusterClock, served_offset_s


class Heals(Protocol):
    """A capability of a cluster that a fault can move and that can undo it."""

    def heal(self) -> None: ...


@dataclass(frozen=True)
class Processes:
    """The capability of a cluster whose processes a fault can stop: healed by resuming what is paused and starting
    what is not running."""

    control: Controls

    def heal(self) -> None:
        if self.control.is_paused():
            self.control.resume()
        if not self.control.is_running():
            self.control.start()


class Process(Controlled):
    """A process of a multi-broker cluster other than a broker (``cluster.zookeeper``, ``cluster.bookie``)."""

    def __init__(self, control: ProcessControl) -> None:
        self.control = control
        self.name = control.name

    def __repr__(self) -> str:
        return f"<Process {self.name} running={self.is_running()}>"

    def processes(self) -> list[Controls]:
        return [self.control]


class Broker(Controlled):
    """One broker of a cluster: ``service_url`` and ``admin_url`` go through this broker's own proxies."""

    def __init__(self, control: BrokerControl, route: BrokerRoute, network: ProxyNetwork) -> None:
        self.control = control
        self.route = route
        self.index = route.index
        self._network = network

    def __repr__(self) -> str:
        return f"<Broker {self.route.cluster}/{self.index} id={self.id} service_url={self.service_url}>"

    @property
    def id(self) -> str:
        """The load manager's broker id, as ``GET /admin/v2/brokers/{cluster}`` lists it."""
        return self.control.id

    @property
    def service_url(self) -> str:
        return self.route.service_url

    @property
    def admin_url(self) -> str:
        return self.route.admin_url

    @property
    def direct_service_url(self) -> str:
        return self.control.broker_url

    @property
    def direct_admin_url(self) -> str:
        return self.control.web_url

    @contextmanager
    def outage(self) -> Iterator[None]:
        """This broker is unreachable from clients and from other clusters' replicators (its proxies are down).

        It keeps its metadata session, so the bundles it owns stay with it: clients of its topics wait. Use
        :meth:`kill` to make the load manager move its bundles to the other brokers.
        """
        with self._network.cut(self.route.proxies()):
            yield

    def processes(self) -> list[Controls]:
        return [self.control]


class Cluster(Controlled):
    """One Pulsar cluster of an environment.

    ``service_url`` and ``admin_url`` go through this cluster's toxiproxy proxies (``service_url`` lists every
    broker's client proxy; ``admin_url`` is broker 0's admin proxy); ``admin`` talks to the brokers directly
    (the harness's own path, unaffected by faults; it skips brokers that do not answer).
    """

    def __init__(self, node: ClusterNode, network: ProxyNetwork, layout: ProxyLayout) -> None:
        self.node = node
        self.name = node.spec.name
        self._network = network
        self._layout = layout
        self.service_url = layout.service_url(self.name)
        routes = layout.brokers(self.name)
        self.admin_url = routes[0].admin_url
        self.token = node.token
        self.brokers = [Broker(control, route, network) for control, route in zip(node.brokers, routes, strict=True)]
        self.admin = FailoverAdminClient([b.web_url for b in node.brokers], token=node.token)
        self.zookeeper = Process(node.zookeeper) if node.zookeeper is not None else None
        self.bookie = Process(node.bookie) if node.bookie is not None else None

    def __repr__(self) -> str:
        return f"<Cluster {self.name} service_url={self.service_url} admin_url={self.admin_url}>"

    def authentication(self) -> Any:
        """``pulsar.AuthenticationToken`` with this cluster's token, or None when it runs without auth."""
        if self.token is None:
            return None
        import pulsar

        return pulsar.AuthenticationToken(self.token)

    @property
    def ledger_id_high_bits(self) -> int | None:
        """The high 32 bits of every ledger id this cluster hands out, where its backend seeded them (the embedded
        standalone: :mod:`pytest_pulsar_ha.runtime.nodes.ledger_ids`); None where Pulsar numbers them."""
        bits = getattr(self.node, "ledger_id_high_bits", None)
        return bits if isinstance(bits, int) else None

    @property
    def clock(self) -> ClusterClock | None:
        """The cluster's wall clock, where its backend runs its processes on one a fault can move (embedded,
        docker: :mod:`pytest_pulsar_ha.runtime.clock`); None where it does not (external)."""
        clock = getattr(self.node, "clock", None)
        return clock if isinstance(clock, ClusterClock) else None

    @property
    def direct_service_url(self) -> str:
        return self.node.broker_url

    @property
    def direct_admin_url(self) -> str:
        return self.node.web_url

    def broker(self, broker_id: str) -> Broker:
        """The broker with this load-manager id (e.g. an owner read from a lookup)."""
        for broker in self.brokers:
            if broker.id == broker_id:
                return broker
        raise KeyError(f"cluster {self.name} has no broker {broker_id!r}; its brokers: {[b.id for b in self.brokers]}")

    def _client_proxies(self) -> list[str]:
        return self._layout.client_proxies(self.name) + self._layout.http_proxies(self.name)

    def _link_proxies(self) -> list[str]:
        return self._layout.links_of(self.name)

    @contextmanager
    def outage(self, *, replication: bool = True) -> Iterator[None]:
        """The cluster is unreachable: new connections are refused, open ones closed.

        With ``replication`` (the default) its replication links both ways are cut too, as in a real outage;
        ``replication=False`` cuts clients only.
        """
        proxies = self._client_proxies() + (self._link_proxies() if replication else [])  # every broker's
        with self._network.cut(proxies):
            yield

    @contextmanager
    def clients_cut(self) -> Iterator[None]:
        """Clients cannot reach the cluster (its client and admin proxies refuse); replication links stay."""
        with self._network.cut(self._client_proxies()):
            yield

    @contextmanager
    def latency(self, ms: int, jitter_ms: int = 0) -> Iterator[None]:
        """Every answer from the cluster to clients is delayed by ``ms`` (+- ``jitter_ms``)."""
        with self._network.toxic(
            self._client_proxies(), "latency", {"latency": ms, "jitter": jitter_ms}, ("downstream",)
        ):
            yield

    @contextmanager
    def hang(self, close_after_ms: int = 0) -> Iterator[None]:
        """A hung cluster: TCP connects succeed, nothing is answered (toxiproxy ``timeout`` toxic).

        With ``close_after_ms`` > 0 connections are closed after that time; with 0 they stay open and silent.
        """
        with self._network.toxic(
            self._client_proxies(), "timeout", {"timeout": close_after_ms}, ("upstream", "downstream")
        ):
            yield

    @contextmanager
    def bandwidth(self, kilobytes_per_second: int) -> Iterator[None]:
        """Answers to clients are throttled to ``kilobytes_per_second`` (toxiproxy ``bandwidth`` toxic)."""
        with self._network.toxic(self._client_proxies(), "bandwidth", {"rate": kilobytes_per_second}, ("downstream",)):
            yield

    @contextmanager
    def resetting(self) -> Iterator[None]:
        """Every client connection is reset (TCP RST) as soon as data flows (toxiproxy ``reset_peer`` toxic)."""
        with self._network.toxic(self._client_proxies(), "reset_peer", {"timeout": 0}, ("upstream",)):
            yield

    def processes(self) -> list[Controls]:
        """The node: the verbs act on every process of the cluster at once (SIGKILL or SIGSTOP to brokers, bookie
        and ZooKeeper; a start on the same ports and data returns once the cluster serves)."""
        return [self.node]

    def served_clock_offset_s(self, timeout: float = 5.0) -> float:
        """How far ahead of the host the cluster's wall clock runs as its broker's HTTP answers show it (their
        ``Date`` header, to the second): the evidence that its processes follow :attr:`clock`."""
        return served_offset_s(self.direct_admin_url, timeout)

    def capabilities(self) -> list[Heals]:
        """What a fault can move on this cluster, each able to undo it: its clock (where it has one), its
        processes."""
        clock = self.clock
        return [*([clock] if clock is not None else []), Processes(self)]

    def heal(self) -> None:
        """Undo every fault left on the cluster itself: each capability heals itself (the clock back on the host's
        time, every process resumed and started)."""
        for capability in self.capabilities():
            capability.heal()
