"""Spotting Pulsar's bookie-registration lock loop in a restarted standalone's log (the pure part)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.runtime.nodes.registration_loop import (
    LOOP_THRESHOLD,
    RegistrationLoop,
    RegistrationLoopWatch,
    log_size,
    registration_invalidations,
)

LOCK = (
    "2026-11-26T06:51:10,323+0000 [metadata-store-1-1] INFO  org.apache.pulsar.metadata.coordination.impl."
    "ResourceLockImpl - Lock on resource /ledgers/available/127.0.0.1:39449 was invalidated. state Valid"
)
OTHER_LOCK = LOCK.replace("/ledgers/available/127.0.0.1:39449", "/loadbalance/brokers/127.0.0.1:47103")


def test_only_the_bookie_registration_lock_after_the_offset_counts(tmp_path: Path) -> None:
    log = tmp_path / "stdout.log"
    log.write_text("\n".join([LOCK] * 5 + ["=== pytest-pulsar-ha starts: bin/pulsar standalone"]) + "\n")
    offset = log_size(log)
    with log.open("a") as out:
        out.write("\n".join([LOCK] * 3 + [OTHER_LOCK] * 50 + ["INFO something else"]) + "\n")
    assert registration_invalidations(log, 0) == 8
    assert registration_invalidations(log, offset) == 3


def test_a_looping_restart_crosses_the_threshold_and_a_clean_one_does_not(tmp_path: Path) -> None:
    clean, looping = tmp_path / "clean.log", tmp_path / "looping.log"
    clean.write_text("\n".join([LOCK] * 3) + "\n")  # a clean restart: a few invalidations, then quiet
    looping.write_text("\n".join([LOCK] * (LOOP_THRESHOLD * 5)) + "\n")  # ~500/s in the runs seen
    assert registration_invalidations(clean, 0) < LOOP_THRESHOLD <= registration_invalidations(looping, 0)


def test_a_missing_log_reads_as_no_loop(tmp_path: Path) -> None:
    assert registration_invalidations(tmp_path / "absent.log", 0) == 0
    assert log_size(tmp_path / "absent.log") == 0


def test_the_watch_passes_on_a_quiet_log_and_ends_the_wait_at_once_on_a_loop(tmp_path: Path) -> None:
    log = tmp_path / "stdout.log"
    log.write_text("\n".join([LOCK] * 3) + "\n")
    watch = RegistrationLoopWatch(log_path=log, offset=0, timeout=30, poll_interval=0.01)
    watch.wait()  # a few invalidations: passes
    with log.open("a") as out:
        out.write("\n".join([LOCK] * LOOP_THRESHOLD) + "\n")
    # RegistrationLoop, not the StartupError of a timeout: a loop ends the wait, it is not "not ready yet"
    with pytest.raises(RegistrationLoop, match=r"invalidated 103 times \(apache/pulsar#17759\)"):
        watch.wait()
