"""The AutoClusterFailover decision logic on scripted probe results (pure logic, no network)."""

from __future__ import annotations

from pulsar_ha_providers.failover_policy import FailoverPolicy


def run(policy: FailoverPolicy, timeline: list[tuple[float, dict[int, bool]]]) -> list[tuple[float, int]]:
    switches = []
    for now, healthy in timeline:
        decision = policy.tick(now, healthy)
        if decision is not None:
            policy.commit(decision)  # the client took the switch
            switches.append((now, decision.target))
    return switches


def ticks(start: float, end: float, healthy: dict[int, bool], step: float = 1.0) -> list[tuple[float, dict[int, bool]]]:
    out, now = [], start
    while now < end:
        out.append((now, dict(healthy)))
        now += step
    return out


def test_switches_only_after_the_primary_failed_for_the_failover_delay() -> None:
    policy = FailoverPolicy(2, failover_delay=3, switch_back_delay=5)
    timeline = ticks(0, 5, {0: True, 1: True}) + ticks(5, 12, {0: False, 1: True})
    assert run(policy, timeline) == [(8, 1)]  # first failure seen at 5, 3 s later


def test_no_healthy_secondary_means_no_switch_and_keeps_trying() -> None:
    policy = FailoverPolicy(3, failover_delay=2, switch_back_delay=5)
    timeline = ticks(0, 10, {0: False, 1: False, 2: False}) + ticks(10, 12, {0: False, 1: False, 2: True})
    assert run(policy, timeline) == [(10, 2)]


def test_secondaries_are_tried_in_order() -> None:
    policy = FailoverPolicy(3, failover_delay=0, switch_back_delay=5)
    assert run(policy, [(0, {0: False, 1: False, 2: True})]) == [(0, 2)]
    policy = FailoverPolicy(3, failover_delay=0, switch_back_delay=5)
    assert run(policy, [(0, {0: False, 1: True, 2: True})]) == [(0, 1)]


def test_switch_back_after_the_primary_is_healthy_for_the_delay() -> None:
    policy = FailoverPolicy(2, failover_delay=1, switch_back_delay=4)
    timeline = ticks(0, 3, {0: False, 1: True}) + ticks(3, 10, {0: True, 1: True})
    assert run(policy, timeline) == [(1, 1), (7, 0)]


def test_a_flapping_primary_restarts_the_switch_back_clock() -> None:
    policy = FailoverPolicy(2, failover_delay=1, switch_back_delay=4)
    timeline = ticks(0, 2, {0: False, 1: True})  # switch at 1
    flapping = [(2.0 + i, {0: i % 3 != 2, 1: True}) for i in range(12)]  # up, up, down, up, up, down ...
    assert run(policy, timeline + flapping) == [(1, 1)]
    assert policy.current == 1
    steady = ticks(14, 20, {0: True, 1: True})
    assert run(policy, steady) == [(18, 0)]


def test_active_secondary_dying_moves_to_the_next_healthy_one() -> None:
    policy = FailoverPolicy(3, failover_delay=2, switch_back_delay=5)
    timeline = ticks(0, 3, {0: False, 1: True, 2: True}) + ticks(3, 8, {0: False, 1: False, 2: True})
    assert run(policy, timeline) == [(2, 1), (5, 2)]


def test_active_secondary_dying_while_primary_recovers_goes_back_to_primary() -> None:
    policy = FailoverPolicy(3, failover_delay=1, switch_back_delay=2)
    timeline = ticks(0, 2, {0: False, 1: True, 2: True}) + ticks(2, 6, {0: True, 1: False, 2: True})
    assert run(policy, timeline) == [(1, 1), (4, 0)]


def test_a_short_blip_below_the_delay_does_not_switch() -> None:
    policy = FailoverPolicy(2, failover_delay=3, switch_back_delay=5)
    timeline = ticks(0, 2, {0: True, 1: True}) + ticks(2, 4, {0: False, 1: True}) + ticks(4, 20, {0: True, 1: True})
    assert run(policy, timeline) == []


# -- timing: the first tick at or after the delay, measured from the first failing tick's scheduled time ------


def failing_from(t0: float, times: list[float], delay: float = 2.0) -> list[float]:
    policy = FailoverPolicy(2, failover_delay=delay, switch_back_delay=delay)
    return [now for now, _ in run(policy, [(now, {0: False, 1: True}) for now in [t0, *times]])]


def test_the_switch_is_on_the_fifth_failing_tick_of_a_half_second_clock() -> None:
    t0 = 1000.0
    ticks_ = [t0 + 0.5 * k for k in range(1, 8)]
    assert failing_from(t0, ticks_) == [t0 + 2.0]


def test_clock_jitter_below_the_tolerance_does_not_cost_a_whole_interval() -> None:
    t0 = 1000.0
    jittered = [t0 + 0.4999, t0 + 1.0001, t0 + 1.4998, t0 + 1.9995, t0 + 2.5002]
    assert failing_from(t0, jittered) == [t0 + 1.9995]


def test_accumulated_float_steps_land_on_the_delay() -> None:
    """0.2 s steps summed 10 times from 0 are 1.9999999999999998 s, not 2.0: still the 10th failing tick."""
    now, times = 0.0, []
    for _ in range(12):
        now += 0.2
        times.append(now)
    assert times[9] - 0.0 < 2.0  # the premise: float accumulation falls just short
    assert failing_from(0.0, times) == [times[9]]


def test_a_tick_clearly_before_the_delay_does_not_switch() -> None:
    t0 = 1000.0
    assert failing_from(t0, [t0 + 1.5, t0 + 1.98]) == []


def test_switch_back_is_on_the_first_tick_at_the_switch_back_delay_with_jitter() -> None:
    policy = FailoverPolicy(2, failover_delay=0.0, switch_back_delay=2.0)
    timeline = [(0.0, {0: False, 1: True}), (0.5, {0: True, 1: True}), (1.0, {0: True, 1: True})]
    timeline += [(1.5, {0: True, 1: True}), (2.0, {0: True, 1: True}), (2.4996, {0: True, 1: True})]
    assert run(policy, timeline) == [(0.0, 1), (2.4996, 0)]


def test_a_decision_is_not_committed_until_the_caller_says_so() -> None:
    policy = FailoverPolicy(2, failover_delay=0.0, switch_back_delay=5.0)
    decision = policy.tick(0.0, {0: False, 1: True})
    assert decision is not None and decision.target == 1
    assert policy.current == 0, "tick decides; only commit() records the switch"
    again = policy.tick(0.5, {0: False, 1: True})
    assert again is not None and again.target == 1  # the refused switch is decided again
    policy.commit(again)
    assert policy.current == 1
