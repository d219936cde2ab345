"""``evaluate`` on hand-built histories: verdicts come from evidence in the history, never from its absence.

Pure logic (no cluster, no Spark: the Spark-side expectations get a ``spark`` that must not be called, or a stub).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.checks import CheckResult, evaluate
from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, PROBE, SEND, Event
from pytest_pulsar_ha.history import SWITCH as SWITCHED
from pytest_pulsar_ha.run.provider import ProviderSetup
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.scenario.model import Scenario
from pytest_pulsar_ha.scenario.providers import NoProvider

S = 1_000_000_000
T0 = 1_700_000_000 * S
A, B = "cluster-a", "cluster-b"


def scenario(expect: str, faults: str = "[{kind: outage, cluster: cluster-a, at: 3s, for: 5s}]") -> Scenario:
    text = f"""
scenarios:
  - name: s
    topology: {{clusters: [cluster-a, cluster-b]}}
    provider: {{kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 500ms,
               failover_delay: 2s, switch_back_delay: 3s}}
    workload: {{topics: [{{name: t}}], rate: 10/s, duration: 20s}}
    faults: {faults}
    expect: {expect}
"""
    (case,) = parse_scenarios(text, "s.pulsar-ha.yaml")
    return case.scenario


LABEL = "#0 outage cluster-a"


def no_spark() -> Any:
    raise AssertionError("this expectation must not need Spark")


def judge(sc: Scenario, events: list[Event]) -> list[CheckResult]:
    """The scenario and the history are all the verdicts read (no environment, nemesis or provider)."""
    return evaluate(sc, events, Path("unused.jsonl"), no_spark, primary=A)


def send(at_s: float, seq: int, producer: str = "p") -> Event:
    return Event(T0 + int(at_s * S), SEND, producer, producer=producer, seq=seq)


def ack(at_s: float, seq: int, cluster: str | None, producer: str = "p") -> Event:
    return Event(T0 + int(at_s * S), ACK, producer, cluster=cluster, producer=producer, seq=seq)


def fault(at_s: float, type: str = FAULT_START, label: str = LABEL) -> Event:
    return Event(T0 + int(at_s * S), type, "nemesis", cluster=A, detail=label)


# -- no_switch -----------------------------------------------------------------------------------------------


def test_no_switch_with_nothing_acknowledged_fails() -> None:
    (result,) = judge(scenario("[{no_switch: true}]", "[]"), [send(1, 1), send(2, 2)])
    assert not result.ok
    assert "no send was acknowledged" in result.measured


def test_no_switch_with_every_ack_by_the_primary_passes() -> None:
    (result,) = judge(scenario("[{no_switch: true}]", "[]"), [send(1, 1), ack(1.1, 1, A)])
    assert result.ok, result


# -- availability --------------------------------------------------------------------------------------------


AVAILABILITY = "[{availability: {min_ratio: 0.5, ack_within: 1s}}]"


def test_an_ack_without_its_send_is_not_counted_as_on_time() -> None:
    events = [send(1, 1), send(2, 2), ack(2.1, 2, A), ack(3, 7, A), ack(3, 8, A)]  # 7 and 8 were never sent
    (result,) = judge(scenario(AVAILABILITY, "[]"), events)
    assert "(1/2)" in result.measured and "2 ack(s) without a send event" in result.measured
    strict = scenario("[{availability: {min_ratio: 0.9, ack_within: 1s}}]", "[]")
    (result,) = judge(strict, events)
    assert not result.ok


def test_a_send_acknowledged_twice_counts_once() -> None:
    events = [send(1, 1), ack(1.1, 1, A), ack(1.2, 1, B), send(2, 2)]
    (result,) = judge(scenario("[{availability: {min_ratio: 0.9, ack_within: 1s}}]", "[]"), events)
    assert not result.ok and "50.0% (1/2)" in result.measured


def test_availability_is_measured_from_the_intended_time_of_a_send_issued_late() -> None:
    """A send meant for 1 s but issued at 3 s (its producer was stuck) and acked at 3.2 s is 2.2 s late, not
    0.2 s: measuring from the send event would hide the stall (coordinated omission)."""
    late = Event(T0 + 3 * S, SEND, "p", producer="p", seq=1, detail=f'{{"intended_ns": {T0 + 1 * S}}}')
    on_time = Event(T0 + 4 * S, SEND, "p", producer="p", seq=2, detail=f'{{"intended_ns": {T0 + 4 * S}}}')
    events = [late, ack(3.2, 1, A), on_time, ack(4.1, 2, A)]
    (result,) = judge(scenario("[{availability: {min_ratio: 0.9, ack_within: 1s}}]", "[]"), events)
    assert not result.ok and "50.0% (1/2)" in result.measured
    assert "of their intended time" in result.expected


def test_availability_without_any_send_fails_even_with_min_ratio_zero() -> None:
    (result,) = judge(scenario("[{availability: {min_ratio: 0, ack_within: 1s}}]", "[]"), [ack(1, 1, A)])
    assert not result.ok and "no send" in result.measured


# -- switch / switch_back: measured from the history's fault events --------------------------------------------


SWITCH = "[{switch: {to: cluster-b, within: [0s, 2s], of: fault_start}}]"
SWITCH_BACK = "[{switch_back: {to: cluster-a, within: [0s, 2s]}}]"


def test_switch_is_measured_from_the_recorded_fault_start() -> None:
    """A stored history judged again: the nemesis recorded no times in this process, the history has them."""
    events = [fault(3), send(4, 1), ack(4.5, 1, B), fault(8, FAULT_END)]
    (result,) = judge(scenario(SWITCH), events)
    assert result.ok and result.measured == "1.50s", result


def probe(at_s: float, cluster: str, ok: bool, error: str = "") -> Event:
    detail = json.dumps({"ok": ok, "probe": "lookup", "latency_s": 0.4, "error": error})
    return Event(T0 + int(at_s * S), PROBE, "provider", cluster=cluster, detail=detail)


def test_a_late_switch_back_says_what_the_provider_saw_of_the_cluster() -> None:
    """A window missed: the failure carries the provider's probes of the target and its switches in between,
    so a provider that saw the cluster failing can be told from a client that was slow to reconnect."""
    events = [fault(3), fault(8, FAULT_END), probe(8.25, A, False, "timed out"), probe(8.75, A, False, "timed out")]
    events += [probe(9.25, A, True), probe(9.25, B, False, "refused")]
    events += [Event(T0 + int(13.3 * S), SWITCHED, "provider", cluster=A, detail="primary healthy for 4.0s")]
    events += [send(13.4, 1), ack(13.5, 1, A)]
    (result,) = judge(scenario(SWITCH_BACK), events)
    assert not result.ok and result.measured == "5.50s"
    assert result.details.splitlines() == [
        "1 probe(s) of cluster-a passed, the first at +1.25s",
        "2 probe(s) of cluster-a failed at +0.25s, +0.75s: timed out",
        "provider switched to cluster-a at +5.30s: primary healthy for 4.0s",
        "the window its settings derive: [3.200s, 3.700s]: the on-time switch S = 3.250s after the pinned fault "
        "moment, the window [S - 0.05s, S + R 0.4s + 0.05s] (check interval 0.5s)",
    ]


def test_a_missed_window_of_a_provider_without_a_model_says_none_is_derived() -> None:
    events = [fault(3), send(9, 1), ack(9.1, 1, B), fault(8, FAULT_END)]
    plain = scenario(SWITCH).model_copy(update={"provider": NoProvider(kind="none")})
    (result,) = judge(plain, events)
    assert not result.ok
    assert result.details.splitlines()[-1] == (
        "no window derived from its settings: no model of provider kind none: it has no checks to derive a switch from"
    )


def test_a_switch_in_its_window_carries_no_account() -> None:
    events = [fault(3), probe(3.25, A, False, "refused"), send(4, 1), ack(4.5, 1, B)]
    (result,) = judge(scenario(SWITCH), events)
    assert result.ok and result.details == ""


def test_switch_back_without_a_recorded_fault_end_fails_naming_it() -> None:
    events = [fault(3), send(9, 1), ack(9.1, 1, A)]  # the history has no fault_end (run cut short)
    (result,) = judge(scenario(SWITCH_BACK), events)
    assert not result.ok and "no fault_end event for fault #0" in result.measured


def test_switch_without_any_ack_by_the_target_after_the_fault_fails() -> None:
    events = [fault(3), send(4, 1), ack(4.1, 1, A), fault(8, FAULT_END)]
    (result,) = judge(scenario(SWITCH), events)
    assert not result.ok and "no send acknowledged by cluster-b after it" in result.measured


def test_an_instant_fault_has_no_end_to_measure_from() -> None:
    """A reset without `for`: the nemesis still writes a fault_end 0.2 s later; that end is not a measure."""
    instant = scenario(SWITCH, "[{kind: reset, cluster: cluster-a, at: 3s}]")
    label = "#0 reset cluster-a"
    events = [fault(3, label=label), fault(3.2, FAULT_END, label), send(3.5, 1), ack(4, 1, B), ack(4.1, 1, A)]
    (result,) = judge(instant, events)
    assert result.ok and result.measured == "1.00s", result  # measured from the start (here: a window of_start)
    # switch_back from that fault is refused by the model; a scenario built around the model still gets no pass
    forced = scenario(SWITCH_BACK).model_copy(update={"faults": instant.faults})
    (result,) = judge(forced, events)
    assert not result.ok and "fault #0 (reset) is instant" in result.measured


# -- Spark-side expectations ---------------------------------------------------------------------------------


def test_an_unknown_expectation_is_an_error_naming_the_known_ones() -> None:
    class Teleport:
        kind = "teleport"

    sc = scenario("[{no_loss: true}]", "[]").model_copy(update={"expect": (Teleport(),)})
    with pytest.raises(ValueError, match=r"teleport.*known: switch, switch_back, no_switch, availability, no_loss"):
        judge(sc, [send(1, 1), ack(1.1, 1, A)])


def test_an_unusable_history_fails_the_spark_expectations_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyspark  # noqa: F401  (a hard dependency: a broken install fails here, never skips)

    # spark_checks.checks is imported before the patch, so that its own `from .spark.load import load_history` binds
    # the real one (else the stand-in leaks into every later test)
    import spark_checks.checks
    import spark_checks.spark.load
    from spark_checks.spark.reading import HistoryInputError

    def refuse(spark: object, source: object, **kwargs: object) -> None:
        raise HistoryInputError(f"{source}: holds no events")

    monkeypatch.setattr(spark_checks.spark.load, "load_history", refuse)
    sc = scenario("[{no_loss: true}, {max_duplicates: 0}]", "[]")
    results = evaluate(sc, [], tmp_path / "history.jsonl", lambda: object(), primary=A)
    assert [(r.name, r.ok) for r in results] == [("no_loss", False), ("max_duplicates", False)]
    assert all("holds no events" in r.measured for r in results)


# -- provider events in the history ---------------------------------------------------------------------------


def test_a_switch_the_client_refused_is_in_the_history() -> None:
    from pulsar_ha_providers import EventHub, SwitchEvent, SwitchFailedEvent
    from pytest_pulsar_ha.history import SWITCH, SWITCH_FAILED, EventLog
    from pytest_pulsar_ha.run.provider import record_provider_events

    hub = EventHub()
    hub.publish(SwitchFailedEvent("cluster-a", "cluster-b", "primary down for 2.0s", "update refused", ts=10.0))
    log = EventLog()
    unsubscribe = record_provider_events(ProviderSetup(target=None, events=hub, primary=A), log)
    hub.publish(SwitchEvent("cluster-a", "cluster-b", "primary down for 2.5s", ts=10.5))
    unsubscribe()
    hub.publish(SwitchEvent("cluster-b", "cluster-a", "after the run", ts=11.0))
    events = log.snapshot()
    assert [(e.type, e.cluster, e.ts_ns) for e in events] == [  # the one from before the subscription too
        (SWITCH_FAILED, B, 10 * S),
        (SWITCH, B, int(10.5 * S)),
    ]
    assert events[0].detail == "primary down for 2.0s: update refused"


def test_every_expectation_kind_of_the_model_has_exactly_its_checker() -> None:
    from pytest_pulsar_ha.checks import CHECKERS
    from pytest_pulsar_ha.scenario.expectations import EXPECTATION_KINDS

    assert sorted(CHECKERS) == sorted(EXPECTATION_KINDS)


def test_a_checker_for_a_kind_the_model_does_not_have_is_refused() -> None:
    from pytest_pulsar_ha.checks import checker

    with pytest.raises(ValueError, match="'teleport' is not an expectation kind"):
        checker("teleport")


def test_a_second_checker_for_one_kind_is_refused() -> None:
    from pytest_pulsar_ha.checks import checker

    with pytest.raises(ValueError, match="two checkers for expectation kind 'switch'"):
        checker("switch")(lambda expectation, context: None)


def test_every_fault_kind_of_the_model_has_its_primitive() -> None:
    from pytest_pulsar_ha.nemesis.primitives import PRIMITIVES
    from pytest_pulsar_ha.scenario.faults import FAULT_KINDS

    assert list(PRIMITIVES) == list(FAULT_KINDS)
