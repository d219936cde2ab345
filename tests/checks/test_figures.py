"""RTO, switch times, stranded messages, duplicates and the switch back from a quiet end's real end, from a history
alone (synthetic histories)."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.checks.figures import run_figures
from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, RECEIVE, SEND, SWITCH, UNDO_START, Event

S = 1_000_000_000
T0 = 1_800_000_000 * S
A, B = "cluster-a", "cluster-b"


def at(seconds: float) -> int:
    return T0 + int(seconds * S)


def send(t: float, seq: int) -> Event:
    return Event(at(t), SEND, "p0", producer="p0", seq=seq, topic="t")


def ack(t: float, seq: int, cluster: str | None) -> Event:
    return Event(at(t), ACK, "p0", cluster=cluster, producer="p0", seq=seq, topic="t")


def receive(t: float, seq: int, sub: str = "s") -> Event:
    return Event(at(t), RECEIVE, "c0", producer="p0", seq=seq, topic="t", subscription=sub)


def fault(t0: float, t1: float | None, cluster: str = A, label: str = "#0 outage cluster-a") -> list[Event]:
    out = [Event(at(t0), FAULT_START, "nemesis", cluster=cluster, detail=label)]
    if t1 is not None:
        out.append(Event(at(t1), FAULT_END, "nemesis", cluster=cluster, detail=label))
    return out


def switch(t: float, to: str) -> Event:
    return Event(at(t), SWITCH, "provider", cluster=to, detail="test")


def outage_history() -> list[Event]:
    """Acks on A every 0.5 s until 5 s, an outage of A from 5 s to 15 s, a switch to B at 7 s (first ack on B at
    8 s), back to A at 19 s. Seq 8 and 9 (acked by A at 4-4.5 s) are received late, after the switch; seq 3 is
    received twice after the switch (a redelivery)."""
    events: list[Event] = []
    seq = 0
    for i in range(10):  # 0 .. 4.5 s on A
        events += [send(i * 0.5, seq), ack(i * 0.5 + 0.01, seq, A)]
        if seq not in (8, 9):
            events.append(receive(i * 0.5 + 0.02, seq))
        seq += 1
    events += fault(5, 15)
    events.append(switch(7, B))
    for i in range(20):  # 8 .. 17.5 s on B
        events += [send(8 + i * 0.5, seq), ack(8 + i * 0.5 + 0.01, seq, B), receive(8 + i * 0.5 + 0.02, seq)]
        seq += 1
    events += [receive(9.0, 8), receive(11.5, 9), receive(7.5, 3), receive(7.6, 3)]
    events.append(switch(19, A))
    return events


def test_an_outage_s_figures_are_read_from_the_acks_switches_and_receipts() -> None:
    figures = run_figures(outage_history())
    (f,) = figures.faults
    assert f.label == "#0 outage cluster-a" and f.cluster == A
    assert f.rto_s == pytest.approx(8.01 - 4.51)  # last ack before the fault 4.51 s, first after it 8.01 s
    assert f.switch_s == pytest.approx(2.0)
    assert f.switch_back_s == pytest.approx(4.0)
    assert (f.stranded, f.stranded_never_received) == (2, 0)
    assert f.stranded_max_wait_s == pytest.approx(11.5 - 7)
    assert figures.receipts == 10 - 2 + 20 + 4
    assert figures.duplicates == 2
    (caused,) = figures.duplicates_by_switch
    assert (caused.to_cluster, caused.duplicates) == (B, 2)
    assert caused.switch_at_s == pytest.approx(7.0)
    text = figures.summary()
    assert "RTO 3.50s, switch 2.00s, switch back 4.00s, stranded 2 (longest wait 4.50s)" in text
    assert "duplicates 2 of 32 receipts (6%): 2 after the switch to cluster-b at 7.0s" in text


def test_no_ack_after_the_fault_began_is_no_rto_and_unreceived_acks_are_never_received() -> None:
    events = [send(0, 0), ack(0.1, 0, A), send(1, 1), ack(1.1, 1, A), *fault(2, None), switch(3, B)]
    (f,) = run_figures(events).faults
    assert f.rto_s is None and f.switch_back_s is None
    assert (f.stranded, f.stranded_never_received, f.stranded_max_wait_s) == (2, 2, None)
    assert "RTO no ack after it began" in run_figures(events).summary()


def test_without_a_switch_nothing_is_stranded_and_the_longest_gap_inside_the_fault_is_the_rto() -> None:
    events = [ack(t, i, A) for i, t in enumerate([0, 1, 2, 6, 7, 7.5, 12])] + fault(1.5, 7.2)
    (f,) = run_figures(events).faults
    assert f.switch_s is None and f.stranded is None
    # gaps that overlap [1.5, 7.2]: 1-2, 2-6, 6-7, 7-7.5; the 7.5-12 gap begins after the fault ended
    assert f.rto_s == pytest.approx(4.0)


def test_duplicates_on_another_subscription_are_not_duplicates_and_before_any_switch_are_attributed_to_none() -> None:
    events = [receive(1, 0, "s1"), receive(1.5, 0, "s2"), receive(2, 0, "s1"), switch(3, B), receive(4, 0, "s2")]
    figures = run_figures(events)
    assert figures.duplicates == 2
    assert [(d.to_cluster, d.duplicates) for d in figures.duplicates_by_switch] == [(None, 1), (B, 1)]
    assert figures.to_dict()["duplicate_ratio"] == 0.5


def test_an_empty_history_has_no_figures() -> None:
    figures = run_figures([])
    assert (figures.receipts, figures.duplicates, figures.faults) == (0, 0, ())
    assert figures.summary() == "duplicates 0 of 0 receipts (0%)"


def test_receipts_and_duplicates_are_counted_per_delivering_cluster() -> None:
    def delivered(t: float, seq: int, cluster: str | None) -> Event:
        return Event(at(t), RECEIVE, "c0", cluster=cluster, producer="p0", seq=seq, topic="t", subscription="s")

    events = [delivered(1, 0, A), delivered(2, 1, A), switch(3, B), delivered(4, 1, B), delivered(5, 2, None)]
    figures = run_figures(events)
    assert figures.receipts_by_cluster == {A: 2, B: 1, "unknown": 1}
    assert figures.duplicates_by_cluster == {B: 1}
    assert "delivered by cluster-a 2, cluster-b 1 (1 duplicates), unknown 1" in figures.summary()


def test_a_fault_does_not_take_the_switches_of_the_fault_after_it() -> None:
    """A replication cut (no switch of its own) followed by an outage: the outage's switch and switch back are
    the outage's figures only (drawn schedules put faults one after the other)."""
    events = fault(1, 4, cluster=B, label="#0 replication_cut cluster-b->cluster-a")
    events += fault(6, 12, label="#1 outage cluster-a")
    events += [switch(8, B), switch(16, A)]
    cut, outage = run_figures(events).faults
    assert (cut.switch_s, cut.switch_back_s) == (None, None)
    assert (outage.switch_s, outage.switch_back_s) == (2.0, 4.0)


def test_a_switch_back_after_the_next_fault_began_is_not_claimed() -> None:
    events = fault(1, 4) + fault(6, 9, cluster=B, label="#1 latency cluster-b")
    events += [switch(3, B), switch(7, A)]  # back to A only once the next fault held
    first = run_figures(events).faults[0]
    assert first.switch_s == 2.0
    assert first.switch_back_s is None


def quiet_end(t0: float, undo: float, t1: float, cluster: str = A, label: str = "#0 kill cluster-a") -> list[Event]:
    """A fault with a quiet end: its undo began at ``undo``, its end was recorded once the cluster settled."""
    events = fault(t0, t1, cluster, label)
    return [*events[:1], Event(at(undo), UNDO_START, "nemesis", cluster=cluster, detail=label), *events[1:]]


def acks_on(cluster: str, times: list[float], first_seq: int) -> list[Event]:
    return [e for i, t in enumerate(times) for e in (send(t - 0.01, first_seq + i), ack(t, first_seq + i, cluster))]


def test_a_quiet_end_reports_the_switch_back_from_the_real_end_beside_the_recorded_one() -> None:
    """Killed A from 5 s; its undo began at 15 s, the cluster settled and the end was recorded at 21 s; the
    provider switched back at 24 s, A acknowledged again at 24.5 s: 3 s from the recorded end, 9.5 s from the
    real one (the quiet end's 6 s and the first ack's 0.5 s after the switch)."""
    events = acks_on(A, [1, 2, 3, 4], 0) + quiet_end(5, 15, 21) + [switch(7, B), switch(24, A)]
    events += acks_on(B, [8, 10, 12, 14, 16, 18, 20, 22], 10) + acks_on(A, [24.5, 25], 30)
    figures = run_figures(events)
    (f,) = figures.faults
    assert f.switch_back_s == pytest.approx(3.0)
    assert f.quiet_end_s == pytest.approx(6.0)
    assert f.switch_back_from_real_end_s == pytest.approx(9.5)
    assert "switch 2.00s, switch back 3.00s (9.50s from the real end)" in figures.summary()
    stored_faults = figures.to_dict()["faults"]  # verdict.json's figures
    assert isinstance(stored_faults, tuple)
    (stored,) = stored_faults
    assert stored["switch_back_from_real_end_s"] == pytest.approx(9.5) and stored["quiet_end_s"] == pytest.approx(6)


def test_without_an_undo_start_there_is_no_figure_from_the_real_end() -> None:
    figures = run_figures(outage_history())
    (f,) = figures.faults
    assert (f.quiet_end_s, f.switch_back_from_real_end_s) == (None, None)
    assert "switch back 4.00s, stranded" in figures.summary() and "real end" not in figures.summary()


def test_a_cluster_that_never_acknowledges_again_has_no_switch_back_from_the_real_end_and_says_so() -> None:
    events = acks_on(A, [1, 2], 0) + quiet_end(3, 10, 14) + [switch(4, B)] + acks_on(B, [5, 9, 12, 16, 20], 10)
    figures = run_figures(events)
    (f,) = figures.faults
    assert f.quiet_end_s == pytest.approx(4.0)
    assert (f.switch_back_s, f.switch_back_from_real_end_s) == (None, None)
    assert (
        "switch back none (none from the real end: cluster-a acknowledged no send after the undo began)"
        in figures.summary()
    )


def test_two_quiet_ends_each_count_from_their_own_undo_and_before_the_next_fault() -> None:
    """#0 kills A (undo 8 s, end 11 s), A acknowledges again at 12.5 s; #1 kills B (undo 26 s, end 28 s), B
    acknowledges at 30.5 s. Each undo_start pairs with its own fault by label. In a second history A acknowledges
    again only after #1 began: not #0's switch back (as for the switch back itself)."""
    first, second = "#0 kill cluster-a", "#1 kill cluster-b"
    events = quiet_end(2, 8, 11, A, first) + quiet_end(20, 26, 28, B, second)
    events += acks_on(B, [3, 6, 9], 0) + acks_on(A, [12.5, 15, 21, 27], 10) + acks_on(B, [30.5], 20)
    zero, one = run_figures(events).faults
    assert (zero.label, zero.quiet_end_s, zero.switch_back_from_real_end_s) == (first, 3.0, 4.5)
    assert (one.label, one.quiet_end_s, one.switch_back_from_real_end_s) == (second, 2.0, 4.5)

    late = quiet_end(2, 8, 11, A, first) + quiet_end(20, 26, 28, B, second) + acks_on(A, [21], 0)
    zero, one = run_figures(late).faults
    assert zero.switch_back_from_real_end_s is None and one.switch_back_from_real_end_s is None
