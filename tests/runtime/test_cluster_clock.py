"""A cluster's clock (:mod:`pytest_pulsar_ha.runtime.clock`): the offset file and the variables that
make a process read it, and, on real clusters, the brokers' wall clock following the file while their timeouts
keep the host's pace."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_pulsar_ha.runtime.clock import (
    LIBRARY_ENV,
    ClusterClock,
    offset_text,
    parse_offset,
    served_offset_s,
)
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment


def test_the_offset_round_trips_through_libfakes_format() -> None:
    assert offset_text(30) == "+30.000000"
    assert offset_text(-1.5) == "-1.500000"
    assert parse_offset("+30\n") == 30.0
    assert parse_offset(offset_text(-0.25)) == -0.25
    assert parse_offset("") == 0.0
    with pytest.raises(ValueError, match=r"signed number of seconds \(e.g. \+30\), found '\+3d'"):
        parse_offset("+3d")


def test_now_follows_the_offset_and_a_missing_file_is_the_hosts_clock(tmp_path: Path) -> None:
    clock = ClusterClock(tmp_path / "cluster-a")
    assert clock.offset_s() == 0.0
    assert abs(clock.now_ms() - time.time() * 1000) < 1000
    clock.set_offset(30)
    assert clock.file.read_text() == "+30.000000\n"
    assert clock.offset_s() == 30.0
    assert 29_000 < clock.now_ms() - time.time() * 1000 < 31_000
    assert not list(clock.file.parent.glob("*.partial"))  # written whole, then renamed


def test_processes_preload_the_library_only_where_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = tmp_path / "libfaketime.so.1"
    library.write_bytes(b"")
    monkeypatch.setenv(LIBRARY_ENV, str(library))
    clock = ClusterClock(tmp_path / "cluster-a")
    env = clock.env()
    assert clock.controlled
    assert env["LD_PRELOAD"] == str(library)
    assert env["FAKETIME_TIMESTAMP_FILE"] == str(clock.file)
    assert clock.file.read_text() == "+0.000000\n"  # the file exists before the process reads it
    assert env["FAKETIME_DONT_FAKE_MONOTONIC"] == "1" and env["FAKETIME_FORCE_MONOTONIC_FIX"] == "0"

    monkeypatch.setenv(LIBRARY_ENV, str(tmp_path / "missing.so"))
    missing = ClusterClock(tmp_path / "cluster-b")
    assert not missing.controlled
    assert missing.env() == {}
    assert "apt-get install libfaketime" in missing.why_not_controlled()


def _wait_served(read: Callable[[], float], want: float, within: float = 10.0) -> float:
    deadline = time.monotonic() + within
    while True:
        seen = read()
        if abs(seen - want) <= 1.5 or time.monotonic() > deadline:
            return seen
        time.sleep(0.5)


@pytest.mark.real_clusters
def test_a_moved_clock_shows_in_the_brokers_answers_and_leaves_their_timeouts_alone(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str
) -> None:
    a, b = pulsar_ha.cluster("cluster-a"), pulsar_ha.cluster("cluster-b")
    assert a.clock is not None and a.clock.controlled, "the embedded backend runs its clusters on clocks it can move"
    assert abs(_wait_served(a.served_clock_offset_s, 0.0)) <= 1.5
    client = pulsar_ha.client("cluster-a", operation_timeout_seconds=10)
    try:
        producer = client.create_producer(f"persistent://{geo_namespace}/clock", send_timeout_millis=5000)
        a.clock.set_offset(30)
        try:
            seen = _wait_served(a.served_clock_offset_s, 30.0)
            assert abs(seen - 30.0) <= 1.5, f"cluster-a's broker answered {seen:+.1f}s from the host's clock"
            assert abs(served_offset_s(b.direct_admin_url)) <= 1.5, "the other cluster keeps the host's clock"
            for i in range(20):  # acknowledged within the send timeout: the broker's timers keep the host's pace
                producer.send(f"m{i}".encode())
        finally:
            pulsar_ha.heal()  # a clock left moved is put back, as every other fault left in force
        assert a.clock.offset_s() == 0.0
        assert abs(_wait_served(a.served_clock_offset_s, 0.0)) <= 1.5
        producer.send(b"after")
    finally:
        client.close()
