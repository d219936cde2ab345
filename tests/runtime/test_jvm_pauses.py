"""JVM pauses read back from the safepoint logs the embedded backend's processes write."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_pulsar_ha.runtime.jvm_pauses import pause_lines, pause_log_option, pauses

T = 1_800_000_000.0


def _safepoint(ended: float, total_ns: int, cause: str = "G1CollectForAllocation") -> str:
    stamp = datetime.fromtimestamp(ended, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+0000"
    return (
        f'[{stamp}] Safepoint "{cause}", Time since last: 4144208 ns, Reaching safepoint: 1883 ns, '
        f"Cleanup: 8993 ns, At safepoint: {total_ns - 10876} ns, Total: {total_ns} ns"
    )


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_option_names_a_per_process_file_in_the_log_directory(tmp_path: Path) -> None:
    option = pause_log_option(tmp_path)
    assert option.startswith("-Xlog:safepoint:file=")
    assert f"{tmp_path}/jvm-pauses-%p.log:utctime:" in option


def test_only_notable_pauses_that_ended_inside_the_window_are_kept(tmp_path: Path) -> None:
    log = _write(
        tmp_path / "jvm-pauses-1.log",
        [
            _safepoint(T - 30, 900_000_000),  # before the test
            _safepoint(T + 1, 8_883_833),  # 9 ms: not notable
            _safepoint(T + 2.5, 520_000_000),
            "[2026-11-28T04:28:29.399+0000] something else logged by the JVM",
            _safepoint(T + 4, 130_000_000, "Deoptimize"),
            _safepoint(T + 90, 700_000_000),  # after the test
        ],
    )
    found = pauses(log, T, T + 10)
    assert [(round(p.ended - T, 3), p.seconds, p.cause) for p in found] == [
        (2.5, 0.52, "G1CollectForAllocation"),
        (4.0, 0.13, "Deoptimize"),
    ]
    assert found[0].describe() == "0.52s (G1CollectForAllocation), ended 08:00:02.500 UTC"


def test_pause_lines_name_each_process_directory_and_its_longest_pauses(tmp_path: Path) -> None:
    now = time.time()
    env = tmp_path / "pulsar-ha0"
    _write(env / "cluster-a" / "logs" / "jvm-pauses-11.log", [_safepoint(now, 200_000_000)])
    _write(
        env / "cluster-a" / "logs" / "jvm-pauses-12.log",  # the broker restarted: a second process, same directory
        [_safepoint(now + 1, 600_000_000), _safepoint(now + 2, 150_000_000), _safepoint(now + 3, 110_000_000)],
    )
    _write(env / "cluster-b" / "logs" / "jvm-pauses-13.log", [_safepoint(now, 5_000_000)])
    old = _write(env / "cluster-c" / "logs" / "jvm-pauses-14.log", [_safepoint(now, 800_000_000)])
    os.utime(old, (now - 3600, now - 3600))  # not written during the test
    lines = pause_lines([env], now - 5, now + 5, keep=2)
    assert lines[0] == "pulsar-ha0/cluster-a/logs: the JVM stopped 4 time(s) for 0.1s or more during the test"
    assert lines[1].startswith("    0.60s (G1CollectForAllocation)")
    assert lines[2].startswith("    0.20s (G1CollectForAllocation)")
    assert len(lines) == 3


def test_a_missing_log_has_no_pauses(tmp_path: Path) -> None:
    assert pauses(tmp_path / "absent.log", T, T + 1) == []


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_in_a_pause_log_are_read_without_error(tmp_path_factory: object, data: bytes) -> None:
    directory = tmp_path_factory.mktemp("pauses")  # type: ignore[attr-defined]
    path = directory / "jvm-pauses-1.log"
    path.write_bytes(data + b"\n" + _safepoint(T, 300_000_000).encode())
    assert [p.seconds for p in pauses(path, T - 1, T + 1)] == [0.3]
