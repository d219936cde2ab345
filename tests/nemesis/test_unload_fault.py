"""The unload fault: its model (a topic of the workload, or its namespace), its label, the admin calls of its
primitive, its place in the schedule (one instant action), and a scenario that unloads a topic and then a
namespace on real clusters (``data/unload.yaml``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pulsar_ha.nemesis.primitives import FaultTarget, fault_context
from pytest_pulsar_ha.nemesis.schedule import fault_offsets
from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES, UnloadFault
from pytest_pulsar_ha.scenario.loader import load_scenarios, parse_scenarios

DATA = Path(__file__).parent / "data" / "unload.yaml"


def scenario_text(fault: str) -> str:
    return f"""scenarios:
  - name: s
    topology: {{clusters: [cluster-a, cluster-b]}}
    provider: {{kind: none, primary: cluster-a}}
    workload: {{topics: [{{name: orders}}, {{name: events, partitions: 2}}], rate: 5/s, duration: 10s}}
    faults:
      - {fault}
    expect:
      - no_loss: true
"""


def fault_of(fault: str) -> Any:
    (case,) = parse_scenarios(scenario_text(fault), "s.pulsar-ha.yaml")
    return case.scenario.faults[0]


def test_an_unload_names_a_topic_of_the_workload_or_its_namespace() -> None:
    topic = fault_of("{kind: unload, cluster: cluster-a, topic: orders, at: 2s}")
    namespace = fault_of("{kind: unload, cluster: cluster-b, at: 3s}")
    assert isinstance(topic, UnloadFault) and FAULT_CLASSES["unload"] is UnloadFault
    assert (topic.label(0), namespace.label(1)) == ("#0 unload cluster-a/orders", "#1 unload cluster-b")
    assert (topic.target, topic.end, topic.facts.instant, topic.facts.acts_on) == ("cluster-a", None, True, "harness")
    assert fault_offsets(topic) == (2.0, 2.01)


def test_an_unload_of_a_topic_the_workload_lacks_is_refused_at_load_time() -> None:
    with pytest.raises(ScenarioError) as error:
        fault_of("{kind: unload, cluster: cluster-a, topic: nope, at: 2s}")
    assert "faults[0].topic: expected a topic of workload.topics (orders, events), found 'nope'" in str(error.value)


def test_an_unload_takes_no_for() -> None:
    with pytest.raises(ScenarioError, match="for"):
        fault_of("{kind: unload, cluster: cluster-a, at: 2s, for: 1s}")


class _Admin:
    def __init__(self) -> None:
        self.puts: list[str] = []

    def put(self, path: str, payload: Any = None) -> None:
        self.puts.append(path)


def _unloaded(fault: str) -> tuple[list[str], str]:
    admin, asked = _Admin(), []

    def cluster(name: str) -> Any:
        asked.append(name)
        return SimpleNamespace(admin=admin)

    topics = [
        "persistent://pulsar-ha/t1/orders",
        "persistent://pulsar-ha/t1/events-partition-0",
        "persistent://pulsar-ha/t1/events-partition-1",
    ]
    target = FaultTarget(SimpleNamespace(cluster=cluster), SimpleNamespace(), topics=topics)  # type: ignore[arg-type]
    with fault_context(target, fault_of(fault))():
        pass
    return admin.puts, asked[0]


def test_its_primitive_unloads_the_topic_each_partition_or_the_namespace_on_its_cluster() -> None:
    assert _unloaded("{kind: unload, cluster: cluster-b, topic: orders, at: 2s}") == (
        ["persistent/pulsar-ha/t1/orders/unload"],
        "cluster-b",
    )
    assert _unloaded("{kind: unload, cluster: cluster-a, topic: events, at: 2s}")[0] == [
        "persistent/pulsar-ha/t1/events-partition-0/unload",
        "persistent/pulsar-ha/t1/events-partition-1/unload",
    ]
    assert _unloaded("{kind: unload, cluster: cluster-a, at: 2s}")[0] == ["namespaces/pulsar-ha/t1/unload"]


def test_the_scenario_file_loads() -> None:
    (case,) = load_scenarios(DATA)
    assert [f.label(i) for i, f in enumerate(case.scenario.faults)] == [
        "#0 unload cluster-a/orders",
        "#1 unload cluster-a",
    ]


@pytest.mark.real_clusters
def test_unloading_a_topic_then_its_namespace_loses_nothing(
    pulsar_ha: Any, pulsar_ha_spark: Any, tmp_path: Path
) -> None:
    from pytest_pulsar_ha.run.conductor import execute

    (case,) = load_scenarios(DATA)
    result = execute(case, pulsar_ha, evidence_dir=tmp_path / "ev", spark=lambda: pulsar_ha_spark)
    assert result.outcome == "passed", result.describe()
    assert [c.ok for c in result.checks] == [True, True]
    history = result.evidence["history"].read_text(encoding="utf-8", errors="replace")
    for label in ("#0 unload cluster-a/orders", "#1 unload cluster-a"):
        assert label in history, f"no fault event {label!r} in the history"
