"""The AutoClusterFailover decision logic on scripted probe results (pure logic, no network)."""

from __future__ import annotations

from pulsar_ha_providers.failover_policy import FailoverPolicy


def run(policy: FailoverPolicy, timeline: list[tuple[float, dict[int, bool]]]) -> list[tuple[float, int]]:
    switches = []
    for now, healthy in timeline:
        decision = policy.tick(now, healthy)
        if decision is not None:
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
