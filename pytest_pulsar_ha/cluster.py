"""A cluster as tests see it: client-facing (proxied) addresses and the faults that can hit it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .admin import AdminClient
from .backend import ClusterNode
from .network import ProxyNetwork, client_proxy, http_proxy, link_proxy
from .ports import LOOPBACK


class Cluster:
    """One Pulsar cluster of an environment.

    ``service_url`` and ``admin_url`` go through this cluster's toxiproxy proxies; ``admin`` talks to the
    broker directly (the harness's own path, unaffected by faults).
    """

    def __init__(
        self,
        node: ClusterNode,
        network: ProxyNetwork,
        client_port: int,
        http_port: int,
        peers: Callable[[], list[str]],
    ) -> None:
        self.node = node
        self.name = node.spec.name
        self._network = network
        self._peers = peers
        self.service_url = f"pulsar://{LOOPBACK}:{client_port}"
        self.admin_url = f"http://{LOOPBACK}:{http_port}"
        self.token = node.token
        self.admin = AdminClient(node.web_url, token=node.token)

    def __repr__(self) -> str:
        return f"<Cluster {self.name} service_url={self.service_url} admin_url={self.admin_url}>"

    def authentication(self) -> Any:
        """``pulsar.AuthenticationToken`` with this cluster's token, or None when it runs without auth."""
        if self.token is None:
            return None
        import pulsar

        return pulsar.AuthenticationToken(self.token)

    @property
    def direct_service_url(self) -> str:
        return self.node.broker_url

    @property
    def direct_admin_url(self) -> str:
        return self.node.web_url

    def _client_proxies(self) -> list[str]:
        return [client_proxy(self.name), http_proxy(self.name)]

    def _link_proxies(self) -> list[str]:
        peers = [p for p in self._peers() if p != self.name]
        return [link_proxy(self.name, p) for p in peers] + [link_proxy(p, self.name) for p in peers]

    @contextmanager
    def outage(self, *, replication: bool = True) -> Iterator[None]:
        """The cluster is unreachable: new connections are refused, open ones closed.

        With ``replication`` (the default) its replication links both ways are cut too, as in a real outage;
        ``replication=False`` cuts clients only.
        """
        proxies = self._client_proxies() + (self._link_proxies() if replication else [])
        with self._network.cut(proxies):
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

    def kill(self) -> None:
        """Crash the cluster (SIGKILL to every process); data is kept for :meth:`start`."""
        self.node.kill()

    def start(self) -> None:
        """Start a killed or stopped cluster again on the same ports and data; returns once it is ready."""
        self.node.start()

    def pause(self) -> None:
        """Freeze every process of the cluster (SIGSTOP): connections stay open, nothing answers."""
        self.node.pause()

    def resume(self) -> None:
        self.node.resume()

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.pause()
        try:
            yield
        finally:
            self.resume()

    @contextmanager
    def killed(self) -> Iterator[None]:
        self.kill()
        try:
            yield
        finally:
            self.start()
