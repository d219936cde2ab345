"""Which scenarios the external backend can run: every shipped scenario is judged, and the reasons name the
fault kind and the backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.runtime.capabilities import Capabilities
from pytest_pulsar_ha.runtime.external.backend import ExternalBackend, UnsupportedFault, external_capabilities
from pytest_pulsar_ha.runtime.external.clusters import load_clusters_file
from pytest_pulsar_ha.scenario import load_scenarios
from pytest_pulsar_ha.settings.clusters import ClusterSpec

ROOT = Path(__file__).resolve().parents[3]
FILE = """\
listener_name: pulsar_ha
clusters:
  - {name: cluster-a, service_url: 'pulsar://h:1', admin_url: 'http://h:2', route: listener, proxy_port: 7001}
  - {name: cluster-b, service_url: 'pulsar://h:3', admin_url: 'http://h:4', route: ROUTE_B}
"""


def _capabilities(tmp_path: Path, route_b: str = "pulsar_proxy") -> Capabilities:
    path = tmp_path / "clusters.yaml"
    path.write_text(FILE.replace("ROUTE_B", route_b))
    return external_capabilities(load_clusters_file(path))


def _scenario(file: str, case_id: str) -> object:
    return next(c.scenario for c in load_scenarios(ROOT / "scenarios" / file) if c.id == case_id)


def test_client_side_faults_on_proxied_clusters_are_possible(tmp_path: Path) -> None:
    caps = _capabilities(tmp_path)
    for file, case in [
        ("hung-primary.pulsar-ha.yaml", "hung-primary"),
        ("latency-spike.pulsar-ha.yaml", "latency-spike-no-switch"),
        ("latency-spike.pulsar-ha.yaml", "latency-spike-no-switch[bandwidth-squeeze]"),
        ("controlled-switch.pulsar-ha.yaml", "controlled-switch"),
    ]:
        assert caps.impossible(_scenario(file, case)) == [], case  # type: ignore[arg-type]


def test_process_faults_are_skipped_naming_the_kind_and_the_backend(tmp_path: Path) -> None:
    caps = _capabilities(tmp_path)
    killed = caps.impossible(_scenario("primary-outage.pulsar-ha.yaml", "primary-outage[killed-primary]"))  # type: ignore[arg-type]
    paused = caps.impossible(_scenario("primary-outage.pulsar-ha.yaml", "primary-outage[paused-primary]"))  # type: ignore[arg-type]
    assert any("fault kind kill" in r and "external backend" in r for r in killed), killed
    assert any("fault kind pause" in r and "external backend" in r for r in paused), paused


def test_replication_is_not_cut_through_links_the_harness_does_not_carry(tmp_path: Path) -> None:
    caps = _capabilities(tmp_path)
    outage = caps.impossible(_scenario("primary-outage.pulsar-ha.yaml", "primary-outage"))  # type: ignore[arg-type]
    cut = caps.impossible(_scenario("replication-cut.pulsar-ha.yaml", "replication-cut-and-heal"))  # type: ignore[arg-type]
    assert outage and "outage with replication: true" in outage[0]
    assert cut and "fault kind replication_cut cuts a replication link" in cut[0]


def test_connection_faults_on_a_direct_cluster_are_skipped(tmp_path: Path) -> None:
    caps = _capabilities(tmp_path, route_b="direct")
    latency = _scenario("latency-spike.pulsar-ha.yaml", "latency-spike-no-switch")
    assert caps.impossible(latency) == []  # type: ignore[arg-type]  # the fault hits cluster-a
    generated = caps.impossible(_scenario("generated-chaos.pulsar-ha.yaml", "generated-chaos"))  # type: ignore[arg-type]
    assert any(
        "cluster-b's clients are not all behind the harness's proxy" in r and "route direct" in r for r in generated
    )


def test_topologies_that_configure_brokers_are_skipped(tmp_path: Path) -> None:
    caps = _capabilities(tmp_path)
    migration = caps.impossible(_scenario("blue-green-migration.pulsar-ha.yaml", "blue-green-migration"))  # type: ignore[arg-type]
    assert any("the external backend has cluster-a, cluster-b" in r for r in migration), migration
    assert any("configures brokers" in r for r in migration), migration


def test_every_shipped_scenario_is_judged(tmp_path: Path) -> None:
    caps = _capabilities(tmp_path)
    cases = [c for f in sorted((ROOT / "scenarios").rglob("*.pulsar-ha.yaml")) for c in load_scenarios(f)]
    runnable = sorted(c.id for c in cases if not caps.impossible(c.scenario))
    assert "hung-primary" in runnable and "primary-outage[killed-primary]" not in runnable
    assert len(runnable) < len(cases)


def test_kill_pause_and_start_raise_naming_the_backend(tmp_path: Path) -> None:
    path = tmp_path / "clusters.yaml"
    path.write_text(FILE.replace("ROUTE_B", "direct"))
    node = ExternalBackend(load_clusters_file(path)).create(ClusterSpec("cluster-a"), [])
    for action in (node.kill, node.pause, node.resume, node.brokers[0].kill, node.brokers[0].start):
        with pytest.raises(UnsupportedFault, match="it runs on the external backend"):
            action()
    assert node.is_running() and not node.is_paused()


class _RecordingToxiproxy:
    """Records which proxies are switched (pure logic: which proxies an outage touches)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bool]] = []

    def set_enabled(self, proxy: str, enabled: bool) -> None:
        self.calls.append((proxy, enabled))


def test_an_outage_cuts_clients_only_and_refuses_to_pretend_it_cut_replication(tmp_path: Path) -> None:
    from pytest_pulsar_ha.network.layout import BrokerRoute, ProxyLayout
    from pytest_pulsar_ha.network.proxies import ProxyNetwork
    from pytest_pulsar_ha.runtime.external.environment import ExternalClusterView

    path = tmp_path / "clusters.yaml"
    path.write_text(FILE.replace("ROUTE_B", "direct").replace("'pulsar://h:3'", "'pulsar+ssl://h:3'"))
    node = ExternalBackend(load_clusters_file(path)).create(ClusterSpec("cluster-b"), [])
    route = BrokerRoute("cluster-b", 0, 0, 0, "cluster-b-client", 7101, "cluster-b-http", 7102, {})
    toxiproxy = _RecordingToxiproxy()
    view = ExternalClusterView(node, ProxyNetwork(toxiproxy), ProxyLayout({"cluster-b": (route,)}))  # type: ignore[arg-type]
    assert (view.service_url, view.admin_url) == ("pulsar+ssl://127.0.0.1:7101", "http://127.0.0.1:7102")
    with pytest.raises(UnsupportedFault, match="replication links: on the external backend"), view.outage():
        pass
    assert toxiproxy.calls == []
    with view.outage(replication=False):
        assert toxiproxy.calls == [("cluster-b-client", False), ("cluster-b-http", False)]
    assert toxiproxy.calls[2:] == [("cluster-b-client", True), ("cluster-b-http", True)]
