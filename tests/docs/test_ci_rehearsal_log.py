"""The rehearsal summary keeps the figures docs/development.md quotes, and says when a session failed."""

from __future__ import annotations

from tests.benchmark_scripts import load_benchmark

LOG = (
    """machine: 2 cores; 23 GiB memory
  ======================= 1 passed, 3 deselected in 50.10s =======================
minimal-rootfs smoke: 103 s (exit 0)
collected 2930 items
============================= slowest 10 durations =============================
"""
    + "\n".join(f"{90 - i}.00s call     tests/t.py::test_{i}" for i in range(10))
    + """
= 2882 passed, 9 skipped, 3 xfailed, 1 xpassed in 2240.65s (0:37:20) =
=========== 3 passed, 16 deselected, 1 xpassed in 241.07s (0:04:01) ============
make test: 2495 s
"""
)


def test_a_green_log_keeps_its_figures() -> None:
    lines, ok = load_benchmark("ci_rehearsal_log").summary(LOG.splitlines())
    assert ok
    assert lines[0].startswith("machine: 2 cores")
    assert "pytest in the minimal root: 1 passed, 3 deselected in 50.10s" in lines
    assert "minimal-rootfs smoke: 103 s (exit 0)" in lines
    assert "  90.00s call     tests/t.py::test_0" in lines and "  81.00s call     tests/t.py::test_9" in lines
    assert "pytest: 3 passed, 16 deselected, 1 xpassed in 241.07s (0:04:01)" in lines
    assert lines[-1] == "make test: 2495 s"
    assert not any("collected" in line for line in lines)


def test_a_failed_session_or_a_log_that_ends_early_is_not_green() -> None:
    summary = load_benchmark("ci_rehearsal_log").summary
    assert not summary(LOG.replace("3 passed, 16", "1 failed, 2 passed, 16").splitlines())[1]
    assert not summary(LOG.replace("make test: 2495 s\n", "").splitlines())[1]
