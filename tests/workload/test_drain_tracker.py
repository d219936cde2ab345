"""The drain tracker against the obvious model (a set of acknowledged sends and a set of receipts), and its
memory bound: what it holds depends on what is in flight, not on how many sends the run made."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.workload.drain_tracker import BulkDrainTracker, DrainTracker

# An operation: (kind, producer, seq). Every send resolves exactly once (acknowledged or failed); receipts may
# come before the acknowledgement, twice, or for a failed send the broker stored anyway.
Op = tuple[str, str, int]


@st.composite
def runs(draw: st.DrawFn) -> list[Op]:
    ops: list[Op] = []
    for producer in draw(st.lists(st.sampled_from(["p0", "p1", "p2"]), min_size=1, max_size=3, unique=True)):
        for seq in range(1, draw(st.integers(1, 25)) + 1):
            outcome = draw(st.sampled_from(["ack", "ack", "ack", "fail"]))
            ops.append((outcome, producer, seq))
            for _ in range(draw(st.integers(0, 2))):
                ops.append(("recv", producer, seq))
    order = draw(st.permutations(range(len(ops))))
    return [ops[i] for i in order]


def model_all_received(ops: list[Op]) -> bool:
    acked = {(p, s) for kind, p, s in ops if kind == "ack"}
    received = {(p, s) for kind, p, s in ops if kind == "recv"}
    return acked <= received


@settings(max_examples=300, deadline=None)
@given(runs())
def test_the_tracker_agrees_with_the_sets_after_every_operation(ops: list[Op]) -> None:
    tracker = DrainTracker()
    for index, (kind, producer, seq) in enumerate(ops):
        {"ack": tracker.acknowledged, "fail": tracker.failed, "recv": tracker.received}[kind](producer, seq)
        assert tracker.all_received() == model_all_received(ops[: index + 1]), ops[: index + 1]


def test_what_it_holds_is_bounded_by_what_is_in_flight() -> None:
    tracker = DrainTracker()
    in_flight = 50
    for seq in range(1, 200_001):  # 200,000 sends, each received in_flight sends after it was acknowledged
        tracker.acknowledged("p0", seq)
        if seq > in_flight:
            tracker.received("p0", seq - in_flight)
        if seq > in_flight + 5:
            tracker.received("p0", seq - in_flight - 5)  # a duplicate: forgotten
    assert tracker.held() <= in_flight + 1
    assert not tracker.all_received()
    for seq in range(200_001 - in_flight, 200_001):
        tracker.received("p0", seq)
    assert tracker.all_received()
    assert tracker.held() == 1


def test_a_receipt_before_its_acknowledgement_counts() -> None:
    tracker = DrainTracker()
    tracker.received("p0", 1)
    assert tracker.all_received()  # nothing acknowledged yet
    tracker.acknowledged("p0", 1)
    assert tracker.all_received()
    tracker.acknowledged("p0", 2)
    assert not tracker.all_received()


def _grouped(ops: list[Op]) -> list[tuple[str, str, list[int]]]:
    """Consecutive operations of one kind and producer, as one report (what a fleet worker sends)."""
    groups: list[tuple[str, str, list[int]]] = []
    for kind, producer, seq in ops:
        if groups and groups[-1][:2] == (kind, producer):
            groups[-1][2].append(seq)
        else:
            groups.append((kind, producer, [seq]))
    return groups


@settings(max_examples=300, deadline=None)
@given(runs())
def test_the_bulk_tracker_agrees_with_the_one_by_one_tracker_after_every_report(ops: list[Op]) -> None:
    one_by_one, bulk = DrainTracker(), BulkDrainTracker()
    done = 0
    for kind, producer, seqs in _grouped(ops):
        for seq in seqs:
            {"ack": one_by_one.acknowledged, "fail": one_by_one.failed, "recv": one_by_one.received}[kind](
                producer, seq
            )
        {"ack": bulk.acknowledged, "fail": bulk.failed, "recv": bulk.received}[kind](producer, seqs)
        done += len(seqs)
        assert bulk.all_received() == one_by_one.all_received() == model_all_received(ops[:done])
        assert bulk.held() == one_by_one.held()
