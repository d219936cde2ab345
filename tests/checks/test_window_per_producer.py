"""``switch`` / ``switch_back`` are judged per producer (#40): the slowest producer must make the window, the
fastest must not be early; a window that only the fastest met says so. Hand-built histories, pure logic."""

from __future__ import annotations

from pytest_pulsar_ha.checks.result import missed_sides
from pytest_pulsar_ha.history import FAULT_END, Event
from tests.checks.test_evaluate_evidence import A, B, ack, fault, judge, scenario, send

SWITCH = "[{switch: {to: cluster-b, within: [0s, 5s]}}]"


def two_producers(second_reaches_b_at: float | None) -> list[Event]:
    events = [fault(3), send(2, 1, "p0"), ack(2.1, 1, A, "p0"), send(2, 1, "p1"), ack(2.1, 1, A, "p1")]
    events += [send(4, 2, "p0"), ack(4.5, 2, B, "p0")]  # p0 reaches cluster-b 1.5 s after the fault's start
    events += [send(4, 2, "p1")]
    if second_reaches_b_at is not None:
        events += [ack(second_reaches_b_at, 2, B, "p1")]
    return [*events, fault(8, FAULT_END)]


def test_every_producer_inside_the_window_passes_and_the_figure_is_the_slowest() -> None:
    (result,) = judge(scenario(SWITCH), two_producers(second_reaches_b_at=6.0))
    assert result.ok, result
    assert missed_sides(result) == frozenset()
    assert result.figures["seconds"] == 3.0 and result.figures["fastest_s"] == 1.5
    assert result.figures["producers"] == 2 and result.figures["producers_reached"] == 2
    assert result.measured.startswith("3.00s (slowest p1; fastest p0 at 1.50s; 2 of 2 producers")


def test_a_window_met_only_by_the_fastest_producer_fails_and_says_so() -> None:
    (result,) = judge(scenario(SWITCH), two_producers(second_reaches_b_at=9.5))
    assert not result.ok
    assert result.figures["seconds"] == 6.5
    assert "met only by the fastest (p0 at 1.50s), not by every producer" in result.details
    assert "p1 at 6.50s: after the window" in result.details
    assert missed_sides(result) == {"late"}  # what a late mutant could have done


def test_a_producer_that_never_reached_the_target_fails_the_window() -> None:
    (result,) = judge(scenario(SWITCH), two_producers(second_reaches_b_at=None))
    assert not result.ok
    assert result.figures["producers"] == 2 and result.figures["producers_reached"] == 1
    assert "p1: no send of it acknowledged by cluster-b after the moment" in result.details
    assert "1 of 2 producers reached cluster-b" in result.measured
    assert missed_sides(result) == {"late"}


def test_the_fastest_producer_before_the_window_fails_it() -> None:
    sc = scenario("[{switch: {to: cluster-b, within: [2s, 5s]}}]")
    (result,) = judge(sc, two_producers(second_reaches_b_at=6.0))
    assert not result.ok
    assert "p0 at 1.50s: before the window" in result.details
    assert missed_sides(result) == {"early"}  # never a late mutant's doing


def test_one_producer_keeps_the_plain_figure() -> None:
    events = [fault(3), send(4, 1, "p"), ack(4.5, 1, B, "p"), fault(8, FAULT_END)]
    (result,) = judge(scenario(SWITCH), events)
    assert result.ok and result.measured == "1.50s" and result.figures["producers"] == 1


def test_a_target_that_never_acknowledged_missed_late_and_no_evidence_missed_nothing() -> None:
    events = [fault(3), send(4, 1, "p"), ack(4.5, 1, A, "p"), fault(8, FAULT_END)]
    (result,) = judge(scenario(SWITCH), events)
    assert not result.ok and missed_sides(result) == {"late"}
    (nothing,) = judge(scenario("[{switch: {to: cluster-b, within: [0s, 5s]}}]"), [send(4, 1, "p")])
    assert not nothing.ok and not nothing.evidence and missed_sides(nothing) == frozenset()
