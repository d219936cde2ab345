"""The hunt's workload options (#39): broker-side deduplication with named producers, cumulative acks, readers and
per-key batching. Each is checked where it is written (file:line), refused for the Java driver and for a workload
spread over worker processes, and turned into the plan the single-process workload runs."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.workload.plan import WorkloadPlan

AUTO = (
    "{kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s, switch_back_delay: 4s, probe: tcp}"
)


TEMPLATE = """\
scenarios:
  - name: s
    topology: {clusters: [cluster-a, cluster-b]}
    client: CLIENT
    provider: PROVIDER
    workload:
      duration: 10s
      WORKLOAD
    expect: [{no_loss: true}]
"""


def text(workload: str, client: str = "{kind: python}") -> str:
    """The scenario with ``workload``'s lines (separated by ``; ``) under ``workload:``, from line 8 on."""
    lines = "\n      ".join(workload.split("; "))
    return TEMPLATE.replace("CLIENT", client).replace("PROVIDER", AUTO).replace("WORKLOAD", lines)


def errors(source: str) -> str:
    with pytest.raises(ScenarioError) as raised:
        parse_scenarios(source, "h.pulsar-ha.yaml")
    return str(raised.value)


def test_the_defaults_keep_the_workload_as_it_was() -> None:
    (case,) = parse_scenarios(text("rate: 10/s"), "h.pulsar-ha.yaml")
    w = case.scenario.workload
    assert (w.deduplication, w.ack, w.consume, w.batching_type) == (False, "individual", "subscription", "default")
    assert w.single_process_options() == []


@pytest.mark.parametrize(
    ("line", "option"),
    [
        ("deduplication: true", ("deduplication", "true")),
        ("ack: cumulative", ("ack", "cumulative")),
        ("consume: reader", ("consume", "reader")),
        ("subscription_type: key_shared; batching: true; batching_type: key_based", ("batching_type", "key_based")),
    ],
)
def test_each_option_loads(line: str, option: tuple[str, str]) -> None:
    (case,) = parse_scenarios(text(line), "h.pulsar-ha.yaml")
    assert case.scenario.workload.single_process_options() == [option]


def test_a_reader_acknowledges_nothing() -> None:
    assert errors(text("consume: reader; ack: cumulative")) == (
        "h.pulsar-ha.yaml:9: scenarios[0].workload.ack: a reader acknowledges nothing: ack cumulative needs "
        "consume: subscription"
    )


@pytest.mark.parametrize("kind", ["shared", "key_shared"])
def test_cumulative_acks_need_one_active_consumer(kind: str) -> None:
    assert errors(text(f"ack: cumulative; subscription_type: {kind}")) == (
        f"h.pulsar-ha.yaml:8: scenarios[0].workload.ack: Pulsar refuses cumulative acks on a {kind} subscription; "
        "use subscription_type exclusive or failover"
    )


def test_per_key_batching_needs_batching_and_key_shared() -> None:
    message = errors(text("batching_type: key_based; batching: false"))
    assert "h.pulsar-ha.yaml:8: scenarios[0].workload.batching_type: batching_type key_based needs batching" in message
    assert "batching_type key_based is for a key_shared subscription, found exclusive" in message


def test_the_java_driver_refuses_them_at_load_time() -> None:
    assert errors(text("deduplication: true", client="{kind: java}")) == (
        "h.pulsar-ha.yaml:8: scenarios[0].workload.deduplication: the Java driver does not run "
        "workload.deduplication: true (the Python client's single-process workload does; use client kind python)"
    )


def test_worker_processes_refuse_them() -> None:
    message = errors(text("ack: cumulative; processes: 2"))
    assert "scenarios[0].workload.processes: workload.ack: cumulative runs in the single-process workload" in message


def plan(**options: object) -> WorkloadPlan:
    return WorkloadPlan(["t"], 1, 2, "exclusive", 0, 10.0, 100, 10.0, True, 1000, 0, **options)  # type: ignore[arg-type]


def test_named_producers_only_with_deduplication() -> None:
    assert plan().producer_options("producer-0") == {}
    assert plan(deduplication=True).producer_options("producer-0") == {"producer_name": "producer-0"}


def test_readers_are_named_where_subscriptions_go() -> None:
    assert plan().subscription_names() == ["sub-0", "sub-1"]
    assert plan(consume="reader").subscription_names() == ["reader-0", "reader-1"]
