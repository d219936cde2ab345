"""`topology.ledger_ids_higher` (#39): the named cluster's ledger ids are seeded above every other cluster's, so a
message id it handed out compares above any of another cluster's. Checked at load time (file:line), part of what
decides the environment, seeded by the embedded backend, and stated (or refused) by the run."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pulsar_ha.runtime import embedded
from pytest_pulsar_ha.runtime.environment_pool import describe_key, scenario_specs, topology_key
from pytest_pulsar_ha.runtime.ledger_owners import ledger_id_order
from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.settings.clusters import ClusterSpec

SOURCE = """\
scenarios:
  - name: s
    topology: {clusters: [cluster-a, cluster-b], TOPOLOGY}
    workload: {duration: 10s}
    expect: [{no_loss: true}]
"""


def topology(extra: str) -> Any:
    (case,) = parse_scenarios(SOURCE.replace("TOPOLOGY", extra), "l.pulsar-ha.yaml")
    return case.scenario.topology


def errors(extra: str) -> str:
    with pytest.raises(ScenarioError) as raised:
        parse_scenarios(SOURCE.replace("TOPOLOGY", extra), "l.pulsar-ha.yaml")
    return str(raised.value)


def test_the_named_cluster_gets_an_environment_of_its_own() -> None:
    session = [ClusterSpec("cluster-a"), ClusterSpec("cluster-b")]
    assert scenario_specs(topology("brokers: 1"), session) is None
    specs = scenario_specs(topology("ledger_ids_higher: cluster-a"), session)
    assert specs is not None
    assert [(s.name, s.ledger_ids_high) for s in specs] == [("cluster-a", True), ("cluster-b", False)]
    assert topology_key(specs) != topology_key(session)
    assert describe_key(topology_key(specs)) == "cluster-a:1[ledger-ids-high],cluster-b:1"


def test_an_unknown_or_multi_broker_cluster_is_refused() -> None:
    assert errors("ledger_ids_higher: cluster-z") == (
        "l.pulsar-ha.yaml:3: scenarios[0].topology.ledger_ids_higher: unknown cluster 'cluster-z'; expected one of "
        "topology.clusters: cluster-a, cluster-b"
    )
    assert "ledger ids are seeded on standalones only" in errors("ledger_ids_higher: cluster-a, brokers: 2")


def test_the_embedded_backend_seeds_the_named_cluster_above_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    seeded: dict[str, int | None] = {}

    def create_node(spec: ClusterSpec, plans: Any, options: Any, ledger_id_high_bits: int | None = None) -> Any:
        seeded[spec.name] = ledger_id_high_bits
        return None

    monkeypatch.setattr(embedded, "create_node", create_node)
    backend = embedded.EmbeddedBackend(options=None)  # type: ignore[arg-type]
    backend.create(ClusterSpec("cluster-a", ledger_ids_high=True), [])
    backend.create(ClusterSpec("cluster-b"), [])
    backend.create(ClusterSpec("cluster-c"), [])
    assert seeded == {"cluster-a": 1 + embedded.HIGH_OFFSET, "cluster-b": 2, "cluster-c": 3}


def test_the_run_states_the_order_or_refuses_it() -> None:
    assert ledger_id_order({17: "cluster-a", 2: "cluster-b"}, ["cluster-a", "cluster-b"], "cluster-a") == (
        "cluster-b (2 << 32) < cluster-a (17 << 32)"
    )
    with pytest.raises(RuntimeError, match="but cluster-b's ledger ids sort highest"):
        ledger_id_order({1: "cluster-a", 2: "cluster-b"}, ["cluster-a", "cluster-b"], "cluster-a")
    with pytest.raises(RuntimeError, match="the ledger ids of cluster-b are not seeded"):
        ledger_id_order({1: "cluster-a"}, ["cluster-a", "cluster-b"], "cluster-a")
