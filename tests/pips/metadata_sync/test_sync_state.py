"""The reference synchronizer's pure core: last writer wins on origin time (never on apply time), ties per the
rule, own events and duplicates ignored, nothing republished, state that survives a restart; and, whatever the
delivery order, duplicates and restarts, every cluster ends holding what the oracle says (Hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.pips.metadata_sync import (
    TIE_RULES,
    MetadataEvent,
    MetadataWrite,
    SyncState,
    SyncStateError,
    TieRule,
    converged,
    decode,
    divergences,
    encode,
)

P = "/admin/policies/t/ns"


def event(value: bytes | None, cluster: str | None, ts: int, path: str = P, **fields: object) -> MetadataEvent:
    base: dict[str, object] = {
        "path": path,
        "value": value,
        "options": (),
        "last_updated_timestamp": ts,
        "source_cluster": cluster,
        "type": "Deleted" if value is None else "Modified",
    }
    return MetadataEvent(**{**base, **fields})  # type: ignore[arg-type]


def test_a_local_write_is_held_and_gives_the_event_to_publish() -> None:
    state = SyncState("east")
    assert state.local_write(P, b"v", 1000) == MetadataEvent(
        path=P,
        value=b"v",
        options=(),
        expected_version=None,
        last_updated_timestamp=1000,
        source_cluster="east",
        type="Modified",
        version=0,
    )
    assert state.held() == {P: b"v"}
    deletion = state.local_write(P, None, 1001)
    assert (deletion.type, deletion.value, deletion.last_updated_timestamp) == ("Deleted", None, 1001)
    assert state.held() == {}
    assert state.winners() == {P: MetadataWrite(P, None, "east", 1001)}


def test_a_newer_remote_event_is_applied_and_an_older_one_ignored_whatever_the_arrival_order() -> None:
    newer_first, older_first = SyncState("east"), SyncState("east")
    newer, older = event(b"new", "west", 20), event(b"old", "central", 10)

    decision = newer_first.receive(newer)
    assert decision.applies and decision.write == MetadataWrite(P, b"new", "west", 20)
    late = newer_first.receive(older)
    assert (late.action, late.reason, late.detail) == ("ignore", "older than what is held", "10 < 20 from west")

    assert older_first.receive(older).applies
    assert older_first.receive(newer).applies
    assert newer_first.held() == older_first.held() == {P: b"new"}


def test_a_remote_event_older_than_a_local_write_is_ignored() -> None:
    state = SyncState("east")
    state.local_write(P, b"mine", 50)
    assert state.receive(event(b"theirs", "west", 49)).reason == "older than what is held"
    assert state.receive(event(b"theirs", "west", 51)).applies
    assert state.held() == {P: b"theirs"}


@pytest.mark.parametrize(("tie", "winner"), [("pip", "region-a"), ("pulsar-4.0.8", "region-b")])
def test_a_tie_on_origin_time_goes_by_cluster_name_per_the_rule(tie: TieRule, winner: str) -> None:
    a, b = SyncState("region-a", tie), SyncState("region-b", tie)
    from_a, from_b = a.local_write(P, b"from-a", 5), b.local_write(P, b"from-b", 5)
    on_a, on_b = a.receive(from_b), b.receive(from_a)
    loser_decision, winner_decision = (on_a, on_b) if winner == "region-a" else (on_b, on_a)
    assert winner_decision.applies
    assert loser_decision.reason == "tie lost"
    assert a.held() == b.held() == {P: f"from-{winner[-1]}".encode()}


def test_a_remote_deletion_is_applied_as_a_tombstone_that_an_older_write_cannot_undo() -> None:
    state = SyncState("east")
    state.local_write(P, b"v", 1)
    decision = state.receive(event(None, "west", 2))
    assert decision.applies and decision.write is not None and decision.write.value is None
    assert state.held() == {}
    assert state.receive(event(b"stale", "central", 1)).reason == "older than what is held"
    assert state.held() == {}


def test_own_events_are_never_applied() -> None:
    state = SyncState("east")
    published = state.local_write(P, b"v", 1)
    assert state.receive(published).reason == "own event"
    assert state.receive(event(b"other", "east", 99)).reason == "own event"
    assert state.held() == {P: b"v"}


def test_the_same_event_twice_is_applied_then_ignored_as_a_duplicate() -> None:
    state = SyncState("east")
    remote = event(b"v", "west", 7)
    assert state.receive(remote).applies
    again = state.receive(decode(encode(remote)))
    assert (again.action, again.reason, again.write) == ("ignore", "duplicate", None)


@pytest.mark.parametrize(
    ("incoming", "reason"),
    [
        (event(b"v", None, 7), "no source cluster"),
        (event(b"v", "west", 7, options=("Ephemeral",)), "ephemeral/sequential"),
        (event(b"v", "west", 7, options=("Sequential", "Ephemeral")), "ephemeral/sequential"),
        (MetadataEvent(path=P, last_updated_timestamp=7, source_cluster="west", type="ChildrenChanged"), "not a write"),
        (MetadataEvent(path=P, last_updated_timestamp=7, source_cluster="west", type="Modified"), "not a write"),
        (
            MetadataEvent(path=None, value=b"v", last_updated_timestamp=7, source_cluster="west", type=None),
            "not a write",
        ),
    ],
)
def test_events_that_are_not_synced_writes_are_ignored_with_the_reason(incoming: MetadataEvent, reason: str) -> None:
    state = SyncState("east")
    decision = state.receive(incoming)
    assert (decision.action, decision.reason) == ("ignore", reason)
    assert state.winners() == {}


def test_after_a_restart_held_and_older_events_are_still_ignored() -> None:
    state = SyncState("east", tie="pulsar-4.0.8")
    state.local_write("/mine", b"\x00\xff", 3)
    applied = event(b"v", "west", 10)
    assert state.receive(applied).applies
    assert state.receive(event(None, "west", 11, path="/gone")).applies

    reloaded = SyncState.from_json(state.to_json())
    assert (reloaded.cluster, reloaded.tie) == ("east", "pulsar-4.0.8")
    assert reloaded.winners() == state.winners()
    assert reloaded.held() == {"/mine": b"\x00\xff", P: b"v"}
    assert reloaded.receive(applied).reason == "duplicate"
    assert reloaded.receive(event(b"old", "central", 9)).reason == "older than what is held"
    assert reloaded.receive(event(b"old", "central", 10, path="/gone")).reason == "older than what is held"
    assert reloaded.to_json() == state.to_json()


GOOD = {"version": 1, "cluster": "east", "tie": "pip", "held": {P: {"cluster": "west", "ts_ms": 1, "value": "dg=="}}}


def _with(**changes: object) -> str:
    return json.dumps({**GOOD, **changes})


def _entry(**changes: object) -> str:
    return _with(held={P: {**GOOD["held"][P], **changes}})  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON"),
        ("[" * 100_000, "not JSON"),
        ("[]", "a JSON object, found list"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "version"}), "unknown synchronizer state version None"),
        (_with(version=2), "unknown synchronizer state version 2"),
        (_with(version=True), "version True"),
        (_with(extra=1), "unknown synchronizer state fields: extra"),
        (_with(held=[]), "needs 'held'"),
        (_with(cluster=""), "needs 'cluster'"),
        (_with(tie="coin-flip"), "unknown tie rule 'coin-flip'"),
        (_with(held={P: "v"}), "exactly cluster, ts_ms and value"),
        (_entry(value="not base64!"), "not base64"),
        (_entry(value="é"), "not base64"),
        (_entry(value=1), "base64 or null"),
        (_entry(cluster=1), "cluster is a string"),
        (_entry(ts_ms=-1), "ts_ms"),
        (_entry(ts_ms="1"), "ts_ms"),
        (_with(held={"relative": GOOD["held"][P]}), "starts with '/'"),  # type: ignore[index]
    ],
)
def test_a_bad_saved_state_is_refused_clearly(text: str, message: str) -> None:
    with pytest.raises(SyncStateError, match=message):
        SyncState.from_json(text)


def test_a_state_needs_a_cluster_and_a_known_tie_rule() -> None:
    with pytest.raises(ValueError, match="cluster"):
        SyncState("")
    with pytest.raises(ValueError, match="unknown tie rule"):
        SyncState("east", tie="coin-flip")  # type: ignore[arg-type]


def test_clock_skew_a_local_write_made_after_seeing_a_newer_one_is_stamped_after_it() -> None:
    """A hybrid clock: east's clock is behind (5 against west's 10), but east writes after it applied west's
    write, so its write is stamped 11 and wins everywhere: every cluster ends with the write made last."""
    east, west = SyncState("east"), SyncState("west")
    newer = west.local_write(P, b"first", 10)
    assert east.receive(newer).applies
    later = east.local_write(P, b"second", 5)  # east's clock is behind
    assert later.last_updated_timestamp == 11
    assert east.held() == {P: b"second"}
    assert west.receive(later).applies
    assert west.held() == {P: b"second"}
    writes = [MetadataWrite(P, b"first", "west", 10), MetadataWrite(P, b"second", "east", 11)]
    assert converged(writes) == {P: b"second"}
    assert not divergences(writes, {"east": east.held(), "west": west.held()})


def test_clock_skew_without_the_other_write_seen_the_clocks_decide() -> None:
    """Writes made without seeing each other (a cut link) are ordered by the clocks alone: east's write, made
    later but stamped 5 by a clock behind, loses to west's 10 on both clusters, as PIP-136's rule says."""
    east, west = SyncState("east"), SyncState("west")
    newer = west.local_write(P, b"newer", 10)
    older = east.local_write(P, b"older", 5)
    assert older.last_updated_timestamp == 5
    assert east.receive(newer).applies  # the newer origin time wins on east
    assert west.receive(older).reason == "older than what is held"
    assert east.held() == west.held() == {P: b"newer"}


def test_a_local_write_keeps_its_clock_when_it_is_later_than_what_is_held() -> None:
    state = SyncState("east")
    state.local_write(P, b"a", 10)
    assert state.local_write(P, b"b", 20).last_updated_timestamp == 20
    assert state.local_write(P, b"c", 20).last_updated_timestamp == 21  # the same millisecond: one after
    assert state.local_write("/other", b"d", 3).last_updated_timestamp == 3  # per path


CLUSTERS = ("cluster-a", "cluster-b", "cluster-c")
PATHS = ("/a", "/b", "/c/d")


@st.composite
def histories(draw: st.DrawFn) -> tuple[TieRule, list[str], list[MetadataWrite]]:
    """Writes on 2-3 clusters, each cluster's clock moving forward (nondecreasing; strictly for one path, as the
    reference needs): equal times across clusters are common, deletions too."""
    tie = draw(st.sampled_from(TIE_RULES))
    clusters = list(CLUSTERS[: draw(st.integers(2, 3))])
    clock = dict.fromkeys(clusters, 0)
    last: dict[tuple[str, str], int] = {}
    writes = []
    for _ in range(draw(st.integers(0, 25))):
        cluster = draw(st.sampled_from(clusters))
        path = draw(st.sampled_from(PATHS))
        value = draw(st.none() | st.binary(max_size=3))
        ts = clock[cluster] + draw(st.integers(0, 2))
        if last.get((cluster, path)) == ts:
            ts += 1
        clock[cluster] = last[cluster, path] = ts
        writes.append(MetadataWrite(path, value, cluster, ts))
    return tie, clusters, writes


@settings(max_examples=300, deadline=None)
@given(histories(), st.data())
def test_every_cluster_converges_to_the_oracle_whatever_the_delivery(
    history: tuple[TieRule, list[str], list[MetadataWrite]], data: st.DataObject
) -> None:
    tie, clusters, writes = history
    states = {c: SyncState(c, tie) for c in clusters}
    stores: dict[str, dict[str, bytes]] = {c: {} for c in clusters}  # what each cluster's store would hold
    topic: list[bytes] = []
    for w in writes:
        topic.append(encode(states[w.cluster].local_write(w.path, w.value, w.ts_ms)))
        if w.value is None:
            stores[w.cluster].pop(w.path, None)
        else:
            stores[w.cluster][w.path] = w.value

    # Every cluster reads the whole topic (its own events included), some events more than once, in any order,
    # its synchronizer restarting now and then.
    deliveries = [(c, i) for c in clusters for i in range(len(topic))]
    if topic:
        deliveries += data.draw(st.lists(st.tuples(st.sampled_from(clusters), st.integers(0, len(topic) - 1))))
    deliveries = data.draw(st.permutations(deliveries))
    restarts = data.draw(st.sets(st.integers(0, len(deliveries))))
    applied: set[tuple[str, int]] = set()
    for step, (cluster, i) in enumerate(deliveries):
        if step in restarts:
            states[cluster] = SyncState.from_json(states[cluster].to_json())
        incoming = decode(topic[i])
        decision = states[cluster].receive(incoming)
        if incoming.source_cluster == cluster:
            assert decision.reason == "own event"
        if decision.applies:
            assert decision.write is not None
            assert (cluster, i) not in applied, "an event applied twice"
            applied.add((cluster, i))
            if decision.write.value is None:
                stores[cluster].pop(decision.write.path, None)
            else:
                stores[cluster][decision.write.path] = decision.write.value
        else:
            assert decision.write is None

    expected = converged(writes, tie)
    for cluster in clusters:
        assert states[cluster].held() == expected, cluster
        assert stores[cluster] == expected, cluster
    assert divergences(writes, stores, tie) == []
