"""The hunt's leads: a finding is a lead of the hunt when a case of it lives under ``scenarios/hunt/``, every such
case is marked ``hunt`` (so ``make hunt`` runs it and ``make test`` leaves it out), and the findings page lists
each lead with its upstream thread and its result per version from the stored runs."""

from __future__ import annotations

from pathlib import Path

from pytest_pulsar_ha.report.findings import FINDINGS, HUNT_DIR, Finding, Observation, hunt_result
from pytest_pulsar_ha.report.findings_page import render
from pytest_pulsar_ha.scenario.loader import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def test_every_case_of_a_hunted_finding_is_a_hunt_scenario_marked_hunt() -> None:
    hunted = [finding for finding in FINDINGS if finding.hunted]
    assert hunted, "no finding is a lead of the hunt"
    for finding in hunted:
        for node in finding.cases:
            path, name = node.split("::", 1)
            assert path.startswith(HUNT_DIR), f"{finding.key}: {node} is not under {HUNT_DIR}"
            cases = {case.scenario.name: case for case in load_scenarios(ROOT / path)}
            assert name in cases, f"{finding.key}: no case {name} in {path} ({', '.join(cases)})"
            assert "hunt" in cases[name].scenario.marks, f"{node} is not marked hunt"


def test_every_hunt_scenario_is_marked_hunt() -> None:
    files = sorted((ROOT / HUNT_DIR).glob("*.pulsar-ha.yaml"))
    assert files
    for path in files:
        for case in load_scenarios(path):
            assert "hunt" in case.scenario.marks, f"{path.name}::{case.scenario.name} is not marked hunt"


LEAD = Finding(
    "a-lead", "a lead", (f"{HUNT_DIR}x.pulsar-ha.yaml::x",), ("no_loss",), "apache/pulsar#1 (open)", "e", "a"
)


def _seen(shown: bool, version: str = "4.2.4", key: str = "a-lead") -> Observation:
    return Observation(key, version, "x", shown, "no_loss 1 lost", 5, "2026-11-29")


def test_a_lead_on_a_version_is_shown_in_k_of_n_runs_not_shown_in_n_or_has_no_run() -> None:
    assert LEAD.hunted and not Finding("k", "t", ("scenarios/a.pulsar-ha.yaml::a",), (), "", "", "").hunted
    seen = [_seen(True), _seen(False), _seen(True), _seen(False, "4.0.8"), _seen(True, key="other")]
    assert hunt_result(seen, LEAD, "4.2.4") == "shown in 2 of 3 runs"
    assert hunt_result(seen, LEAD, "4.0.8") == "not shown in 1 run"
    assert hunt_result(seen, LEAD, "5.0.1") == "no run stored"


def test_the_page_lists_each_lead_with_its_thread_and_its_result_per_version() -> None:
    lead = next(finding for finding in FINDINGS if finding.hunted)
    seen = [Observation(lead.key, "4.2.4", "c", shown, "", 1, "2026-11-29") for shown in (True, False, False)]
    page = render(seen)
    section = page.split("## The hunt's leads", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in section.splitlines() if f"(`{lead.key}`)" in line)
    assert (
        row
        == f"| {lead.title} (`{lead.key}`) | {lead.upstream} | no run stored | shown in 1 of 3 runs | no run stored |"
    )
    listed = {line.split("(`", 1)[1].split("`)", 1)[0] for line in section.splitlines() if "(`" in line}
    assert listed == {finding.key for finding in FINDINGS if finding.hunted}
