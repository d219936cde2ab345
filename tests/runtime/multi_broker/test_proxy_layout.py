"""Per-broker proxies and listeners of multi-broker clusters (pure planning, no process started)."""

from __future__ import annotations

import itertools

from pytest_pulsar_ha.network.layout import ProxyLayout
from pytest_pulsar_ha.network.proxies import client_proxy, http_proxy, link_proxy
from pytest_pulsar_ha.settings.clusters import ClusterSpec

SPECS = (ClusterSpec("cluster-a", brokers=2), ClusterSpec("cluster-b"), ClusterSpec("cluster-c", brokers=3))


def _layout() -> ProxyLayout:
    return ProxyLayout.plan(SPECS, itertools.count(20000))


def test_every_port_is_used_once_and_the_count_is_exact() -> None:
    layout = _layout()
    ports = []
    for routes in layout.routes.values():
        for r in routes:
            ports += [r.broker_port, r.web_port, r.client_port, r.http_port] + [p for _, p in r.incoming.values()]
    assert len(ports) == len(set(ports)) == ProxyLayout.port_count(SPECS)


def test_a_standalone_keeps_the_proxy_names_of_one_broker_clusters() -> None:
    layout = _layout()
    (b,) = layout.brokers("cluster-b")
    assert b.client_proxy == client_proxy("cluster-b") and b.http_proxy == http_proxy("cluster-b")
    assert layout.link_proxies("cluster-a", "cluster-b") == [link_proxy("cluster-a", "cluster-b")]
    assert layout.service_url("cluster-b") == f"pulsar://127.0.0.1:{b.client_port}"


def test_each_broker_has_its_own_proxies_and_the_service_url_lists_them_all() -> None:
    layout = _layout()
    a0, a1 = layout.brokers("cluster-a")
    assert layout.client_proxies("cluster-a") == ["cluster-a-client-b0", "cluster-a-client-b1"]
    assert layout.link_proxies("cluster-b", "cluster-a") == [
        "repl-cluster-b-to-cluster-a-b0",
        "repl-cluster-b-to-cluster-a-b1",
    ]
    assert layout.service_url("cluster-a") == f"pulsar://127.0.0.1:{a0.client_port},127.0.0.1:{a1.client_port}"
    b_in_a = [r.incoming["cluster-b"][1] for r in (a0, a1)]
    assert layout.link_service_url("cluster-b", "cluster-a") == "pulsar://" + ",".join(f"127.0.0.1:{p}" for p in b_in_a)


def test_each_broker_advertises_its_own_proxies() -> None:
    layout = _layout()
    for route in layout.brokers("cluster-c"):
        listeners = route.listener_plan().advertised_listeners("127.0.0.1")
        assert f"internal:pulsar://127.0.0.1:{route.broker_port}" in listeners
        assert f"external:pulsar://127.0.0.1:{route.client_port}" in listeners
        for src in ("cluster-a", "cluster-b"):
            assert f"from_{src.replace('-', '_')}:pulsar://127.0.0.1:{route.incoming[src][1]}" in listeners


def test_every_proxy_leads_to_its_own_broker() -> None:
    layout = _layout()
    upstream = {name: target for name, _, target in layout.proxy_specs()}
    for routes in layout.routes.values():
        for r in routes:
            for name in r.proxies():
                expected = r.web_port if name == r.http_proxy else r.broker_port
                assert upstream[name] == f"127.0.0.1:{expected}"
    assert len(upstream) == len(layout.proxy_specs())  # names are unique


def test_links_of_a_cluster_cover_both_directions_to_every_broker() -> None:
    layout = _layout()
    links = set(layout.links_of("cluster-a"))
    assert {"repl-cluster-b-to-cluster-a-b0", "repl-cluster-b-to-cluster-a-b1", "repl-cluster-a-to-cluster-b"} <= links
    assert {f"repl-cluster-a-to-cluster-c-b{i}" for i in range(3)} <= links
    assert not any("cluster-b-to-cluster-c" in name or "cluster-c-to-cluster-b" in name for name in links)
