"""`workload.processes`: how the producers and consumers are dealt over the workers, and which scenarios may
spread them (refused with file:line before any cluster starts otherwise)."""

from __future__ import annotations

import textwrap

import pytest

from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.workload.fleet.config import split_plan
from pytest_pulsar_ha.workload.plan import WorkloadPlan, max_pending
from pytest_pulsar_ha.workload.process_count import (
    MAX_PROCESSES,
    SINGLE_PROCESS_MSG_S,
    WORKER_OPERATIONS_S,
    ProcessChoice,
    choose_processes,
)


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


def auto_text(provider: str, workload: str, client: str = "{kind: python}") -> str:
    return textwrap.dedent(
        f"""\
        scenarios:
          - name: s
            topology: {{clusters: [cluster-a, cluster-b]}}
            client: {client}
            provider: {provider}
            workload: {{duration: 10s, {workload}}}
            expect: [{{no_loss: true}}]
        """
    )


def chosen(workload: str, provider: str = AUTO, client: str = "{kind: python}") -> ProcessChoice:
    (case,) = parse_scenarios(auto_text(provider, workload, client), "p.pulsar-ha.yaml")
    return choose_processes(case.scenario)


def test_processes_default_to_auto_one_process_where_one_keeps_the_rate() -> None:
    (case,) = parse_scenarios(auto_text(AUTO, "rate: 20/s"), "p.pulsar-ha.yaml")
    assert case.scenario.workload.processes == "auto"
    assert chosen("rate: 20/s").count == 1
    assert chosen(f"rate: {SINGLE_PROCESS_MSG_S}/s").count == 1
    # the ceiling is the whole offer: producers x topics x namespaces at the per-producer rate
    assert chosen(f"rate: {SINGLE_PROCESS_MSG_S // 2}/s, producers: 2").count == 1
    assert chosen(f"rate: {SINGLE_PROCESS_MSG_S // 2 + 1}/s, producers: 2").count > 1
    assert chosen(f"rate: {SINGLE_PROCESS_MSG_S // 4 + 1}/s, namespaces: 4").count > 1


def test_auto_spreads_a_high_rate_over_as_many_workers_as_its_sends_and_receipts_need() -> None:
    one_pair = chosen("rate: 20000/s")  # a producer and a consumer: no more than 2 workers can share them
    assert one_pair.count == 2 and "auto: 20,000 msg/s offered" in one_pair.why
    # 80,000 sends + 80,000 receipts a second want 11 workers; 4 producers and 2 consumers can fill 6
    many = chosen("rate: 20000/s, producers: 4, consumers: 2, subscription_type: shared")
    assert -(-160_000 // WORKER_OPERATIONS_S) == 11 and many.count == 6
    few = chosen("rate: 4000/s, producers: 8, consumers: 8, subscription_type: shared")  # 64,000 operations a second
    assert few.count == -(-64_000 // WORKER_OPERATIONS_S) == 5
    assert chosen("rate: 50000/s, producers: 16, consumers: 16, subscription_type: shared").count == MAX_PROCESSES
    assert chosen("rate: 3000/s, producers: 8").count == 4  # 24,000 sends and 24,000 receipts a second
    assert chosen("rate: 20000/s, processes: 1").count == 1  # as written
    assert chosen("rate: 20/s, processes: 3") == ProcessChoice(3, "3 as written")


def test_auto_keeps_one_process_for_what_cannot_be_spread_and_says_what_it_keeps() -> None:
    native = chosen("rate: 20000/s", provider=NATIVE)
    assert native.count == 1
    assert f"keeps about {SINGLE_PROCESS_MSG_S:,} msg/s of the 20,000 offered" in native.why
    java = chosen("rate: 20000/s", provider=AUTO.replace("}", ", probe: tcp}"), client="{kind: java}")
    assert java.count == 1 and "Java driver" in java.why
