"""The PIP-188 checks and figures on hand-built histories: producers_redirected from the recorded start of the
`migrate` entry, drained_before_redirect per subscription, and the migration figures; never a pass without
evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks import CheckResult, evaluate
from pytest_pulsar_ha.checks.figures import run_figures
from pytest_pulsar_ha.history import (
    ACK,
    FAULT_END,
    FAULT_START,
    MIGRATED,
    MIGRATION_END,
    MIGRATION_START,
    RECEIVE,
    SEND,
    Event,
)
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.scenario.model import Scenario

S = 1_000_000_000
T0 = 1_700_000_000 * S
BLUE, GREEN = "blue", "green"
LABEL = "#0 migrate blue->green"


def scenario(expect: str) -> Scenario:
    text = f"""
scenarios:
  - name: s
    topology: {{clusters: [blue, green], broker_settings: {{blue: {{clusterMigrationCheckDurationSeconds: 1}}}}}}
    provider: {{kind: none, primary: blue}}
    workload: {{topics: [{{name: t}}], rate: 10/s, duration: 20s}}
    faults: [{{kind: migrate, from: blue, to: green, at: 5s}}]
    expect: {expect}
"""
    (case,) = parse_scenarios(text, "s.pulsar-ha.yaml")
    return case.scenario


def no_spark() -> Any:
    raise AssertionError("this expectation must not need Spark")


def judge(expect: str, events: list[Event]) -> list[CheckResult]:
    return evaluate(scenario(expect), events, Path("unused.jsonl"), no_spark, primary=BLUE)


def at(seconds: float) -> int:
    return T0 + int(seconds * S)


def send(t: float, seq: int) -> Event:
    return Event(at(t), SEND, "p", producer="p", seq=seq, topic="t")


def ack(t: float, seq: int, cluster: str | None) -> Event:
    return Event(at(t), ACK, "p", cluster=cluster, producer="p", seq=seq, topic="t")


def receive(t: float, seq: int, cluster: str | None, sub: str = "sub-0") -> Event:
    return Event(at(t), RECEIVE, "c", cluster=cluster, producer="p", seq=seq, topic="t", subscription=sub)


def migration(t: float) -> list[Event]:
    return [
        Event(at(t), FAULT_START, "nemesis", cluster=BLUE, detail=LABEL),
        Event(at(t), MIGRATION_START, "migration-watch", cluster=BLUE, detail=json.dumps({"to": GREEN})),
        Event(at(t + 0.01), FAULT_END, "nemesis", cluster=BLUE, detail=LABEL),
    ]


def steady_move() -> list[Event]:
    """Seq 1-4 acked and received by blue; the migration at 5 s; seq 5-6 acked by green from 5.8 s, delivered by
    green after the consumer drained blue."""
    events = []
    for seq in range(1, 5):
        events += [send(seq, seq), ack(seq + 0.01, seq, BLUE), receive(seq + 0.02, seq, BLUE)]
    events += migration(5)
    events += [send(5.5, 5), ack(5.8, 5, GREEN), receive(6.2, 5, GREEN)]
    events += [send(6.5, 6), ack(6.51, 6, GREEN), receive(6.52, 6, GREEN)]
    return sorted(events, key=lambda e: e.ts_ns)


REDIRECT = "[{producers_redirected: {to: green, within: [0s, 1s]}}]"
DRAINED = "[{drained_before_redirect: {from: blue, to: green}}]"


def test_producers_redirected_is_the_first_ack_by_green_after_the_recorded_start() -> None:
    (result,) = judge(REDIRECT, steady_move())
    assert result.ok, result
    assert result.measured == "0.80s"


def test_producers_redirected_too_late_fails() -> None:
    (result,) = judge("[{producers_redirected: {to: green, within: [0s, 500ms]}}]", steady_move())
    assert not result.ok and result.measured == "0.80s"


def test_producers_redirected_without_an_ack_by_green_fails() -> None:
    events = [e for e in steady_move() if not (e.type == ACK and e.cluster == GREEN)]
    (result,) = judge(REDIRECT, events)
    assert not result.ok and "no send acknowledged by green after it" in result.measured


def test_producers_redirected_without_the_migration_in_the_history_fails() -> None:
    events = [e for e in steady_move() if e.type not in (FAULT_START, FAULT_END)]
    (result,) = judge(REDIRECT, events)
    assert not result.ok and "no fault_start event for fault #0" in result.measured


def test_drained_before_redirect_passes_when_blue_was_drained_first() -> None:
    (result,) = judge(DRAINED, steady_move())
    assert result.ok, result
    assert result.measured.startswith("sub-0: 4 from blue, the last ")


def test_a_blue_message_received_after_the_first_from_green_fails() -> None:
    events = [e for e in steady_move() if not (e.type == RECEIVE and e.seq == 4)] + [receive(6.3, 4, BLUE)]
    (result,) = judge(DRAINED, sorted(events, key=lambda e: e.ts_ns))
    assert not result.ok
    assert "1 of blue's messages received after the first from green (e.g. p/4 +0.10s)" in result.measured


def test_a_blue_message_never_received_fails() -> None:
    events = [e for e in steady_move() if not (e.type == RECEIVE and e.seq == 3)]
    (result,) = judge(DRAINED, events)
    assert not result.ok and "1 never received (e.g. p/3)" in result.measured


def test_consumers_never_redirected_is_no_evidence() -> None:
    events = [e for e in steady_move() if not (e.type == RECEIVE and e.cluster == GREEN)]
    (result,) = judge(DRAINED, events)
    assert not result.ok and "never redirected" in result.measured


def test_a_subscription_that_never_reached_green_fails() -> None:
    events = steady_move() + [receive(t, seq, BLUE, sub="sub-1") for t, seq in ((1.5, 1), (2.5, 2))]
    (result,) = judge(DRAINED, sorted(events, key=lambda e: e.ts_ns))
    assert not result.ok and "sub-1: never received a message from green" in result.measured


def test_nothing_acknowledged_by_blue_is_no_evidence() -> None:
    events = [e for e in steady_move() if e.cluster != BLUE or e.type not in (ACK, RECEIVE)]
    (result,) = judge(DRAINED, events)
    assert not result.ok and "no send was acknowledged by blue" in result.measured


def test_migration_figures_come_from_the_history() -> None:
    events = [
        *steady_move(),
        Event(at(5.9), MIGRATED, "migration-watch", cluster=BLUE, topic="t", detail=json.dumps({"to": GREEN})),
        Event(at(6.4), MIGRATION_END, "migration-watch", cluster=BLUE, detail=json.dumps({"to": GREEN})),
    ]
    (figures,) = run_figures(events).migrations
    assert (figures.blue, figures.green) == (BLUE, GREEN)
    assert round(figures.producers_redirected_s or 0, 2) == 0.8
    assert round(figures.consumers_redirected_s or 0, 2) == 1.2
    assert figures.sent_during_move == 1  # seq 5, sent at 5.5 s, before the first ack by green
    assert figures.topics_migrated == 1 and round(figures.done_s or 0, 2) == 1.4
    assert "migration blue->green: producers redirected 0.80s, consumers 1.20s" in run_figures(events).summary()


def test_a_migration_that_never_finished_says_never() -> None:
    events = [e for e in steady_move() if e.cluster != GREEN]
    (figures,) = run_figures(events).migrations
    assert figures.producers_redirected_s is None and figures.done_s is None
    assert "producers redirected never" in figures.summary()
