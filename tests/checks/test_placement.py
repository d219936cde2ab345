"""The placement and reassigned expectations, judged on made-up histories (no clusters)."""

from __future__ import annotations

import json

from pytest_pulsar_ha.checks.placement import (
    FaultWindow,
    ack_broker,
    judge_placement,
    judge_reassigned,
)
from pytest_pulsar_ha.history import ACK, PROBE, Event
from pytest_pulsar_ha.pips.failure_domains import BundlePlacement, GroupPlacement
from pytest_pulsar_ha.pips.placement_watch import WATCH_PROCESS, placement_detail, placement_from_detail
from pytest_pulsar_ha.scenario.expectations import PlacementSpec, ReassignedSpec
from pytest_pulsar_ha.scenario.quantities import Duration

S = 1_000_000_000
T0 = 1_700_000_000 * S
DOMAINS = {"rack-1": ["b0", "b1"], "rack-2": ["b2", "b3"]}
ALL = ("b0", "b1", "b2", "b3")


def placement(owners: dict[str, str | None], active: tuple[str, ...] = ALL) -> GroupPlacement:
    domain_of = {b: d for d, bs in DOMAINS.items() for b in bs}
    bundles = tuple(
        BundlePlacement(ns, "0x00000000_0xffffffff", owner, domain_of.get(owner) if owner else None)
        for ns, owner in owners.items()
    )
    return GroupPlacement("payments", tuple(owners), bundles, DOMAINS, active)


SPREAD = {"t/ns-0": "b0", "t/ns-1": "b1", "t/ns-2": "b2", "t/ns-3": "b3"}


def reading(at: float, p: GroupPlacement) -> Event:
    return Event(T0 + int(at * S), PROBE, WATCH_PROCESS, cluster="cluster-a", detail=placement_detail(p))


def owner(at: float, topic: str, broker: str | None) -> Event:
    detail = {"probe": "owner", "ok": broker is not None, "broker": broker}
    return Event(T0 + int(at * S), PROBE, WATCH_PROCESS, cluster="cluster-a", topic=topic, detail=json.dumps(detail))


def ack(at: float, topic: str, seq: int) -> Event:
    return Event(
        T0 + int(at * S),
        ACK,
        "p",
        cluster="cluster-a",
        topic=f"persistent://{topic}",
        producer="p",
        seq=seq,
        message_id="1:2:-1",
    )


def test_a_placement_reading_round_trips_through_the_history() -> None:
    p = placement(SPREAD)
    assert placement_from_detail(placement_detail(p)) == p


def test_one_namespace_per_broker_over_two_domains_holds() -> None:
    assert placement(SPREAD).spread_problems() == []


def test_three_namespaces_in_one_domain_is_uneven() -> None:
    problems = placement({**SPREAD, "t/ns-2": "b0"}).spread_problems()
    assert problems == ["namespaces per live domain are uneven: {'rack-1': 3, 'rack-2': 1}"]


def test_two_namespaces_on_one_broker_of_a_domain_is_uneven() -> None:
    problems = placement({**SPREAD, "t/ns-1": "b0", "t/ns-3": "b2"}).spread_problems()
    assert "namespaces per live broker in rack-1 are uneven: {'b0': 2, 'b1': 0}" in problems


def test_after_a_domain_outage_only_the_live_domain_counts() -> None:
    moved = {"t/ns-0": "b2", "t/ns-1": "b3", "t/ns-2": "b2", "t/ns-3": "b3"}
    assert placement(moved, active=("b2", "b3")).spread_problems() == []
    piled = {**moved, "t/ns-1": "b2", "t/ns-3": "b2"}
    assert placement(piled, active=("b2", "b3")).spread_problems() == [
        "namespaces per live broker in rack-2 are uneven: {'b2': 4, 'b3': 0}"
    ]


def test_the_figures_say_how_far_apart_the_domains_and_the_brokers_of_one_domain_are() -> None:
    # CI, 4.2.4: rack-1 down, both of its namespaces went to one broker of rack-2 (3 against 1)
    spec, fault = PlacementSpec(group="payments"), FaultWindow(T0 + 10 * S, T0 + 30 * S, ("b0", "b1"))
    piled = {"t/ns-0": "b3", "t/ns-1": "b3", "t/ns-2": "b2", "t/ns-3": "b3"}
    events = [reading(1, placement(SPREAD)), reading(20, placement(piled, ("b2", "b3")))]
    verdict = judge_placement(spec, "cluster-a", events, fault)
    assert not verdict.ok
    assert verdict.figures == {"rule_breaks": 1, "domain_spread": 0, "broker_spread": 2}
    even = {"t/ns-0": "b2", "t/ns-1": "b3", "t/ns-2": "b2", "t/ns-3": "b3"}
    verdict = judge_placement(spec, "cluster-a", [events[0], reading(20, placement(even, ("b2", "b3")))], fault)
    assert verdict.ok and verdict.figures == {"rule_breaks": 0, "domain_spread": 0, "broker_spread": 0}


def test_an_unowned_bundle_is_a_problem() -> None:
    problems = placement({**SPREAD, "t/ns-3": None}).spread_problems()
    assert "t/ns-3 bundle 0x00000000_0xffffffff has no owner" in problems


def test_placement_judges_the_readings_before_and_while_the_fault_held() -> None:
    spec = PlacementSpec(group="payments")
    fault = FaultWindow(T0 + 10 * S, T0 + 30 * S, ("b0",))
    good_after = {**SPREAD, "t/ns-0": "b1"}
    events = [reading(1, placement(SPREAD)), reading(20, placement(good_after, ("b1", "b2", "b3")))]
    verdict = judge_placement(spec, "cluster-a", events, fault)
    assert verdict.ok, verdict.measured
    bad_after = {**SPREAD, "t/ns-0": "b2"}  # moved to the other domain: rack-2 holds 3
    verdict = judge_placement(
        spec, "cluster-a", [events[0], reading(20, placement(bad_after, ("b1", "b2", "b3")))], fault
    )
    assert not verdict.ok
    assert "while the fault held: rack-1: 1; rack-2: 3 (namespaces per live domain are uneven" in verdict.measured


def test_placement_without_a_reading_while_the_fault_held_fails() -> None:
    fault = FaultWindow(T0 + 10 * S, T0 + 30 * S, ("b0",))
    verdict = judge_placement(PlacementSpec(group="payments"), "cluster-a", [reading(1, placement(SPREAD))], fault)
    assert not verdict.ok and "while the fault held: no reading" in verdict.measured


def test_placement_without_any_reading_fails() -> None:
    verdict = judge_placement(PlacementSpec(group="payments"), "cluster-a", [], None)
    assert not verdict.ok and "no placement reading" in verdict.measured


def test_an_ack_is_attributed_only_when_the_readings_around_it_agree() -> None:
    readings = [(1 * S, "b0"), (2 * S, "b0"), (3 * S, "b1"), (4 * S, None), (5 * S, "b1")]
    assert ack_broker(readings, int(1.5 * S)) == "b0"
    assert ack_broker(readings, int(2.5 * S)) is None  # owner changed in between
    assert ack_broker(readings, int(3.5 * S)) is None  # a failed reading after it
    assert ack_broker(readings, int(6 * S)) is None  # no reading after it
    assert ack_broker(readings, int(0.5 * S)) is None  # none before it


def _reassigned_history(moved_at: float) -> list[Event]:
    events = []
    for i in range(0, 40):
        at = i * 0.5
        events.append(owner(at, "t/ns-0/payments", "b0" if at < moved_at else "b1"))
        events.append(owner(at, "t/ns-2/payments", "b2"))
    seq = 0
    for i in range(0, 38):
        at = i * 0.5 + 0.25
        if not 10 <= at < moved_at + 0.5:  # the killed broker's topic is not acknowledged while it moves
            seq += 1
            events.append(ack(at, "t/ns-0/payments", seq))
        events.append(ack(at, "t/ns-2/payments", 1000 + i))
    return events


def test_reassigned_measures_the_first_ack_by_a_surviving_broker() -> None:
    fault = FaultWindow(T0 + 10 * S, T0 + 19 * S, ("b0",))
    verdict = judge_reassigned(ReassignedSpec(within=Duration("10s")), _reassigned_history(15), fault)
    assert verdict.ok, verdict.measured
    assert "t/ns-0/payments: first ack by surviving broker b1 after 5.75s" in verdict.details
    assert "t/ns-2/payments: first ack by surviving broker b2 after 0.25s" in verdict.details
    too_slow = judge_reassigned(ReassignedSpec(within=Duration("5s")), _reassigned_history(15), fault)
    assert not too_slow.ok and too_slow.measured.startswith("slowest topic 5.75s")


def test_reassigned_fails_when_a_topic_is_never_served_by_a_survivor() -> None:
    fault = FaultWindow(T0 + 10 * S, T0 + 19 * S, ("b0",))
    verdict = judge_reassigned(ReassignedSpec(within=Duration("60s")), _reassigned_history(99), fault)
    assert not verdict.ok
    assert verdict.measured == "1 of 2 topics never served by a surviving broker: t/ns-0/payments"


def test_reassigned_without_the_fault_start_fails() -> None:
    verdict = judge_reassigned(ReassignedSpec(within=Duration("60s")), _reassigned_history(15), FaultWindow(None, None))
    assert not verdict.ok and "no fault_start event" in verdict.measured


def test_the_reading_while_the_fault_held_is_one_without_the_hit_brokers() -> None:
    """Seen on real brokers: the fault's end is recorded once the killed brokers are healthy again; a broker
    started first comes back empty and active while the other is still starting, so the last reading before the
    recorded end shows its domain live and empty. Only readings without any hit broker active count."""
    spec = PlacementSpec(group="payments")
    fault = FaultWindow(T0 + 10 * S, T0 + 60 * S, ("b0", "b1"))
    moved = {"t/ns-0": "b2", "t/ns-1": "b3", "t/ns-2": "b2", "t/ns-3": "b3"}
    events = [
        reading(1, placement(SPREAD)),
        reading(30, placement(moved, active=("b2", "b3"))),
        reading(50, placement(moved, active=("b0", "b2", "b3"))),  # b0 restarted, b1 not yet
    ]
    verdict = judge_placement(spec, "cluster-a", events, fault)
    assert verdict.ok, verdict.measured
    assert "while the fault held: rack-1: 0; rack-2: 4" in verdict.measured
