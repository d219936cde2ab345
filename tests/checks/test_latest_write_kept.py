"""``latest_write_kept`` on hand-built histories: the last write by the harness's clock, whatever origin times the
clusters stamped; the skew each cluster's stamps show; never a pass without evidence."""

from __future__ import annotations

from pytest_pulsar_ha.history import Event
from tests.checks.test_metadata_checks import A, B, published, read, write
from tests.checks.test_metadata_checks import judge as judge_any


def judge(events: list[Event]) -> tuple[bool, str]:
    result = judge_any("[latest_write_kept: true]", events, "[cluster-b, cluster-a]")
    return result.ok, result.measured


def figures(events: list[Event]) -> dict[str, float]:
    return dict(judge_any("[latest_write_kept: true]", events, "[cluster-b, cluster-a]").figures)


def b_ahead_then_a(final_a: int, final_b: int) -> list[Event]:
    """cluster-b writes first with its clock 30 s ahead, cluster-a writes a second later on the host's clock."""
    return [
        write(1, B, 1001),
        published(1.1, B, B, 31.05, 1001),
        published(1.2, A, B, 31.05, 1001),
        write(2, A, 1002),
        published(2.1, A, A, 2.01, 1002),
        published(2.2, B, A, 2.01, 1002),
        read(5, A, final_a, final=True),
        read(5, B, final_b, final=True),
    ]


def test_every_cluster_holding_the_last_write_made_passes_and_names_the_skew() -> None:
    ok, measured = judge(b_ahead_then_a(1002, 1002))
    assert ok, measured
    assert "every cluster holds the last write, 1002 by cluster-a at +1.0s" in measured
    assert "cluster-a +0.0s, cluster-b +30.0s" in measured
    assert figures(b_ahead_then_a(1002, 1002)) == {"paths_not_kept": 0, "skew_s": 30.0}


def test_a_cluster_keeping_an_earlier_write_with_a_later_stamp_fails() -> None:
    ok, measured = judge(b_ahead_then_a(1002, 1001))
    assert not ok
    assert "the last write was 1002 by cluster-a at +1.0s; cluster-b holds 1001" in measured
    assert figures(b_ahead_then_a(1002, 1001)) == {"paths_not_kept": 1, "skew_s": 30.0}


def test_the_order_is_the_harnesss_not_the_origin_times() -> None:
    """What last_writer_wins would call right (the later origin time, 1001) is wrong here."""
    ok, _ = judge(b_ahead_then_a(1001, 1001))
    assert not ok


def test_no_write_or_no_final_read_is_no_evidence() -> None:
    ok, measured = judge([read(5, A, 1, final=True)])
    assert not ok and "no successful metadata write: no evidence" in measured
    ok, measured = judge([write(1, A, 1001)])
    assert not ok and "no cluster was read at the end: no evidence" in measured
    assert not judge_any("[latest_write_kept: true]", [write(1, A, 1001)], "[cluster-b, cluster-a]").evidence


def test_overlapping_last_writes_give_no_order() -> None:
    events = [write(1, B, 1001), write(1.02, A, 1002), read(5, A, 1002, final=True), read(5, B, 1002, final=True)]
    ok, measured = judge(events)
    assert not ok
    assert "the last two writes overlapped (1001 by cluster-b, 1002 by cluster-a)" in measured
    assert not judge_any("[latest_write_kept: true]", events, "[cluster-b, cluster-a]").evidence  # no order: none


def test_writes_never_seen_published_leave_the_clocks_unknown() -> None:
    events = [write(1, A, 1001), read(5, A, 1001, final=True), read(5, B, 1001, final=True)]
    ok, measured = judge(events)
    assert ok
    assert "so the clusters' clocks are not known" in measured
    assert "skew_s" not in figures(events)
