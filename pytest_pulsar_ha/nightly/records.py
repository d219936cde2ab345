"""What one round of a nightly run leaves: per scenario test, the outcome, reason, seed and figures its
``verdict.json`` stores (the outcome as :func:`pytest_pulsar_ha.checks.outcome.decide` decided it; nothing is
read back from pytest's JUnit XML); a round whose pytest failed outside every verdict (collection, set-up, a
Python test) is one ``error`` record that says so. Plain data, JSON in ``round.json``.

A results directory holds nights (one per ``pulsar-ha nightly run``), each with its rounds::

    RESULTS/night-20261126T0200/round-001/{round.json, junit.xml, evidence/...}
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

FAILING = ("failed", "error", "survived", "not judged")
"""The outcomes that fail a night."""

ROUND_TEST = "(round)"
"""The test a round's own failure is recorded under (pytest failed where no verdict says why)."""

FIGURES = ("switch_s", "switch_back_s", "rto_s", "duplicates", "stranded")
"""The figures the trend follows, per test (the first fault's, for the per-fault ones)."""


@dataclass
class CaseRecord:
    test: str
    """the pytest node id (what a replay command names)"""
    outcome: str
    """the verdict's outcome (passed, failed, xfailed, xpassed, killed, survived, not applicable, not judged), or
    error for a round that failed outside every verdict"""
    seed: int | None = None
    figures: dict[str, float] = field(default_factory=dict)
    message: str = ""


@dataclass
class RoundRecord:
    night: str
    index: int
    seed: int
    started: str
    duration_s: float
    exit_code: int
    tests: list[CaseRecord] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> RoundRecord:
        data = json.loads(text)
        tests = [CaseRecord(**t) for t in data.pop("tests")]
        return cls(**data, tests=tests)


def verdict_figures(verdict: dict[str, Any]) -> dict[str, float]:
    figures = verdict.get("figures") or {}
    out: dict[str, float] = {}
    if isinstance(figures.get("duplicates"), int):
        out["duplicates"] = float(figures["duplicates"])
    faults = figures.get("faults") or []
    if faults:
        first = faults[0]
        for key in ("switch_s", "switch_back_s", "rto_s", "stranded"):
            value = first.get(key)
            if isinstance(value, int | float):
                out[key] = float(value)
    return out


def verdicts(evidence: Path) -> dict[str, dict[str, Any]]:
    """Scenario id -> its verdict, for every ``verdict.json`` under ``evidence`` that has an outcome."""
    found = {}
    for path in sorted(evidence.glob("*/verdict.json")):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str) and isinstance(data.get("outcome"), str):
            found[data["id"]] = data
    return found


def collect_round(
    round_dir: Path, night: str, index: int, seed: int, started: str, duration_s: float, code: int
) -> RoundRecord:
    record = RoundRecord(night, index, seed, started, round(duration_s, 1), code)
    for name, verdict in verdicts(round_dir / "evidence").items():
        record.tests.append(
            CaseRecord(
                str(verdict.get("test") or name),
                str(verdict["outcome"]),
                seed=int(verdict["seed"]) if isinstance(verdict.get("seed"), int) else None,
                figures=verdict_figures(verdict),
                message=str(verdict.get("reason") or "")[:300],
            )
        )
    if code != 0 and not any(t.outcome in FAILING for t in record.tests):
        why = f"pytest exited {code} and no verdict says why (collection, set-up or a Python test): see pytest.log"
        record.tests.append(CaseRecord(ROUND_TEST, "error", message=why))
    return record


def load_rounds(results: Path) -> list[RoundRecord]:
    """Every round under ``results``, in order of night and index."""
    rounds = []
    for path in sorted(results.glob("night-*/round-*/round.json")):
        try:
            rounds.append(RoundRecord.from_json(path.read_text()))
        except (ValueError, TypeError, KeyError):
            continue
    return rounds
