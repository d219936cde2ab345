from pytest_pulsar_ha.network.listeners import ListenerPlan
from pytest_pulsar_ha.runtime.nodes.broker_config import render_config
from pytest_pulsar_ha.runtime.nodes.standalone import standalone_settings
from pytest_pulsar_ha.settings.clusters import ClusterSpec


def test_render_replaces_existing_keys_and_appends_new_ones() -> None:
    template = "# comment=1\nclusterName=standalone\nbrokerServicePort=6650\n#webServicePort=8080\n"
    out = render_config(template, {"clusterName": "east", "webServicePort": "1", "extra": "x"})
    lines = out.splitlines()
    assert "clusterName=east" in lines
    assert "brokerServicePort=6650" in lines
    assert "# comment=1" in lines and "#webServicePort=8080" in lines
    assert lines[-2:] == ["webServicePort=1", "extra=x"]
    assert out.count("clusterName=") == 1


def test_listeners_advertise_the_proxies() -> None:
    plan = ListenerPlan(6650, 8080, 16650, {"cluster-b": 26650, "cluster-c": 36650})
    assert plan.advertised_listeners("127.0.0.1") == (
        "internal:pulsar://127.0.0.1:6650,external:pulsar://127.0.0.1:16650,"
        "from_cluster_b:pulsar://127.0.0.1:26650,from_cluster_c:pulsar://127.0.0.1:36650"
    )


def test_cluster_broker_settings_override_the_defaults() -> None:
    spec = ClusterSpec("east", broker_settings={"managedLedgerCacheSizeMB": "8", "foo": "bar"})
    settings = standalone_settings(spec, ListenerPlan(1, 2, 3, {}))
    assert settings["managedLedgerCacheSizeMB"] == "8"
    assert settings["foo"] == "bar"
    assert settings["clusterName"] == "east"
    assert settings["bindAddress"] == "127.0.0.1"
