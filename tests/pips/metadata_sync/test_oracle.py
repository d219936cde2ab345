"""The PIP-136 oracle: last writer wins on origin time, ties by cluster name (the PIP's way and 4.0.8's), deletions
as tombstones; the result depends on the set of writes, never on their order (Hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_pulsar_ha.pips.metadata_sync import MetadataWrite, converged, divergences, winners

P = "/admin/policies/t/ns"


def w(value: str | None, cluster: str, ts: int, path: str = P) -> MetadataWrite:
    return MetadataWrite(path, None if value is None else value.encode(), cluster, ts)


def test_the_latest_origin_time_wins_whatever_the_cluster() -> None:
    assert converged([w("old", "a", 1), w("new", "b", 2)]) == {P: b"new"}
    assert converged([w("new", "b", 2), w("old", "a", 1)]) == {P: b"new"}


def test_a_tie_goes_to_the_smaller_cluster_name_as_the_pip_says() -> None:
    assert converged([w("from-a", "region-a", 5), w("from-b", "region-b", 5)]) == {P: b"from-a"}


def test_pulsar_4_0_8_breaks_the_tie_the_other_way() -> None:
    writes = [w("from-a", "region-a", 5), w("from-b", "region-b", 5)]
    assert converged(writes, tie="pulsar-4.0.8") == {P: b"from-b"}


def test_a_later_deletion_removes_the_path_and_a_later_write_brings_it_back() -> None:
    assert converged([w("v", "a", 1), w(None, "b", 2)]) == {}
    assert converged([w("v", "a", 1), w(None, "b", 2), w("again", "a", 3)]) == {P: b"again"}


def test_divergences_name_each_cluster_and_path_that_differs() -> None:
    writes = [w("1", "a", 1), w("2", "a", 2), w("x", "b", 1, path="/other")]
    held = {"a": {P: b"2", "/other": b"x"}, "b": {P: b"1"}}
    assert [d.describe() for d in divergences(writes, held)] == [
        "b /admin/policies/t/ns: expected '2', found '1'",
        "b /other: expected 'x', found absent",
    ]
    held["b"] = {P: b"2", "/other": b"x"}
    assert divergences(writes, held) == []


def test_a_path_that_must_be_absent_but_is_there_diverges() -> None:
    (found,) = divergences([w("v", "a", 1), w(None, "a", 2)], {"b": {P: b"v"}})
    assert found.describe() == f"b {P}: expected absent, found 'v'"


@pytest.mark.parametrize(
    ("path", "cluster", "ts", "message"),
    [
        ("relative", "a", 1, "starts with '/'"),
        ("/p", "", 1, "origin cluster"),
        ("/p", "a", -1, "ts_ms"),
        ("/p", "a", True, "ts_ms"),
    ],
)
def test_a_malformed_write_is_refused(path: str, cluster: str, ts: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MetadataWrite(path, b"v", cluster, ts)


def test_an_unknown_tie_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tie rule"):
        converged([w("v", "a", 1)], tie="coin-flip")  # type: ignore[arg-type]


writes_strategy = st.lists(
    st.builds(
        MetadataWrite,
        path=st.sampled_from(["/a", "/b", "/c/d"]),
        value=st.one_of(st.none(), st.binary(max_size=4)),
        cluster=st.sampled_from(["cluster-a", "cluster-b", "cluster-c"]),
        ts_ms=st.integers(0, 5),
    ),
    max_size=30,
)


@given(writes_strategy, st.randoms(use_true_random=False), st.sampled_from(["pip", "pulsar-4.0.8"]))
def test_the_result_does_not_depend_on_the_order_writes_arrive_in(writes, rnd, tie) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(writes)
    rnd.shuffle(shuffled)
    assert converged(writes, tie) == converged(shuffled, tie)


@given(writes_strategy, writes_strategy, st.sampled_from(["pip", "pulsar-4.0.8"]))
def test_merging_in_two_steps_is_merging_at_once(first, second, tie) -> None:  # type: ignore[no-untyped-def]
    """What a cluster kept of the first writes (each path's winner, deletions included), then the rest: the same
    end state as all writes at once (the rule is associative)."""
    kept = list(winners(first, tie).values())
    assert converged(kept + second, tie) == converged(first + second, tie)


@given(writes_strategy)
def test_a_winner_is_one_of_the_writes_of_its_path(writes) -> None:  # type: ignore[no-untyped-def]
    for path, value in converged(writes).items():
        assert any(wr.path == path and wr.value == value for wr in writes)
