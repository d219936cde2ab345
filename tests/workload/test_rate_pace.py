"""A workload that cannot keep its offered rate says so: the open loop notes how late it issued each send."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.history import EventLog
from pytest_pulsar_ha.workload.plan import LATE_S, RatePace, WorkloadPlan
from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload


def _plan() -> WorkloadPlan:
    return WorkloadPlan(["persistent://t/ns/x"], 2, 0, "exclusive", 0, 500.0, 100, 10.0, False, 30_000, 1)


def test_a_producer_with_more_than_one_percent_late_sends_fell_behind() -> None:
    workload = SingleProcessWorkload(client=None, plan=_plan(), log=EventLog())
    on_time, behind = RatePace(), RatePace()
    for index in range(1000):
        on_time.issued(0.001 if index % 200 else LATE_S + 0.1)  # 5 late of 1000: within 1%
        behind.issued(0.0 if index % 50 else 1.7)  # 20 late of 1000
    workload._pace = {"producer-0": on_time, "producer-1": behind}
    assert workload.rate_shortfalls() == [
        "producer-1 could not keep 500 msg/s: 20 of 1000 sends were issued more than 0.5s after their intended "
        "time (at most 1.70s): the driver fell behind"
    ]


@settings(max_examples=300, deadline=None)
@given(
    first=st.integers(0, 10_000),
    count=st.integers(0, 3_000),
    rate=st.floats(0.5, 100_000.0),
    elapsed=st.floats(0.0, 20.0),
    before=st.floats(0.0, 3.0),
)
def test_a_range_of_sends_counts_as_the_same_sends_one_by_one(
    first: int, count: int, rate: float, elapsed: float, before: float
) -> None:
    """The fleet notes a pass of sends at once; its figures are those of noting each send."""
    one_by_one, at_once = RatePace(), RatePace()
    for pace in (one_by_one, at_once):
        pace.issued(before)  # figures from earlier passes
    for index in range(first, first + count):
        one_by_one.issued(elapsed - index / rate)
    at_once.issued_range(first, first + count, elapsed, rate)
    assert (at_once.sends, at_once.late, at_once.max_lag_s) == (one_by_one.sends, one_by_one.late, one_by_one.max_lag_s)
