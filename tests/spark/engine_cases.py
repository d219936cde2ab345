"""The histories the two engines are compared on (``test_engines.py``): every history the Spark tests hold, as
Parquet (the buckets engine reads Parquet), and random small histories with ties, nulls and redeliveries.

* the builders of ``histories.py`` and of the check tests (clean failover, a loss, a duplicate, reorders per key
  and per producer, cross-cluster interleavings, a swap in one cluster's replay, a redelivery after a restart,
  accounting with replication lag, gaps, three ack clusters, failed sends);
* every case of ``bad_histories.py`` that is a Parquet file, or a JSON Lines file the history reader can convert
  (the others hold lines no Parquet file can: they are the JSON reader's cases);
* Parquet files no writer would produce: an unknown type and a null process (written with PyArrow directly), and a
  history split over several files with ties in time across them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pytest_pulsar_ha.history import ACK, RECEIVE, SEND, SEND_ERROR, Event, arrow_schema

from .bad_histories import CASES as BAD_CASES
from .histories import MS, T0, A, B, Builder, failover_history, key_of

Make = Callable[[Path], Path | None]
"""Writes a history under a folder and returns its Parquet path (None: the case has no Parquet form)."""


def _same_cluster_reorder_among_allowed() -> Builder:
    b = Builder()
    for seq in (1, 2, 3, 4):
        b.publish(seq, "producer-0", seq, A)
    b.publish(20, "producer-0", 6, B)
    for at, seq in ((30, 1), (31, 2), (32, 6), (33, 4), (34, 3)):
        b.receive(at, "sub-1", "producer-0", seq, B)
    return b


def _swap_in_replay() -> Builder:
    b = Builder()
    for seq in range(1, 7):
        b.publish(seq, "producer-0", seq, A)
    for at, seq in enumerate((1, 2, 3, 4, 5, 6)):
        b.receive(20 + at, "sub-1", "producer-0", seq, A)
    for at, seq in enumerate((1, 2, 4, 3, 5, 6, 5, 6)):
        b.receive(40 + at, "sub-1", "producer-0", seq, B)
    return b


def _redelivery_after_restart() -> Builder:
    b = Builder()
    for seq in range(1, 21):
        b.publish(seq * 10, "producer-0", seq, A, key_of(seq))
    for seq in range(1, 11):
        b.receive(seq * 10 + 5, "sub-1", "producer-0", seq, A, key_of(seq))
    b.add(120, "fault_start", "nemesis", detail='{"fault": "kill consumer-0"}')
    for offset, seq in enumerate(list(range(6, 11)) + list(range(11, 21))):
        b.receive(300 + offset, "sub-1", "producer-0", seq, A, key_of(seq))
    return b


def _gaps() -> Builder:
    b = Builder()
    for i in range(301):
        b.publish(i * 10, "producer-0", i + 1, A)
    for i in range(101):
        b.publish(i * 10 + 1, "producer-1", i + 1, A)
    for i in range(20):
        seq, at = 102 + i, 1100 + i * 100
        b.send(at, "producer-1", seq).send_error(at + 50, "producer-1", seq)
    return b


def _builders() -> dict[str, Callable[[], Builder]]:
    from .test_checks import _interleaved, _lost_history, _swapped_key_history, _tiny
    from .test_message_frame import _reorders_among_interleavings
    from .test_no_evidence import _failed_sends

    return {
        "clean failover": failover_history,
        "short failover": lambda: failover_history(per_producer=3),
        "no consumer": lambda: failover_history(subscriptions=()),
        "one lost": _lost_history,
        "a duplicate": lambda: failover_history().receive(450, "sub-1", "producer-0", 5, A, key_of(5)),
        "swapped in one key": _swapped_key_history,
        "swapped across keys": lambda: failover_history().retime(
            RECEIVE, 86, subscription="sub-1", producer="producer-0", seq=4
        ),
        "two swaps": lambda: _swapped_key_history().retime(
            RECEIVE, 90, subscription="sub-2", producer="producer-1", seq=4
        ),
        "allowed interleaving": lambda: _interleaved(backup_cluster=B),
        "interleaving in one cluster": lambda: _interleaved(backup_cluster=A),
        "reorder among allowed": _same_cluster_reorder_among_allowed,
        "swap in a replay": _swap_in_replay,
        "redelivery after restart": _redelivery_after_restart,
        "accounting": _tiny,
        "a ghost receipt": lambda: _tiny().receive(500, "sub-1", "ghost", 9, B),
        "gaps": _gaps,
        "three ack clusters": _reorders_among_interleavings,
        "failed sends": _failed_sends,
    }


def _from_bad_case(make: Callable[[Path], Path]) -> Make:
    def parquet(folder: Path) -> Path | None:
        from pytest_pulsar_ha.history import read_events_jsonl, write_events_parquet

        path = make(folder)
        if path.suffix != ".jsonl":
            return path
        try:
            events = read_events_jsonl(path)
        except (ValueError, OSError):
            return None
        return write_events_parquet(events, folder / "history.parquet")

    return parquet


def _odd_rows(folder: Path) -> Path:
    """A clean history plus a row of unknown type and a row without process, written by PyArrow directly."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [event.to_dict() for event in failover_history(per_producer=3).events]
    rows.append({**rows[0], "type": "teleport", "producer": None, "seq": None})
    rows.append({**rows[1], "process": None})
    path = folder / "history.parquet"
    schema = pa.schema([field.with_nullable(True) for field in arrow_schema()])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def _split_with_ties(folder: Path) -> Path:
    """The reorder-among-allowed history over three files, every event at the same time: file order decides."""
    events = [Event(**{**event.to_dict(), "ts_ns": T0}) for event in _same_cluster_reorder_among_allowed().events]
    directory = folder / "history"
    directory.mkdir()
    from pytest_pulsar_ha.history import write_events_parquet

    for index in range(3):
        write_events_parquet(events[index::3], directory / f"part-{index}.parquet")
    return directory


def _written(build: Callable[[], Builder]) -> Make:
    return lambda folder: build().write(folder / "history.parquet")


def cases() -> dict[str, Make]:
    """Every held case, by name."""
    out: dict[str, Make] = {name: _written(build) for name, build in _builders().items()}
    out.update({f"bad: {case.name}": _from_bad_case(case.make) for case in BAD_CASES})
    out["unknown type and null process"] = _odd_rows
    out["ties across files"] = _split_with_ties
    return out


def random_histories(count: int, seed: int = 11) -> list[Event]:
    """``count`` small random histories in one: each with its own topic and producers (the checks never mix
    producers, and the figures are per topic), with ties in time, null clusters and keys, several acks, failed
    sends, messages never sent, duplicates and redeliveries from several clusters."""
    rng = np.random.default_rng(seed)
    events: list[Event] = []
    clusters = [A, B, "cluster-c", None]
    for index in range(count):
        topic = f"persistent://t/ns/h{index}"
        for producer in (f"p{index}-0", f"p{index}-1"):
            for seq in range(1, int(rng.integers(1, 7))):
                at = int(rng.integers(0, 8))
                key = [None, "k0", "k1"][int(rng.integers(0, 3))]
                common: dict[str, Any] = {"topic": topic, "producer": producer, "seq": seq, "key": key}
                sent = rng.random() < 0.9
                if sent:
                    events.append(Event(T0 + at * MS, SEND, producer, **common))
                    for _ in range(int(rng.integers(0, 3))):
                        cluster = clusters[int(rng.integers(0, 4))]
                        events.append(Event(T0 + (at + int(rng.integers(0, 3))) * MS, ACK, producer, cluster, **common))
                    if rng.random() < 0.1:
                        events.append(Event(T0 + (at + 2) * MS, SEND_ERROR, producer, **common))
                for _ in range(int(rng.integers(0, 4))):
                    cluster = clusters[int(rng.integers(0, 4))]
                    subscription = ["s1", "s2"][int(rng.integers(0, 2))]
                    when = T0 + (at + int(rng.integers(0, 5))) * MS
                    events.append(Event(when, RECEIVE, "consumer", cluster, subscription=subscription, **common))
    order = rng.permutation(len(events))  # file order is not time order
    return [events[i] for i in order]
