"""The replication_latency fault: its model (one direction of one link, a latency and a jitter), its label, the
toxic its primitive adds (the upstream stream of that direction's link proxies), and, on real clusters, replicated
messages arriving at least the latency later in that direction only while it holds."""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import pulsar
import pytest

from pytest_pulsar_ha.nemesis.primitives import FaultTarget, fault_context
from pytest_pulsar_ha.nemesis.schedule import fault_offsets
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES, ReplicationLatencyFault
from pytest_pulsar_ha.scenario.loader import parse_scenarios

FILE = "s.pulsar-ha.yaml"


def scenario_text(fault: str) -> str:
    return f"""scenarios:
  - name: s
    topology: {{clusters: [cluster-a, cluster-b]}}
    provider: {{kind: none, primary: cluster-a}}
    workload: {{topics: [{{name: orders}}], rate: 5/s, duration: 20s}}
    faults:
      - {fault}
    expect:
      - no_loss: true
"""


def fault_of(fault: str) -> Any:
    (case,) = parse_scenarios(scenario_text(fault), FILE)
    return case.scenario.faults[0]


def refused(fault: str) -> str:
    with pytest.raises(ScenarioError) as error:
        fault_of(fault)
    return str(error.value)


def test_a_delay_on_one_direction_of_one_link() -> None:
    fault = fault_of("{kind: replication_latency, from: cluster-a, to: cluster-b, latency: 500ms, at: 2s, for: 5s}")
    assert (
        isinstance(fault, ReplicationLatencyFault) and FAULT_CLASSES["replication_latency"] is ReplicationLatencyFault
    )
    assert fault.label(1) == "#1 replication_latency cluster-a->cluster-b"
    assert (fault.target, fault.latency.seconds, fault.jitter.seconds, fault.facts.acts_on) == (
        "cluster-a",
        0.5,
        0.0,
        "link",
    )
    assert fault_offsets(fault) == (2.0, 7.0)


L = "{kind: replication_latency, from: cluster-a"


@pytest.mark.parametrize(
    ("fault", "where", "fragment"),
    [
        (f"{L}, to: cluster-a, latency: 1s, at: 2s, for: 5s}}", ".to", "expected a cluster other than from"),
        (f"{L}, to: cluster-b, latency: 0s, at: 2s, for: 5s}}", ".latency", ""),
        (f"{L}, to: cluster-b, at: 2s, for: 5s}}", "", "missing required key 'latency'"),
        (f"{L}, to: cluster-b, latency: 1s, at: 2s}}", "", "missing required key 'for'"),
        (f"{L}, to: cluster-z, latency: 1s, at: 2s, for: 5s}}", ".to", "cluster-z"),
        (f"{L}, to: cluster-b, latency: 1s, jitter: soon, at: 2s, for: 5s}}", ".jitter", ""),
    ],
    ids=["same-cluster", "zero-latency", "no-latency", "no-window", "unknown-cluster", "bad-jitter"],
)
def test_a_delay_that_does_not_fit_is_refused_at_its_line(fault: str, where: str, fragment: str) -> None:
    message = refused(fault)
    assert f"{FILE}:7: scenarios[0].faults[0]{where}: " in message, message
    assert fragment in message


def test_its_primitive_adds_a_latency_toxic_upstream_on_the_links_of_that_direction() -> None:
    added: list[tuple[list[str], str, dict[str, Any], tuple[str, ...]]] = []
    links = {("cluster-a", "cluster-b"): ["link-a-b-0"], ("cluster-b", "cluster-a"): ["link-b-a-0"]}

    @contextmanager
    def toxic(proxies: list[str], kind: str, attributes: dict[str, Any], streams: tuple[str, ...]) -> Any:
        added.append((proxies, kind, attributes, streams))
        yield

    env = SimpleNamespace(
        layout=SimpleNamespace(link_proxies=lambda src, dst: links[(src, dst)]),
        network=SimpleNamespace(toxic=toxic),
    )
    fault = fault_of(
        "{kind: replication_latency, from: cluster-b, to: cluster-a, latency: 1500ms, jitter: 100ms, at: 2s, for: 5s}"
    )
    with fault_context(FaultTarget(env, SimpleNamespace()), fault)():  # type: ignore[arg-type]
        pass
    assert added == [(["link-b-a-0"], "latency", {"latency": 1500, "jitter": 100}, ("upstream",))]


LATENCY_S = 1.5


def _replicated_after(producer: pulsar.Producer, consumer: pulsar.Consumer, payload: bytes) -> float:
    """Seconds from the send on one cluster to its receipt on the other (other messages are skipped)."""
    began = time.monotonic()
    producer.send(payload)
    while time.monotonic() - began < 60:
        try:
            message = consumer.receive(timeout_millis=2000)
        except pulsar.Timeout:
            continue
        consumer.acknowledge(message)
        if message.data() == payload:
            return time.monotonic() - began
    raise AssertionError(f"{payload!r} was not replicated within 60 s")


@pytest.mark.real_clusters
def test_replicated_messages_arrive_the_latency_later_in_that_direction_only(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    topic = f"persistent://{geo_namespace}/delayed-{uuid.uuid4().hex[:6]}"
    a = pulsar_ha.client("cluster-a", operation_timeout_seconds=10)
    b = pulsar_ha.client("cluster-b", operation_timeout_seconds=10)
    fault = fault_of(
        f"{{kind: replication_latency, from: cluster-a, to: cluster-b, latency: {int(LATENCY_S * 1000)}ms, "
        "at: 0s, for: 5s}"
    )
    try:
        on_a = a.subscribe(topic, "check", initial_position=pulsar.InitialPosition.Earliest)
        on_b = b.subscribe(topic, "check", initial_position=pulsar.InitialPosition.Earliest)
        pa, pb = a.create_producer(topic), b.create_producer(topic)
        _replicated_after(pa, on_b, b"warm-a")  # the replicators are connected both ways before the delay
        _replicated_after(pb, on_a, b"warm-b")
        before = _replicated_after(pa, on_b, b"before")
        with fault_context(FaultTarget(pulsar_ha, SimpleNamespace()), fault)():  # type: ignore[arg-type]
            during = [_replicated_after(pa, on_b, f"during-{i}".encode()) for i in range(3)]
            other_way = _replicated_after(pb, on_a, b"b-during")
        after = _replicated_after(pa, on_b, b"after")
        print(
            f"a->b before {before:.2f}s, during {', '.join(f'{d:.2f}' for d in during)}s, after {after:.2f}s; "
            f"b->a during {other_way:.2f}s"
        )
        assert min(during) >= LATENCY_S, f"a->b took {min(during):.2f}s with a {LATENCY_S}s delay"
        assert before < LATENCY_S and after < LATENCY_S, (before, after)
        assert other_way < LATENCY_S, f"b->a took {other_way:.2f}s: the delay is on a->b only"
    finally:
        a.close()
        b.close()
