"""The typed model, used from Python: types of the parts, defaults, immutability and cross-field checks."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pytest_pulsar_ha.scenario import (
    AutoProvider,
    AvailabilityExpectation,
    ControlledProvider,
    Duration,
    LatencyFault,
    MaxDuplicatesExpectation,
    NoLossExpectation,
    NoProvider,
    OperatorSwitchFault,
    OrderingExpectation,
    OutageFault,
    ReplicationCutFault,
    ResetFault,
    Scenario,
    SwitchBackExpectation,
    SwitchExpectation,
)

CLUSTERS = "cluster-a, cluster-b"


def scenario_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "outage",
        "topology": {"clusters": ["cluster-a", "cluster-b"]},
        "provider": {
            "kind": "auto",
            "primary": "cluster-a",
            "secondaries": ["cluster-b"],
            "failover_delay": "2s",
            "switch_back_delay": "4s",
        },
        "workload": {"duration": "30s", "keys": 4},
        "faults": [{"kind": "outage", "cluster": "cluster-a", "at": "5s", "for": "12s"}],
        "expect": [
            {"switch": {"to": "cluster-b", "within": ["2s", "8s"]}},
            {"switch_back": {"to": "cluster-a", "within": ["4s", "12s"]}},
            {"no_loss": True},
            {"ordering": {"per": "key"}},
            {"max_duplicates": 0},
            {"availability": {"min_ratio": 0.8, "ack_within": "3s"}},
        ],
    }
    data.update(changes)
    return data


def problems(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as excinfo:
        Scenario.model_validate(data)
    found = []
    for error in excinfo.value.errors():
        assert error["type"] == "scenario_problems", error
        found += [(tuple(loc), message) for loc, message in error["ctx"]["problems"]]
    return found


def test_a_valid_scenario_has_typed_parts_and_defaults() -> None:
    scenario = Scenario.model_validate(scenario_data())
    assert isinstance(scenario.provider, AutoProvider)
    assert scenario.provider.probe == "lookup"
    assert scenario.provider.check_interval == Duration("1s")
    fault = scenario.faults[0]
    assert isinstance(fault, OutageFault)
    assert fault.replication is True
    assert (fault.start, fault.end) == (5.0, 17.0)
    assert fault.for_.seconds == 12.0
    kinds = [type(e) for e in scenario.expect]
    assert kinds == [
        SwitchExpectation,
        SwitchBackExpectation,
        NoLossExpectation,
        OrderingExpectation,
        MaxDuplicatesExpectation,
        AvailabilityExpectation,
    ]
    assert [e.kind for e in scenario.expect] == [
        "switch",
        "switch_back",
        "no_loss",
        "ordering",
        "max_duplicates",
        "availability",
    ]
    switch = scenario.expect[0]
    assert isinstance(switch, SwitchExpectation)
    assert (switch.switch.of, switch.switch.fault) == ("fault_start", 0)
    assert [d.seconds for d in switch.switch.within] == [2.0, 8.0]
    workload = scenario.workload
    assert (workload.producers, workload.consumers, workload.subscription_type) == (1, 1, "exclusive")
    assert workload.rate.per_second == 10
    assert workload.message_size.bytes == 100
    assert workload.send_timeout.seconds == 30
    assert workload.replicated_subscriptions is True
    assert [t.name for t in workload.topics] == ["events"]
    assert scenario.seed is None
    assert scenario.marks == ()


def test_defaults_of_an_minimal_scenario() -> None:
    scenario = Scenario.model_validate(
        {"name": "steady", "workload": {"duration": "10s"}, "expect": [{"no_loss": True}]}
    )
    assert scenario.topology.clusters is None
    assert scenario.provider == NoProvider(kind="none")
    assert scenario.faults == ()


def test_models_are_frozen_and_reject_unknown_keys() -> None:
    scenario = Scenario.model_validate(scenario_data())
    with pytest.raises(ValidationError):
        scenario.name = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError) as excinfo:
        Scenario.model_validate(scenario_data(extra=1))
    assert excinfo.value.errors()[0]["type"] == "extra_forbidden"


def test_dump_by_alias_round_trips() -> None:
    scenario = Scenario.model_validate(scenario_data())
    dumped = scenario.model_dump(by_alias=True)
    assert dumped["faults"][0]["for"] == "12s"
    assert Scenario.model_validate(dumped) == scenario


def test_every_fault_kind() -> None:
    faults = [
        {"kind": "outage", "cluster": "cluster-a", "at": "1s", "for": "1s", "replication": False},
        {"kind": "kill", "cluster": "cluster-a", "at": "1s", "for": "1s"},
        {"kind": "pause", "cluster": "cluster-a", "at": "1s", "for": "1s"},
        {"kind": "latency", "cluster": "cluster-a", "at": "1s", "for": "1s", "latency": "100ms"},
        {"kind": "timeout", "cluster": "cluster-a", "at": "1s", "for": "1s"},
        {"kind": "bandwidth", "cluster": "cluster-a", "at": "1s", "for": "1s", "rate": "64KB/s"},
        {"kind": "reset", "cluster": "cluster-a", "at": "1s"},
        {"kind": "replication_cut", "from": "cluster-a", "to": "cluster-b", "at": "1s", "for": "1s"},
        {"kind": "operator_switch", "to": "cluster-b", "at": "1s"},
    ]
    provider = {"kind": "controlled", "primary": "cluster-a"}
    scenario = Scenario.model_validate(scenario_data(provider=provider, faults=faults, expect=[{"no_loss": True}]))
    assert [f.kind for f in scenario.faults] == [f["kind"] for f in faults]
    assert isinstance(scenario.provider, ControlledProvider)
    latency = scenario.faults[3]
    assert isinstance(latency, LatencyFault) and latency.jitter == Duration("0ms")
    reset = scenario.faults[6]
    assert isinstance(reset, ResetFault) and reset.end is None
    cut = scenario.faults[7]
    assert isinstance(cut, ReplicationCutFault) and (cut.from_, cut.to) == ("cluster-a", "cluster-b")
    assert isinstance(scenario.faults[8], OperatorSwitchFault)


def test_cross_field_problems_are_all_reported_with_their_location() -> None:
    data = scenario_data(
        faults=[
            {"kind": "outage", "cluster": "cluster-c", "at": "25s", "for": "12s"},
            {"kind": "operator_switch", "to": "cluster-b", "at": "3s"},
        ],
    )
    data["workload"] = {"duration": "30s", "consumers": 0}
    assert problems(data) == [
        (
            ("faults", 0, "cluster"),
            "unknown cluster 'cluster-c'; expected one of the topology's clusters: cluster-a, cluster-b",
        ),
        (
            ("faults", 0, "for"),
            "the fault ends at 37s (at 25s + for 12s), after the end of the workload (workload.duration 30s); "
            "shorten the fault or lengthen the workload",
        ),
        (
            ("faults", 1, "kind"),
            "operator_switch needs provider kind controlled (an operator switches the URL provider), "
            "found provider kind auto",
        ),
        (("expect", 2, "no_loss"), "no_loss needs at least one consumer, found workload.consumers 0"),
        (("expect", 3, "ordering"), "ordering needs at least one consumer, found workload.consumers 0"),
        (
            ("expect", 3, "ordering", "per"),
            "ordering per key needs keyed messages, found workload.keys 0; set workload.keys or use per: producer",
        ),
        (("expect", 4, "max_duplicates"), "max_duplicates needs at least one consumer, found workload.consumers 0"),
    ]


def test_clusters_are_not_checked_without_a_topology() -> None:
    data = scenario_data(faults=[{"kind": "outage", "cluster": "anywhere", "at": "5s", "for": "1s"}])
    del data["topology"]
    assert Scenario.model_validate(data).faults[0].cluster_refs().__next__() == (("cluster",), "anywhere")


def test_a_fault_ending_exactly_with_the_workload_is_fine() -> None:
    faults = [{"kind": "outage", "cluster": "cluster-a", "at": "0.1s", "for": "29.9s"}]
    assert Scenario.model_validate(scenario_data(faults=faults)).faults[0].end == pytest.approx(30.0)


def test_provider_checks() -> None:
    provider = {
        "kind": "auto",
        "primary": "cluster-a",
        "secondaries": ["cluster-b", "cluster-a", "cluster-b"],
        "failover_delay": "1s",
        "switch_back_delay": "1s",
    }
    with pytest.raises(ValidationError) as excinfo:
        Scenario.model_validate(scenario_data(provider=provider))
    [error] = excinfo.value.errors()
    assert error["loc"] == ("provider", "auto")
    assert error["ctx"]["problems"] == [
        (("secondaries", 2), "cluster 'cluster-b' is listed twice"),
        (("secondaries", 1), "the primary 'cluster-a' cannot also be a secondary"),
    ]


def test_switch_expectations_refer_to_faults_that_exist_and_end() -> None:
    faults = [{"kind": "reset", "cluster": "cluster-a", "at": "5s"}]
    expect = [
        {"switch": {"to": "cluster-b", "within": ["1s", "2s"], "fault": 1}},
        {"switch": {"to": "cluster-b", "within": ["1s", "2s"], "of": "fault_end"}},
        {"switch_back": {"to": "cluster-a", "within": ["1s", "2s"]}},
        {"no_switch": True},
    ]
    assert problems(scenario_data(faults=faults, expect=expect)) == [
        (("expect", 0, "switch", "fault"), "expected the index of a fault (0 to 0), found 1"),
        (
            ("expect", 1, "switch", "fault"),
            "the window is measured from the end of fault 0, found a reset fault without a duration ('for')",
        ),
        (
            ("expect", 2, "switch_back", "fault"),
            "switch_back is measured from the end of fault 0, found a reset fault without a duration ('for')",
        ),
        (("expect", 3, "no_switch"), "no_switch contradicts the switch expectations of this scenario"),
    ]


def test_exclusive_subscription_takes_one_consumer() -> None:
    data = scenario_data()
    data["workload"] = {"duration": "30s", "consumers": 2, "keys": 1}
    with pytest.raises(ValidationError, match="an exclusive subscription takes one consumer, found 2"):
        Scenario.model_validate(data)
    data["workload"]["subscription_type"] = "key_shared"
    assert Scenario.model_validate(data).workload.consumers == 2


def test_batching_is_the_python_clients_and_refused_for_the_java_driver(tmp_path: Any) -> None:
    from pytest_pulsar_ha.scenario.errors import ScenarioError
    from pytest_pulsar_ha.scenario.loader import load_scenarios

    text = """
scenarios:
  - name: batched
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s, switch_back_delay: 4s}
    workload: {topics: [{name: t}], rate: 500/s, duration: 10s, batching: true}
    expect: [{no_loss: true}]
    variants:
      - id: java
        client: {kind: java}
        provider: {probe: tcp}
"""
    path = tmp_path / "batched.pulsar-ha.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=r"batched.pulsar-ha.yaml:\d+: .*workload.batching: the Java driver sends"):
        load_scenarios(path)
    path.write_text(text.split("    variants:")[0])
    assert load_scenarios(path)[0].scenario.workload.batching is True
