"""`workload.processes`: how the producers and consumers are dealt over the workers, and which scenarios may
spread them (refused with file:line before any cluster starts otherwise)."""

from __future__ import annotations

import textwrap

import pytest

from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.workload.driver import WorkloadPlan
from pytest_pulsar_ha.workload.fleet.config import max_pending, split_plan


def plan(topics: int, producers: int, consumers: int, kind: str = "shared") -> WorkloadPlan:
    return WorkloadPlan([f"t{i}" for i in range(topics)], producers, consumers, kind, 0, 100.0, 10, 10.0, True, 1000, 1)


def test_producers_are_dealt_round_robin_and_consumers_from_the_last_worker_with_the_drivers_names() -> None:
    shares = split_plan(plan(topics=2, producers=2, consumers=1), 3)
    assert [[(p.name, p.topic) for p in producers] for producers, _ in shares] == [
        [("producer-0", "t0"), ("producer-3", "t1")],
        [("producer-1", "t0")],
        [("producer-2", "t1")],
    ]
    assert [[(c.name, c.topic, c.subscription) for c in consumers] for _, consumers in shares] == [
        [],
        [("consumer-0", "t1", "workload")],
        [("consumer-0", "t0", "workload")],
    ]


def test_every_producer_and_consumer_lands_in_exactly_one_worker() -> None:
    for processes in range(1, 9):
        shares = split_plan(plan(topics=3, producers=3, consumers=2), processes)
        assert len(shares) == processes
        assert sorted(p.name for producers, _ in shares for p in producers) == sorted(f"producer-{i}" for i in range(9))
        assert sum(len(consumers) for _, consumers in shares) == 6
    with pytest.raises(ValueError, match="at least one process"):
        split_plan(plan(1, 1, 1), 0)


def test_a_producer_may_have_two_seconds_of_its_sends_in_flight() -> None:
    assert max_pending(25_000) == 50_000
    assert max_pending(20) == 1000


def text(provider: str, processes: str = "4", client: str = "{kind: python}") -> str:
    return textwrap.dedent(
        f"""\
        scenarios:
          - name: s
            topology: {{clusters: [cluster-a, cluster-b]}}
            client: {client}
            provider: {provider}
            workload: {{duration: 10s, producers: 2, processes: {processes}}}
            expect: [{{no_loss: true}}]
        """
    )


AUTO = "{kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s, switch_back_delay: 4s}"
NATIVE = AUTO.replace("auto", "native")


def errors(source: str) -> str:
    with pytest.raises(ScenarioError) as raised:
        parse_scenarios(source, "p.pulsar-ha.yaml")
    return str(raised.value)


def test_our_providers_and_none_may_run_over_processes() -> None:
    for provider in (AUTO, "{kind: none, primary: cluster-a}"):
        (case,) = parse_scenarios(text(provider), "p.pulsar-ha.yaml")
        assert case.scenario.workload.processes == 4


def test_the_native_provider_is_refused_its_workers_could_not_follow_it() -> None:
    assert errors(text(NATIVE)) == (
        "p.pulsar-ha.yaml:6: scenarios[0].workload.processes: provider kind native runs inside one client, so the "
        "workers of workload.processes: 4 could not follow its switches; use one of auto, controlled, custom, "
        "none, or processes: 1"
    )


def test_the_java_driver_is_refused_it_is_one_process() -> None:
    message = errors(text(AUTO.replace("}", ", probe: tcp}"), client="{kind: java}"))
    assert "p.pulsar-ha.yaml:6: scenarios[0].workload.processes: the Java driver is one process" in message


@pytest.mark.parametrize("value", ["0", "17", "'2'", "true"])
def test_a_bad_number_of_processes_is_a_file_line_error(value: str) -> None:
    assert "p.pulsar-ha.yaml:6: scenarios[0].workload.processes" in errors(text(AUTO, processes=value))
