"""Reading a broker's deadlock: the threads its health check names, the JVM's block in its log, the known defect.

``data/deadlock-topic-migrated.txt`` is the JVM's block from blue's log in rehearsal #8 (Pulsar 4.0.8, the
``blue-green-migration`` scenario), as the broker logged it beside its health check's answer.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_pulsar_ha.checks.deadlocks import (
    BLOCK_END,
    BLOCK_START,
    KNOWN_DEADLOCKS,
    block_threads,
    deadlock_block,
    deadlocked_threads,
    is_deadlock_answer,
    known_deadlock,
    read_deadlock,
    record_time,
)

BLOCK = (Path(__file__).parent / "data" / "deadlock-topic-migrated.txt").read_text()
ANSWER = (
    'GET http://127.0.0.1:11297/admin/v2/brokers/health answered HTTP 500: {"reason":"\\n --- An unexpected '
    "error occurred in the server ---\\n\\nMessage: Deadlocked threads detected. "
    "broker-topic-workers-OrderedExecutor-0-0(tid=73), pulsar-io-18-3(tid=133)\\n\\nStacktrace:\\n\\n"
    "java.lang.IllegalStateException: Deadlocked threads detected. broker-topic-workers-OrderedExecutor-0-0(tid=73)"
)
LOG_LINE = (
    "2026-11-27T13:36:52,016+0000 [pulsar-web-49-7] ERROR org.apache.pulsar.broker.admin.impl.BrokersBase - "
    "Deadlocked threads detected. broker-topic-workers-OrderedExecutor-0-0(tid=73), pulsar-io-18-3(tid=133)\n"
)


def test_the_health_answer_names_the_threads() -> None:
    assert is_deadlock_answer(ANSWER)
    assert deadlocked_threads(ANSWER) == ("broker-topic-workers-OrderedExecutor-0-0(tid=73)", "pulsar-io-18-3(tid=133)")
    assert deadlocked_threads(LOG_LINE) == (
        "broker-topic-workers-OrderedExecutor-0-0(tid=73)",
        "pulsar-io-18-3(tid=133)",
    )
    assert not is_deadlock_answer("GET .../brokers/health answered HTTP 503: Service Unavailable")
    assert deadlocked_threads("HTTP 500: something else") == ()


def test_the_block_is_found_in_a_log_among_other_lines() -> None:
    log = (
        LOG_LINE
        + '"main" #1 prio=5\n   java.lang.Thread.State: RUNNABLE\n'
        + BLOCK
        + "\n\n====> DEADLOCKS DETECTED <====\n"
    )
    block = deadlock_block(log)
    assert block.startswith(BLOCK_START)
    assert BLOCK_END.search(block.splitlines()[-1])
    assert "pulsar-io-18-3" in block and "PersistentSubscription.removeConsumer" in block


def test_the_last_complete_block_wins_and_a_cut_block_is_skipped() -> None:
    older = BLOCK.replace("pulsar-io-18-3", "pulsar-io-18-1")
    cut = BLOCK_START + '\n"pulsar-io-18-9":\n  waiting to lock monitor'  # the log was read while being written
    block = deadlock_block(older + "\n" + BLOCK + "\n" + cut)
    assert "pulsar-io-18-3" in block and "pulsar-io-18-9" not in block
    assert deadlock_block("no deadlock here\n") == ""
    assert deadlock_block(cut) == ""


def test_the_rehearsal_deadlock_is_the_known_topic_migrated_one() -> None:
    known = known_deadlock(deadlock_block(BLOCK))
    assert known is not None and known.name == "topic-migrated-single-active-consumer"
    deadlock = read_deadlock("blue", ANSWER, LOG_LINE + BLOCK)
    text = deadlock.describe()
    assert text.startswith("Pulsar deadlocked on blue (broker-topic-workers-OrderedExecutor-0-0(tid=73), pulsar-io")
    assert "apache/pulsar/pull/26111" in text


def test_a_deadlock_in_other_frames_is_not_called_known() -> None:
    other = BLOCK.replace("Consumer.topicMigrated", "Consumer.flowPermits")
    assert known_deadlock(other) is None
    deadlock = read_deadlock("blue", ANSWER, other)
    assert deadlock.known is None and deadlock.block
    assert "not a deadlock this harness knows" in deadlock.describe()
    assert "report it upstream" in deadlock.describe()


def test_without_a_log_the_answer_alone_is_kept_and_nothing_is_known() -> None:
    deadlock = read_deadlock("blue", ANSWER, "")
    assert deadlock.block == "" and deadlock.known is None
    assert len(deadlock.threads) == 2
    assert "the broker's log has the JVM's dump" in deadlock.describe()


def test_every_known_deadlock_names_frames_and_an_upstream_reference() -> None:
    for known in KNOWN_DEADLOCKS:
        assert len(known.frames) >= 2, known.name
        assert known.upstream.startswith("https://github.com/apache/pulsar/"), known.name
        assert known_deadlock("\n".join(known.frames[:-1])) is None, "every frame is needed"


PIECES = st.sampled_from([BLOCK_START, "Found 1 deadlock.", "Found 2 deadlocks.", "\n", "x", " "])


@given(st.lists(PIECES).map("".join))
def test_a_block_is_either_absent_or_whole(log: str) -> None:
    block = deadlock_block(log)
    if block:
        assert block.startswith(BLOCK_START)
        assert BLOCK_END.search(block)
        assert block in log


@given(st.text())
def test_any_text_is_read_without_error(text: str) -> None:
    deadlocked_threads(text)
    deadlock_block(text)
    read_deadlock("c", text, text).describe()


THREADS = ("broker-topic-workers-OrderedExecutor-0-0(tid=73)", "pulsar-io-18-3(tid=133)")


def test_only_a_block_of_the_named_threads_is_this_deadlock() -> None:
    assert block_threads(BLOCK) == {"broker-topic-workers-OrderedExecutor-0-0", "pulsar-io-18-3"}
    assert deadlock_block(BLOCK, THREADS) != ""
    assert deadlock_block(BLOCK, ("pulsar-io-18-3(tid=133)",)) == "", "a thread the health check did not name"
    newer_of_others = BLOCK.replace("pulsar-io-18-3", "pulsar-io-18-9")
    assert "pulsar-io-18-3" in deadlock_block(BLOCK + "\n" + newer_of_others, THREADS)


def test_an_older_block_does_not_stand_in_for_a_cut_newer_one() -> None:
    older = "2026-11-27T10:00:00,000+0000 [w] ERROR x - Deadlocked threads detected.\n" + BLOCK
    cut = "2026-11-27T13:36:52,016+0000 [w] ERROR x - Deadlocked threads detected.\n" + BLOCK_START + '\n"pulsar-io'
    started = datetime(2026, 11, 27, 13, 0, tzinfo=timezone.utc).timestamp()
    assert deadlock_block(older + "\n" + cut, THREADS, since=started) == ""
    assert deadlock_block(older + "\n" + cut, THREADS) != "", "without the run's start, any block of those threads"


def test_a_block_is_dated_by_the_record_above_it() -> None:
    log = "2026-11-27T13:36:52,016+0000 [w] ERROR x - y\nline\n" + BLOCK
    at = datetime(2026, 11, 27, 13, 36, 52, 16000, tzinfo=timezone.utc).timestamp()
    assert record_time(log, log.index(BLOCK_START)) == at
    assert deadlock_block(log, THREADS, since=at) != ""
    assert deadlock_block(log, THREADS, since=at + 0.001) == ""
    assert deadlock_block(BLOCK, THREADS, since=at) == "", "an undated block is no run's"
    assert record_time("2026-02-30T10:00:00,000+0000 x\n", 40) is None


def test_a_health_check_that_names_no_thread_matches_no_block() -> None:
    deadlock = read_deadlock("blue", "HTTP 500: Deadlocked threads detected.", BLOCK)
    assert deadlock.block == "" and deadlock.known is None
