"""Which toxiproxy proxy carries which traffic, per broker, and the ports every broker must advertise.

A cluster of one broker (a standalone) keeps the proxy names of :mod:`pytest_pulsar_ha.network.proxies`:
``X-client``, ``X-http`` and ``repl-S-to-X``. A cluster of N brokers has those per broker, suffixed ``-b<i>``:
``X-client-b0``, ``X-http-b0``, ``repl-S-to-X-b0``. Broker ``i`` advertises its own client proxy as listener
``external`` and its own link proxy from S as ``from_S``, so a lookup through any proxy of the cluster answers
with the owning broker's proxy. The cluster's service URL is a multi-host URL over its client proxies.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_pulsar_ha.network.listeners import ListenerPlan
from pytest_pulsar_ha.network.proxies import client_proxy, http_proxy, link_proxy
from pytest_pulsar_ha.process.ports import LOOPBACK
from pytest_pulsar_ha.settings.clusters import ClusterSpec, ordered_pairs


def _suffix(index: int, brokers: int) -> str:
    return "" if brokers == 1 else f"-b{index}"


def multi_host_url(scheme: str, ports: Sequence[int]) -> str:
    """``pulsar://127.0.0.1:1,127.0.0.1:2`` (the form Pulsar clients and cluster registrations accept)."""
    return f"{scheme}://" + ",".join(f"{LOOPBACK}:{port}" for port in ports)


@dataclass(frozen=True)
class BrokerRoute:
    """One broker's own ports and the proxies in front of it."""

    cluster: str
    index: int
    broker_port: int
    web_port: int
    client_proxy: str
    client_port: int
    http_proxy: str
    http_port: int
    incoming: Mapping[str, tuple[str, int]]
    """source cluster -> (name, listen port) of the proxy its replicator uses to reach this broker"""

    def listener_plan(self) -> ListenerPlan:
        return ListenerPlan(
            broker_port=self.broker_port,
            web_port=self.web_port,
            client_proxy_port=self.client_port,
            replication_proxy_ports={src: port for src, (_, port) in self.incoming.items()},
        )

    @property
    def service_url(self) -> str:
        return f"pulsar://{LOOPBACK}:{self.client_port}"

    @property
    def admin_url(self) -> str:
        return f"http://{LOOPBACK}:{self.http_port}"

    def proxies(self) -> list[str]:
        """Every proxy in front of this broker: clients, admin and incoming replication."""
        return [self.client_proxy, self.http_proxy] + [name for name, _ in self.incoming.values()]


@dataclass(frozen=True)
class ProxyLayout:
    routes: Mapping[str, tuple[BrokerRoute, ...]]

    @staticmethod
    def port_count(specs: Sequence[ClusterSpec]) -> int:
        """Ports :meth:`plan` takes: per broker its own two, two proxies and one proxy per other cluster."""
        return sum(spec.brokers * (4 + len(specs) - 1) for spec in specs)

    @classmethod
    def plan(cls, specs: Sequence[ClusterSpec], ports: Iterator[int]) -> ProxyLayout:
        names = [spec.name for spec in specs]
        routes: dict[str, tuple[BrokerRoute, ...]] = {}
        for spec in specs:
            brokers = []
            for i in range(spec.brokers):
                suffix = _suffix(i, spec.brokers)
                incoming = {
                    src: (link_proxy(src, spec.name) + suffix, next(ports))
                    for (src, dst) in ordered_pairs(names)
                    if dst == spec.name
                }
                brokers.append(
                    BrokerRoute(
                        cluster=spec.name,
                        index=i,
                        broker_port=next(ports),
                        web_port=next(ports),
                        client_proxy=client_proxy(spec.name) + suffix,
                        client_port=next(ports),
                        http_proxy=http_proxy(spec.name) + suffix,
                        http_port=next(ports),
                        incoming=incoming,
                    )
                )
            routes[spec.name] = tuple(brokers)
        return cls(routes)

    def brokers(self, cluster: str) -> tuple[BrokerRoute, ...]:
        return self.routes[cluster]

    def to_json(self) -> dict[str, Any]:
        return {
            name: [{**asdict(r), "incoming": {src: list(via) for src, via in r.incoming.items()}} for r in routes]
            for name, routes in self.routes.items()
        }

    @classmethod
    def from_json(cls, data: Any) -> ProxyLayout:
        """The layout :meth:`to_json` wrote; ValueError for anything else."""
        try:
            return cls(
                {
                    str(name): tuple(
                        BrokerRoute(
                            str(r["cluster"]),
                            int(r["index"]),
                            int(r["broker_port"]),
                            int(r["web_port"]),
                            str(r["client_proxy"]),
                            int(r["client_port"]),
                            str(r["http_proxy"]),
                            int(r["http_port"]),
                            {str(src): (str(via[0]), int(via[1])) for src, via in dict(r["incoming"]).items()},
                        )
                        for r in routes
                    )
                    for name, routes in dict(data).items()
                }
            )
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ValueError(f"not a proxy layout ({type(exc).__name__}: {exc})") from None

    def listener_plans(self, cluster: str) -> list[ListenerPlan]:
        return [route.listener_plan() for route in self.routes[cluster]]

    def service_url(self, cluster: str) -> str:
        """The cluster's client URL: every broker's client proxy (one host for a standalone)."""
        return multi_host_url("pulsar", [r.client_port for r in self.routes[cluster]])

    def client_proxies(self, cluster: str) -> list[str]:
        return [r.client_proxy for r in self.routes[cluster]]

    def http_proxies(self, cluster: str) -> list[str]:
        return [r.http_proxy for r in self.routes[cluster]]

    def link_proxies(self, src: str, dst: str) -> list[str]:
        """The proxies the replicator of ``src`` uses to reach ``dst`` (one per broker of ``dst``)."""
        return [r.incoming[src][0] for r in self.routes[dst]]

    def link_service_url(self, src: str, dst: str) -> str:
        """What ``src`` registers as ``dst``'s ``brokerServiceUrl``: a multi-host URL over its link proxies."""
        return multi_host_url("pulsar", [r.incoming[src][1] for r in self.routes[dst]])

    def links_of(self, cluster: str) -> list[str]:
        """Every replication link proxy into and out of ``cluster``."""
        out: list[str] = []
        for other in self.routes:
            if other != cluster:
                out += self.link_proxies(cluster, other) + self.link_proxies(other, cluster)
        return out

    def proxy_specs(self) -> list[tuple[str, int, str]]:
        """(name, listen port, upstream) of every proxy to create."""
        specs = []
        for routes in self.routes.values():
            for r in routes:
                specs.append((r.client_proxy, r.client_port, f"{LOOPBACK}:{r.broker_port}"))
                specs.append((r.http_proxy, r.http_port, f"{LOOPBACK}:{r.web_port}"))
                specs += [(name, port, f"{LOOPBACK}:{r.broker_port}") for name, port in r.incoming.values()]
        return specs
