"""What a multi-broker cluster's processes are given: conf files, absolute paths, memory, ports (nothing started)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.network.layout import ProxyLayout
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.provisioning import PulsarDistribution
from pytest_pulsar_ha.runtime.embedded import EmbeddedBackend, EmbeddedOptions
from pytest_pulsar_ha.runtime.nodes.multi_broker import MultiBrokerNode
from pytest_pulsar_ha.runtime.nodes.multi_broker_config import (
    ServicePorts,
    bookie_settings,
    broker_settings,
    zookeeper_config,
)
from pytest_pulsar_ha.runtime.nodes.standalone import StandaloneNode
from pytest_pulsar_ha.settings.clusters import ClusterSpec


def _conf(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            out[key.strip()] = value
    return out


@pytest.fixture
def backend(tmp_path: Path) -> EmbeddedBackend:
    home = tmp_path / "pulsar"
    (home / "conf").mkdir(parents=True)
    (home / "bin").mkdir()
    (home / "conf" / "broker.conf").write_text("clusterName=\nbrokerServicePort=6650\nfailureDomainsEnabled=false\n")
    (home / "conf" / "bookkeeper.conf").write_text("bookiePort=3181\nallowLoopback=false\nhttpServerEnabled=false\n")
    (home / "conf" / "standalone.conf").write_text("clusterName=standalone\n")
    dist = PulsarDistribution(home=home, version="4.0.8", java=tmp_path / "jdk" / "bin" / "java")
    return EmbeddedBackend(EmbeddedOptions(dist, tmp_path / "work", PidRegistry(tmp_path / "run"), heap="384m"))


def _plans(spec: ClusterSpec) -> ProxyLayout:
    return ProxyLayout.plan([spec, ClusterSpec("cluster-b")], itertools.count(30000))


def test_one_broker_is_still_a_standalone(backend: EmbeddedBackend) -> None:
    spec = ClusterSpec("cluster-a")
    node = backend.create(spec, _plans(spec).listener_plans("cluster-a"))
    assert isinstance(node, StandaloneNode)
    assert node.brokers == [node] and node.zookeeper is None and node.bookie is None


def test_two_brokers_make_zookeeper_a_bookie_and_two_brokers(backend: EmbeddedBackend) -> None:
    spec = ClusterSpec("cluster-a", brokers=2, broker_settings={"failureDomainsEnabled": "true"})
    layout = _plans(spec)
    node = backend.create(spec, layout.listener_plans("cluster-a"))
    assert isinstance(node, MultiBrokerNode)
    assert [s.name for s in node.services()] == [
        "zookeeper cluster-a",
        "bookie cluster-a",
        "broker cluster-a/0",
        "broker cluster-a/1",
    ]
    routes = layout.brokers("cluster-a")
    assert [b.id for b in node.brokers] == [f"127.0.0.1:{r.web_port}" for r in routes]
    assert node.broker_url == "pulsar://" + ",".join(f"127.0.0.1:{r.broker_port}" for r in routes)
    for broker, route in zip(node.brokers, routes, strict=True):
        conf = _conf(broker.process.cwd / "conf" / "broker.conf")
        assert conf["webServicePort"] == str(route.web_port)
        assert conf["failureDomainsEnabled"] == "true"
        assert conf["metadataStoreUrl"] == f"zk:127.0.0.1:{node.ports.zookeeper}/cluster-a"
        assert f"external:pulsar://127.0.0.1:{route.client_port}" in conf["advertisedListeners"]
        assert broker.process.env["PULSAR_BROKER_CONF"] == str(broker.process.cwd / "conf" / "broker.conf")
        assert "-Xmx384m" in broker.process.env["PULSAR_MEM"]
        assert "ZGC" not in broker.process.env["PULSAR_GC"] and "AlwaysPreTouch" not in broker.process.env["PULSAR_GC"]
    bookie = _conf(node.bookie.process.cwd / "conf" / "bookkeeper.conf")
    assert bookie["allowLoopback"] == "true" and bookie["httpServerEnabled"] == "true"
    assert Path(bookie["journalDirectory"]).is_absolute() and Path(bookie["ledgerDirectories"]).is_absolute()
    assert "-Xmx256m" in node.bookie.process.env["BOOKIE_MEM"]
    assert "-Xmx128m" in node.zookeeper.process.env["PULSAR_MEM"]
    distinct = {node.ports.zookeeper, node.ports.bookie, node.ports.bookie_http, node.ports.bookie_metrics}
    assert len(distinct) == 4


def test_a_plan_per_broker_is_required(backend: EmbeddedBackend) -> None:
    spec = ClusterSpec("cluster-a", brokers=3)
    with pytest.raises(ConfigurationError, match="3 brokers need 3 listener plans, got 2"):
        backend.create(spec, _plans(ClusterSpec("cluster-a", brokers=2)).listener_plans("cluster-a"))


def test_zookeeper_has_no_metrics_or_admin_port_and_an_absolute_data_dir(tmp_path: Path) -> None:
    text = zookeeper_config(tmp_path / "zk", 2999)
    assert "metricsProvider" not in text  # its default port 8000 would clash with a bookie's
    assert "admin.enableServer=false" in text
    assert f"dataDir={tmp_path / 'zk'}" in text and "clientPort=2999" in text


def test_the_bookie_stores_its_ledger_metadata_under_the_cluster_chroot(tmp_path: Path) -> None:
    settings = bookie_settings(tmp_path, ServicePorts(2181, 3181, 4181, 5181), "east")
    assert settings["metadataServiceUri"] == "metadata-store:zk:127.0.0.1:2181/east"
    assert settings["prometheusStatsHttpPort"] == "5181" and settings["httpServerPort"] == "4181"


def test_spec_settings_win_over_the_multi_broker_defaults() -> None:
    spec = ClusterSpec("east", brokers=2, broker_settings={"metadataStoreSessionTimeoutMillis": "6000"})
    plan = ProxyLayout.plan([spec], itertools.count(30000)).listener_plans("east")[0]
    settings = broker_settings(spec, plan, 2181)
    assert settings["metadataStoreSessionTimeoutMillis"] == "6000"
    assert settings["defaultNumberOfNamespaceBundles"] == "1"
    assert settings["managedLedgerDefaultEnsembleSize"] == "1"
