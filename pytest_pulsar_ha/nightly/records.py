"""What one round of a nightly run leaves: per test, its pytest outcome (from the JUnit XML) and, for scenarios,
the seed and figures of its verdict (``verdict.json`` in the evidence). Plain data, JSON in ``round.json``.

A results directory holds nights (one per ``pulsar-ha nightly run``), each with its rounds::

    RESULTS/night-20261126T0200/round-001/{round.json, junit.xml, evidence/...}
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

INTERMITTENT_PROPERTY = ("expected_failure", "intermittent")
"""The JUnit property a scenario test carries when an intermittent expected failure applies to its run (a pass
is then an XPASS: the failure did not show)."""

FIGURES = ("switch_s", "switch_back_s", "rto_s", "duplicates", "stranded")
"""The figures the trend follows, per test (the first fault's, for the per-fault ones)."""


@dataclass
class CaseRecord:
    test: str
    """the pytest node id (what a replay command names)"""
    outcome: str
    """passed | failed | error | xfailed | xpassed | skipped (xpassed: an intermittent expected failure that did
    not show, which pytest's JUnit XML records as a pass)"""
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


def junit_outcomes(path: Path) -> list[tuple[str, str, str]]:
    """(node id, outcome, message) of every test case of a pytest JUnit XML file."""
    if not path.exists():
        return []
    root = ET.parse(path).getroot()
    out = []
    for case in root.iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        test = _node_id(classname, name, case.get("file"))
        outcome, message = "passed", ""
        properties = {p.get("name"): p.get("value") for p in case.iter("property")}
        if properties.get(INTERMITTENT_PROPERTY[0]) == INTERMITTENT_PROPERTY[1]:
            outcome = "xpassed"  # unless a child below says it failed, was skipped or showed (xfailed)
        for child in case:
            tag = child.tag
            if tag in ("failure", "error"):
                outcome, message = ("failed" if tag == "failure" else "error"), child.get("message", "")[:300]
            elif tag == "skipped":
                text = child.get("type", "") + " " + child.get("message", "")
                outcome = "xfailed" if "xfail" in text.lower() else "skipped"
                message = child.get("message", "")[:300]
        out.append((test, outcome, message))
    return out


def _node_id(classname: str, name: str, file: str | None) -> str:
    """pytest's JUnit classname is the dotted path of the test's file (and class); a scenario file's dots are
    the file name's own (``scenarios.primary-outage.pulsar-ha.yaml``)."""
    if classname.endswith(".pulsar-ha.yaml"):
        stem = classname[: -len(".pulsar-ha.yaml")]
        head, _, last = stem.rpartition(".")
        path = (head.replace(".", "/") + "/" if head else "") + last + ".pulsar-ha.yaml"
        return f"{path}::{name}"
    if file:
        return f"{file}::{name}"
    parts = classname.split(".")
    return "/".join(parts) + f".py::{name}"


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
    """Scenario id -> its verdict, for every ``verdict.json`` under ``evidence``."""
    found = {}
    for path in sorted(evidence.glob("*/verdict.json")):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            found[data["id"]] = data
    return found


def collect_round(
    round_dir: Path, night: str, index: int, seed: int, started: str, duration_s: float, code: int
) -> RoundRecord:
    record = RoundRecord(night, index, seed, started, round(duration_s, 1), code)
    by_id = verdicts(round_dir / "evidence")
    for test, outcome, message in junit_outcomes(round_dir / "junit.xml"):
        name = test.split("::", 1)[-1]
        verdict = by_id.get(name)
        record.tests.append(
            CaseRecord(
                test,
                outcome,
                seed=int(verdict["seed"]) if verdict and isinstance(verdict.get("seed"), int) else None,
                figures=verdict_figures(verdict) if verdict else {},
                message=message,
            )
        )
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
