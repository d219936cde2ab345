"""The PIP-136 checks on hand-built histories: last_writer_wins against the oracle of the published events,
converged from the reads after the last write and fault; never a pass without evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.checks import CheckResult, evaluate
from pytest_pulsar_ha.history import FAULT_END, METADATA_EVENT, METADATA_READ, METADATA_WRITE, Event
from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.scenario.model import Scenario

S = 1_000_000_000
T0 = 1_700_000_000 * S
P = "/admin/policies/pulsar-ha/ns"
A, B = "cluster-a", "cluster-b"


def scenario(expect: str, metadata: str = "{policy: message_ttl, writers: [cluster-a], every: 1s}") -> Scenario:
    text = f"""
scenarios:
  - name: s
    topology: {{clusters: [cluster-a, cluster-b], metadata_sync: pulsar}}
    provider: {{kind: none, primary: cluster-a}}
    workload: {{rate: 5/s, duration: 20s, metadata: {metadata}}}
    expect: {expect}
"""
    (case,) = parse_scenarios(text, "s.pulsar-ha.yaml")
    return case.scenario


def no_spark() -> Any:
    raise AssertionError("this expectation must not need Spark")


def judge(expect: str, events: list[Event], metadata_writers: str = "[cluster-a]") -> CheckResult:
    metadata = f"{{policy: message_ttl, writers: {metadata_writers}, every: 1s}}"
    (result,) = evaluate(scenario(expect, metadata), events, Path("unused.jsonl"), no_spark, primary=A)
    return result


def at(seconds: float) -> int:
    return T0 + int(seconds * S)


def write(t: float, cluster: str, value: int, ok: bool = True) -> Event:
    detail = {"path": P, "policy": "message_ttl", "value": str(value), "ok": ok, "end_ns": at(t + 0.05)}
    return Event(at(t), METADATA_WRITE, "metadata", cluster=cluster, detail=json.dumps(detail))


def published(t: float, seen_on: str, source: str, origin_s: float, value: int) -> Event:
    detail = {"path": P, "source": source, "origin_ms": at(origin_s) // 1_000_000, "type": "Modified"}
    detail["value"] = str(value)
    return Event(at(t), METADATA_EVENT, "observer", cluster=seen_on, detail=json.dumps(detail))


def read(t: float, cluster: str, value: int, final: bool = False) -> Event:
    detail = {"path": P, "policy": "message_ttl", "value": str(value), "final": final}
    return Event(at(t), METADATA_READ, "poller", cluster=cluster, detail=json.dumps(detail))


def two_writes_on_a() -> list[Event]:
    return [
        write(1, A, 1001),
        published(1.1, A, A, 1.01, 1001),
        published(1.6, B, A, 1.01, 1001),
        write(2, A, 1002),
        published(2.1, A, A, 2.01, 1002),
        published(2.6, B, A, 2.01, 1002),
        read(1.2, A, 1001),
        read(1.7, B, 1001),
        read(2.2, A, 1002),
    ]


def test_last_writer_wins_passes_when_every_cluster_holds_the_latest_origin_write() -> None:
    events = [*two_writes_on_a(), read(2.8, B, 1002), read(30, A, 1002, final=True), read(30, B, 1002, final=True)]
    result = judge("[{last_writer_wins: true}]", events)
    assert result.ok, result.measured


def test_a_cluster_left_on_an_older_write_is_a_divergence_named_with_both_values() -> None:
    events = [*two_writes_on_a(), read(30, A, 1002, final=True), read(30, B, 1001, final=True)]
    result = judge("[{last_writer_wins: true}]", events)
    assert not result.ok
    assert "cluster-b" in result.measured and "'1002'" in result.measured and "'1001'" in result.measured


def test_a_tie_resolved_the_4_0_8_way_is_said() -> None:
    events = [
        write(1, A, 1001),
        write(1, B, 1002),
        published(1.1, A, A, 1.0, 1001),
        published(1.1, B, B, 1.0, 1002),
        read(30, A, 1002, final=True),
        read(30, B, 1002, final=True),
    ]
    result = judge("[{last_writer_wins: true}]", events, metadata_writers="[cluster-a, cluster-b]")
    assert not result.ok
    assert "they match Pulsar's tie rule, larger name wins, as coded in 4.0.8, 4.2.4" in result.measured


def test_a_write_no_event_topic_showed_is_missing_evidence() -> None:
    events = [write(1, A, 1001), read(30, A, 1001, final=True), read(30, B, 1001, final=True)]
    result = judge("[{last_writer_wins: true}]", events)
    assert not result.ok and "never appeared on an event topic" in result.measured


@pytest.mark.parametrize("expect", ["[{last_writer_wins: true}]", "[{converged: {within: 5s}}]"])
def test_no_write_is_no_evidence(expect: str) -> None:
    result = judge(expect, [read(30, A, 1, final=True), read(30, B, 1, final=True)])
    assert not result.ok and "no evidence" in result.measured


def test_failed_writes_are_not_evidence_either() -> None:
    result = judge("[{converged: {within: 5s}}]", [write(1, A, 1001, ok=False), read(30, A, 1, final=True)])
    assert not result.ok and "no evidence" in result.measured


def test_converged_measures_from_the_last_write_to_the_last_change() -> None:
    events = [*two_writes_on_a(), read(2.8, B, 1002), read(30, A, 1002, final=True), read(30, B, 1002, final=True)]
    result = judge("[{converged: {within: 5s}}]", events)
    assert result.ok, result.measured
    assert "0.8s after" in result.measured  # b changed at 2.8 s, the last write ended at 2.05 s


def test_converged_counts_from_the_end_of_the_last_fault() -> None:
    fault_end = Event(at(10), FAULT_END, "nemesis", cluster=A, detail=json.dumps({"fault": "replication_cut"}))
    events = [*two_writes_on_a(), fault_end, read(17, B, 1002), read(30, A, 1002, final=True)]
    events.append(read(30, B, 1002, final=True))
    result = judge("[{converged: {within: 5s}}]", events)
    assert not result.ok and "7.0s after" in result.measured


def test_clusters_that_end_apart_never_converged() -> None:
    events = [*two_writes_on_a(), read(30, A, 1002, final=True), read(30, B, 1001, final=True)]
    result = judge("[{converged: {within: 5s}}]", events)
    assert not result.ok and "never converged" in result.measured


def test_metadata_writes_need_metadata_sync_and_the_expectations_need_writes() -> None:
    text = """
scenarios:
  - name: s
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: none, primary: cluster-a}
    workload:
      duration: 20s
      metadata: {policy: message_ttl, writers: [cluster-a, cluster-c], every: 1s, until: 30s}
    expect: [{last_writer_wins: true}]
  - name: t
    topology: {clusters: [cluster-a, cluster-b], metadata_sync: pulsar}
    provider: {kind: none, primary: cluster-a}
    workload: {duration: 20s}
    expect: [{converged: {within: 5s}}]
"""
    with pytest.raises(ScenarioError) as info:
        parse_scenarios(text, "s.pulsar-ha.yaml")
    message = str(info.value)
    assert "set topology.metadata_sync" in message
    assert "unknown cluster 'cluster-c'" in message
    assert "the writes stop at 30s" in message
    assert "converged judges metadata writes" in message


def test_propagation_is_timed_per_write_until_every_cluster_shows_it() -> None:
    from pytest_pulsar_ha.checks.metadata import describe_propagation, propagation_seconds

    events = [*two_writes_on_a(), read(2.8, B, 1002)]
    # 1001: ended 1.05 s, on a at 1.2 s and b at 1.7 s; 1002: ended 2.05 s, a at 2.2 s, b at 2.8 s
    assert [round(s, 2) for s in propagation_seconds(events)] == [0.65, 0.75]
    assert describe_propagation([0.65, 0.75]) == "2 write(s) reached every cluster: median 0.75s, worst 0.75s"
    assert describe_propagation([]) == "no write reached every cluster"
