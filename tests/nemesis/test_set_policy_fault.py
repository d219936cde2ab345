"""The set_policy fault: its model (a policy, its value, its scope; refused at its line where they do not fit), its
label, the admin calls of its primitive (set, wait until answered, restore or remove), and, on real clusters, a
topic's lowered maximum message size refusing a larger message on that cluster only while it holds."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from types import SimpleNamespace
from typing import Any

import pulsar
import pytest

from pytest_pulsar_ha.nemesis.primitives import FaultTarget, fault_context
from pytest_pulsar_ha.nemesis.schedule import fault_offsets
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES, SetPolicyFault
from pytest_pulsar_ha.scenario.loader import parse_scenarios

FILE = "s.pulsar-ha.yaml"
FAULT_LINE = 7
"""The line of the fault in :func:`scenario_text`."""


def scenario_text(fault: str) -> str:
    return f"""scenarios:
  - name: s
    topology: {{clusters: [cluster-a, cluster-b]}}
    provider: {{kind: none, primary: cluster-a}}
    workload: {{topics: [{{name: orders}}, {{name: events, partitions: 2}}], rate: 5/s, duration: 20s}}
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


def test_a_policy_is_set_on_one_cluster_for_a_window() -> None:
    size = fault_of(
        "{kind: set_policy, cluster: cluster-b, policy: max_message_size, value: 1024, scope: topic, "
        "topic: orders, at: 2s, for: 5s}"
    )
    dedup = fault_of("{kind: set_policy, cluster: cluster-a, policy: deduplication, value: true, at: 1s, for: 3s}")
    assert isinstance(size, SetPolicyFault) and FAULT_CLASSES["set_policy"] is SetPolicyFault
    assert size.label(0) == "#0 set_policy cluster-b/orders max_message_size=1024"
    assert dedup.label(3) == "#3 set_policy cluster-a namespace deduplication=true"
    assert (size.target, size.start, size.end, size.facts.instant, size.facts.acts_on) == (
        "cluster-b",
        2.0,
        7.0,
        False,
        "harness",
    )
    assert dedup.scope == "namespace" and dedup.value is True
    assert fault_offsets(size) == (2.0, 7.0)


@pytest.mark.parametrize(
    ("fault", "where", "message"),
    [
        (
            "{kind: set_policy, cluster: cluster-b, policy: max_message_size, value: 1024, at: 2s, for: 5s}",
            "scope",
            "max_message_size is set at topic level in Pulsar, found scope 'namespace'",
        ),
        (
            "{kind: set_policy, cluster: cluster-b, policy: max_message_size, value: true, scope: topic, at: 2s, "
            "for: 5s}",
            "value",
            "max_message_size takes a number of bytes > 0, found True",
        ),
        (
            "{kind: set_policy, cluster: cluster-b, policy: max_message_size, value: 0, scope: topic, at: 2s, for: 5s}",
            "value",
            "max_message_size takes a number of bytes > 0, found 0",
        ),
        (
            "{kind: set_policy, cluster: cluster-b, policy: deduplication, value: 1, at: 2s, for: 5s}",
            "value",
            "deduplication takes true or false, found 1",
        ),
        (
            "{kind: set_policy, cluster: cluster-b, policy: deduplication, value: true, topic: orders, at: 2s, "
            "for: 5s}",
            "topic",
            "a topic is named with scope: topic only, found scope 'namespace'",
        ),
        (
            "{kind: set_policy, cluster: cluster-b, policy: deduplication, value: true, scope: topic, topic: nope, "
            "at: 2s, for: 5s}",
            "topic",
            "expected a topic of workload.topics (orders, events), found 'nope'",
        ),
    ],
    ids=["size-at-namespace", "size-bool", "size-zero", "dedup-int", "topic-without-scope", "unknown-topic"],
)
def test_a_policy_that_does_not_fit_is_refused_at_its_line(fault: str, where: str, message: str) -> None:
    assert f"{FILE}:{FAULT_LINE}: scenarios[0].faults[0].{where}: {message}" in refused(fault)


def test_an_unknown_policy_a_missing_window_and_an_unknown_cluster_are_refused() -> None:
    unknown = refused("{kind: set_policy, cluster: cluster-b, policy: retention, value: 1, at: 2s, for: 5s}")
    assert f"{FILE}:{FAULT_LINE}: scenarios[0].faults[0].policy:" in unknown
    assert "max_message_size" in unknown and "deduplication" in unknown
    assert "for" in refused("{kind: set_policy, cluster: cluster-b, policy: deduplication, value: true, at: 2s}")
    assert "cluster-z" in refused(
        "{kind: set_policy, cluster: cluster-z, policy: deduplication, value: true, at: 2s, for: 1s}"
    )


class _Admin:
    """An admin API that stores what is set, answering null where nothing is."""

    def __init__(self, held: dict[str, Any]) -> None:
        self.held = dict(held)
        self.calls: list[tuple[str, str, Any]] = []

    def get(self, path: str) -> Any:
        self.calls.append(("GET", path, None))
        return self.held.get(path)

    def post(self, path: str, payload: Any = None) -> None:
        self.calls.append(("POST", path, payload))
        self.held[path] = payload

    def delete(self, path: str) -> None:
        self.calls.append(("DELETE", path, None))
        self.held.pop(path, None)


TOPICS = [
    "persistent://pulsar-ha/t1/orders",
    "persistent://pulsar-ha/t1/events-partition-0",
    "persistent://pulsar-ha/t1/events-partition-1",
]


def _applied(fault: str, held: dict[str, Any]) -> tuple[_Admin, list[str], dict[str, Any]]:
    admin, asked = _Admin(held), []

    def cluster(name: str) -> Any:
        asked.append(name)
        return SimpleNamespace(admin=admin)

    target = FaultTarget(SimpleNamespace(cluster=cluster), SimpleNamespace(), topics=TOPICS)  # type: ignore[arg-type]
    with fault_context(target, fault_of(fault))():
        during = dict(admin.held)
    return admin, asked, during


def test_its_primitive_sets_the_policy_then_removes_it_where_none_was() -> None:
    admin, asked, during = _applied(
        "{kind: set_policy, cluster: cluster-b, policy: max_message_size, value: 1024, scope: topic, at: 2s, for: 5s}",
        {},
    )
    orders, events = "persistent/pulsar-ha/t1/orders/maxMessageSize", "persistent/pulsar-ha/t1/events/maxMessageSize"
    assert asked == ["cluster-b"]
    assert during == {orders: 1024, events: 1024}  # a partitioned topic's policy is set on its base name
    assert admin.held == {}
    assert admin.calls == [
        ("GET", orders, None),
        ("POST", orders, 1024),
        ("GET", orders, None),
        ("GET", events, None),
        ("POST", events, 1024),
        ("GET", events, None),
        ("DELETE", orders, None),
        ("GET", orders, None),
        ("DELETE", events, None),
        ("GET", events, None),
    ]


def test_its_primitive_restores_a_value_set_before() -> None:
    path = "namespaces/pulsar-ha/t1/deduplication"
    admin, _, during = _applied(
        "{kind: set_policy, cluster: cluster-a, policy: deduplication, value: true, at: 2s, for: 5s}", {path: False}
    )
    assert during == {path: True}
    assert admin.held == {path: False}
    assert ("POST", path, False) in admin.calls and not any(call[0] == "DELETE" for call in admin.calls)


def test_a_topic_policy_names_the_deduplication_path_of_topics() -> None:
    _, _, during = _applied(
        "{kind: set_policy, cluster: cluster-a, policy: deduplication, value: false, scope: topic, topic: events, "
        "at: 2s, for: 5s}",
        {},
    )
    assert during == {"persistent/pulsar-ha/t1/events/deduplicationEnabled": False}


REFUSED_WITHIN_S = 5.0
"""How long a send may wait for its receipt. The C++ client (Pulsar-CPP-v4.2.0) answers a broker's refusal of a
message above the topic's maximum size by closing the connection and sending it again on the next one, every
0.1 s, and its send timeout never fires meanwhile (seen here: a blocking send with a 5 s send timeout still
unanswered minutes later, until interrupted): a refused send is one whose receipt has not come within this time."""


def _acked(client: pulsar.Client, topic: str, size: int) -> bool:
    """Whether one message of ``size`` bytes is acknowledged within :data:`REFUSED_WITHIN_S`, on a producer of
    its own (closed after: a refused send fails then, and holds no later one behind it)."""
    producer = client.create_producer(topic, send_timeout_millis=int(REFUSED_WITHIN_S * 1000), batching_enabled=False)
    done, results = threading.Event(), []

    def sent(result: Any, _message_id: Any) -> None:
        results.append(result)
        done.set()

    producer.send_async(b"x" * size, sent)
    done.wait(REFUSED_WITHIN_S)
    with contextlib.suppress(pulsar.PulsarException):
        producer.close()
    return results[:1] == [pulsar.Result.Ok]


@pytest.mark.real_clusters
def test_a_lowered_maximum_message_size_refuses_larger_messages_on_its_cluster_while_it_holds(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    topic = f"persistent://{geo_namespace}/sized-{uuid.uuid4().hex[:6]}"
    a = pulsar_ha.client("cluster-a", operation_timeout_seconds=10)
    b = pulsar_ha.client("cluster-b", operation_timeout_seconds=10)
    fault = fault_of(
        "{kind: set_policy, cluster: cluster-b, policy: max_message_size, value: 1024, scope: topic, at: 0s, for: 5s}"
    )
    target = FaultTarget(pulsar_ha, SimpleNamespace(), topics=[topic])  # type: ignore[arg-type]
    try:
        assert _acked(b, topic, 2000) and _acked(a, topic, 2000), "2,000 B is accepted before the policy"
        with fault_context(target, fault)():
            began = time.monotonic()
            assert not _acked(b, topic, 2000), "cluster-b accepted 2,000 B with a 1,024 B limit"
            print(f"refused after {time.monotonic() - began:.1f}s")
            assert _acked(b, topic, 500), "cluster-b refused 500 B with a 1,024 B limit"
            assert _acked(a, topic, 2000), "cluster-a has its own policies: the limit is cluster-b's only"
        assert pulsar_ha.cluster("cluster-b").admin.get(f"{topic.replace('://', '/', 1)}/maxMessageSize") is None
        assert _acked(b, topic, 2000), "cluster-b still refuses 2,000 B after the policy was removed"
    finally:
        a.close()
        b.close()
