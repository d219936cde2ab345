"""The findings catalogue: which runs show which finding, per the version the brokers answered; the page's tally."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.cli import main
from pytest_pulsar_ha.report.findings import (
    FINDINGS,
    CaseRun,
    Observation,
    dump,
    load,
    load_runs,
    observe,
    tally,
)
from pytest_pulsar_ha.report.findings_page import render
from pytest_pulsar_ha.scenario.loader import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def _verdict(case: str, checks: dict[str, bool], pulsar: str | None = "4.2.4 (assembled); brokers answer 4.2.4",
             deadlocks: list[str] | None = None, seed: int = 5) -> dict[str, Any]:  # fmt: skip
    return {
        "id": case,
        "outcome": "passed" if all(checks.values()) else "failed",
        "seed": seed,
        "facts": {} if pulsar is None else {"pulsar": pulsar},
        # the answered version: the pulsar fact (older verdicts) and the versions list (newer ones)
        "versions": [] if pulsar is None else [pulsar.rsplit(" ", 1)[-1]],
        "checks": [{"name": n, "ok": ok, "measured": f"{n}-figure"} for n, ok in checks.items()],
        "deadlocks": [{"cluster": "blue", "known": name} for name in deadlocks or []],
    }


def test_a_run_where_the_named_expectations_fail_shows_the_finding_on_the_answered_version() -> None:
    verdict = _verdict(
        "metadata-sync-replication-cut", {"converged": False, "last_writer_wins": False, "max_duplicates": True}
    )
    (o,) = observe(verdict, "2026-11-27")
    assert (o.finding, o.version, o.shown, o.case, o.seed) == ("pip136-apply-time-lww", "4.2.4", True, verdict["id"], 5)
    assert o.figures == "converged converged-figure; last_writer_wins last_writer_wins-figure"


def test_one_of_them_holding_is_not_the_finding() -> None:
    verdict = _verdict("metadata-sync-replication-cut", {"converged": False, "last_writer_wins": True})
    (o,) = observe(verdict, "2026-11-27")
    assert not o.shown


def test_a_run_without_its_verdicts_is_no_evidence_either_way() -> None:
    assert observe(_verdict("metadata-sync-concurrent", {}), "2026-11-27") == []
    assert observe(_verdict("blue-green-migration", {}), "2026-11-27") == []


def test_a_known_deadlock_shows_the_deadlock_finding() -> None:
    shown = observe(
        _verdict("blue-green-migration", {"no_loss": False}, deadlocks=["topic-migrated-single-active-consumer"]), "d"
    )
    quiet = observe(_verdict("blue-green-migration", {"no_loss": True}), "d")
    assert [(o.finding, o.shown) for o in shown + quiet] == [
        ("pip188-topic-migrated-deadlock", True),
        ("pip188-topic-migrated-deadlock", False),
    ]


def test_a_verdict_without_a_version_needs_one_given() -> None:
    verdict = _verdict("primary-outage[java]", {"ordering": False}, pulsar=None)
    with pytest.raises(ValueError, match="names no Pulsar version"):
        observe(verdict, "d")
    (o,) = observe(verdict, "d", version="4.0.8")
    assert (o.finding, o.version, o.shown) == ("java-client-25291", "4.0.8", True)


def test_the_tally_counts_runs_per_version() -> None:
    finding = next(f for f in FINDINGS if f.key == "java-client-25291")
    runs = [
        Observation(finding.key, "4.0.8", "primary-outage[java]", shown, "", seed, "d")
        for seed, shown in enumerate([True, False, False])
    ]
    assert tally(runs, finding, "4.0.8") == "reproduces (1 of 3 runs)"
    assert tally(runs[1:2], finding, "4.0.8") == "not seen in 1 run"
    assert tally(runs, finding, "4.2.4") == "no run stored"
    nowhere = next(f for f in FINDINGS if not f.cases)
    assert tally(runs, nowhere, "4.0.8") == "not applicable (no scenario)"
    assert load(dump(runs)) == runs


def test_every_finding_names_real_cases_and_expectations() -> None:
    """A case of the catalogue is a shipped scenario case, and every expectation it names is one of its own."""
    for finding in FINDINGS:
        for node in finding.cases:
            path, case_id = node.split("::")
            cases = {c.id: c for c in load_scenarios(ROOT / path)}
            assert case_id in cases, node
            kinds = {e.kind for e in cases[case_id].scenario.expect}
            wanted = {n for n in finding.shown_by if not n.startswith("deadlock:")}
            assert wanted <= kinds, (node, wanted - kinds)
        assert finding.cases or finding.elsewhere, finding.key


def test_record_then_page_through_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "reports" / "primary-outage_java_"
    run.mkdir(parents=True)
    (run / "verdict.json").write_text(json.dumps(_verdict("primary-outage[java]", {"ordering": False}, seed=11)))
    data, runs, page = tmp_path / "obs.jsonl", tmp_path / "runs.jsonl", tmp_path / "findings.md"
    record = ["findings", "record", str(tmp_path / "reports"), "--data", str(data), "--runs", str(runs)]
    assert main(record) == 0
    assert main(record) == 0  # recorded once
    assert len(load(data.read_text())) == 1
    (recorded,) = load_runs(runs.read_text())
    assert recorded == CaseRun("primary-outage[java]", "4.2.4", "failed", 11, recorded.recorded, recorded.run)
    assert len(recorded.run) == 12
    again = tmp_path / "reports" / "again"  # another run of the same case and seed is another run
    again.mkdir()
    (again / "verdict.json").write_text(json.dumps(_verdict("primary-outage[java]", {"ordering": True}, seed=11)))
    assert main(record) == 0
    assert sorted(o.shown for o in load(data.read_text())) == [False, True]
    assert main(["findings", "page", "--data", str(data), "--runs", str(runs), "--out", str(page)]) == 0
    row = next(line for line in page.read_text().splitlines() if line.startswith("| Java's consumer"))
    assert "| 4.2.4 brokers: lead (1 of 2 runs; needs 5 runs, no counter-check run) |" in row  # a client's defect
    assert "| primary-outage[java] | no run stored | 1 failed, 1 passed |" in page.read_text()
    assert page.read_text() == render(load(data.read_text()), load_runs(runs.read_text()))
