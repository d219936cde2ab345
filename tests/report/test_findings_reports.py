"""The findings page and every finding's report are the stored data, regenerated: a figure typed in by hand, or data
recorded without regenerating, fails here; so does a link of theirs that leads nowhere, a report missing from the
docs' navigation, and a finding held above the evidence bar it does not meet."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml

from pytest_pulsar_ha.cli import main
from pytest_pulsar_ha.cli.findings import DATA, PAGE, RUNS
from pytest_pulsar_ha.report.dossier_model import KINDS, PULSAR
from pytest_pulsar_ha.report.finding_dossiers import DOSSIERS
from pytest_pulsar_ha.report.finding_reports import REPORTS, minimal_case, render_report
from pytest_pulsar_ha.report.finding_status import MIN_RUNS, standing
from pytest_pulsar_ha.report.findings import FINDINGS, CaseRun, Finding, Observation, load, load_runs
from pytest_pulsar_ha.report.findings_page import by_class, render
from pytest_pulsar_ha.scenario.loader import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _stored() -> tuple[list[Observation], list[CaseRun]]:
    return load((ROOT / DATA).read_text()), load_runs((ROOT / RUNS).read_text())


@pytest.mark.parametrize("finding", FINDINGS, ids=lambda f: f.key)
def test_each_report_is_its_stored_data(finding: Finding) -> None:
    observations, runs = _stored()
    stored = ROOT / REPORTS / f"{finding.key}.md"
    assert stored.exists(), f"no report: run pulsar-ha findings report {finding.key}"
    expected = render_report(ROOT, finding, observations, runs)
    assert stored.read_text() == expected, f"out of date: run pulsar-ha findings report {finding.key}"


def test_the_page_is_its_stored_data() -> None:
    observations, runs = _stored()
    assert (ROOT / PAGE).read_text() == render(observations, runs), "out of date: run pulsar-ha findings page"


def test_a_changed_figure_is_caught() -> None:
    """What the two tests above rely on: a stored figure that changes changes the page and the report."""
    observations, runs = _stored()
    finding = next(f for f in FINDINGS if f.key == "pip136-silent-no-op")
    first = next(i for i, o in enumerate(observations) if o.finding == finding.key)
    o = observations[first]
    changed = [*observations[:first], dataclasses.replace(o, figures=o.figures + " x"), *observations[first + 1 :]]
    assert render_report(ROOT, finding, changed, runs) != render_report(ROOT, finding, observations, runs)
    assert render(changed, runs) != render(observations, runs)


def _links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return [m.group(1) for m in _LINK.finditer(text) if not m.group(1).startswith(("http://", "https://", "#"))]


def test_every_link_of_the_page_and_the_reports_resolves() -> None:
    pages = [ROOT / PAGE, *sorted((ROOT / REPORTS).glob("*.md"))]
    assert len(pages) == len(FINDINGS) + 1, "a report for each finding, and none for a finding no longer listed"
    for page in pages:
        for link in _links(page):
            target = (page.parent / link.split("#", 1)[0]).resolve()
            assert target.exists(), f"{page.relative_to(ROOT)}: {link} leads nowhere"
    page_links = set(_links(ROOT / PAGE))
    for finding in FINDINGS:
        assert f"reports/{finding.key}.md" in page_links, finding.key


def test_every_report_is_in_the_docs_navigation() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text().split("\nvalidation:", 1)[0].split("\nnav:", 1)[1])
    listed = set(re.findall(r"results/reports/([\w.-]+)\.md", str(nav)))
    assert listed == {f.key for f in FINDINGS}


def test_the_page_sorts_by_class_and_keeps_clients_out_of_the_broker_columns() -> None:
    order = [KINDS.index(DOSSIERS[f.key].kind) for f in by_class()]
    assert order == sorted(order)
    observations, runs = _stored()
    page = render(observations, runs)
    broker_table = page.split("## Clients' defects", 1)[0]
    client_table = page.split("## Clients' defects", 1)[1].split("## Every recorded run", 1)[0]
    for finding in FINDINGS:
        inside = finding.title in client_table
        assert inside == (DOSSIERS[finding.key].kind == "client defect"), finding.key
        assert (f"| {finding.title} |" in broker_table) != inside, finding.key
    assert "| class | finding | 4.0.8 | 4.2.4 | 5.0.1 |" in broker_table


def test_every_finding_has_a_dossier_and_a_client_defect_names_its_client() -> None:
    assert set(DOSSIERS) == {f.key for f in FINDINGS}
    for key, info in DOSSIERS.items():
        if info.kind == "client defect":
            assert info.client, key
        for pointer in info.code:
            assert pointer.url.startswith(f"https://github.com/{PULSAR}/blob/v"), key
            assert pointer.lines[0] <= pointer.lines[1], key


def _obs(finding: str, version: str, shown: bool, n: int) -> list[Observation]:
    return [Observation(finding, version, "c", shown, "", 1, "d", f"r{i}") for i in range(n)]


def test_the_evidence_bar() -> None:
    """Reproduces: MIN_RUNS runs stored on the version and the counter-check passed there; else a lead. Intended
    behaviour is shown, never reproduced."""
    lww = next(f for f in FINDINGS if f.key == "pip136-apply-time-lww")
    counter = DOSSIERS[lww.key].counter_check
    passed = [CaseRun(counter, "4.2.4", "passed", 1, "d", "x")]
    enough = _obs(lww.key, "4.2.4", True, MIN_RUNS)
    assert standing(lww, "4.2.4", enough, passed).cell() == f"reproduces ({MIN_RUNS} of {MIN_RUNS} runs)"
    assert standing(lww, "4.2.4", enough, []).cell().startswith("lead (")
    failed = [CaseRun(counter, "4.2.4", "failed", 1, "d")]
    assert standing(lww, "4.2.4", enough, failed).cell().endswith("; counter-check failed)")
    assert standing(lww, "4.2.4", enough[:-1], passed).cell() == (
        f"lead ({MIN_RUNS - 1} of {MIN_RUNS - 1} runs; needs {MIN_RUNS} runs)"
    )
    assert standing(lww, "4.2.4", _obs(lww.key, "4.2.4", False, 2), passed).cell() == "not seen in 2 runs"
    assert standing(lww, "5.0.1", enough, passed).cell() == "no run stored"
    intended = next(f for f in FINDINGS if DOSSIERS[f.key].kind == "intended behaviour")
    assert standing(intended, "4.2.4", _obs(intended.key, "4.2.4", True, 9), []).cell() == "shown (9 of 9 runs)"


def test_a_minimal_case_is_a_scenario_file_that_loads(tmp_path: Path) -> None:
    for finding in FINDINGS:
        case = minimal_case(ROOT, finding)
        if case is None:
            continue
        text, _node = case
        path = tmp_path / f"{finding.key}.pulsar-ha.yaml"
        path.write_text(text)
        (loaded,) = load_scenarios(path)
        assert loaded.scenario.expect, finding.key
        assert "expect_failure" not in text and "variants" not in text


def test_the_report_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    args = ["findings", "report", "pip136-silent-no-op", "--root", str(tmp_path)]
    assert main([*args, "--data", str(ROOT / DATA), "--runs", str(ROOT / RUNS)]) == 0
    written = tmp_path / REPORTS / "pip136-silent-no-op.md"
    assert "## Where in the code" in written.read_text()
    assert "Not stored yet" in written.read_text()
    assert main(["findings", "report", "no-such-finding", "--root", str(tmp_path)]) != 0


_HARNESS = re.compile(r"# --- two standalones.*?# --- the reproduction", re.S)


def test_the_plain_scripts_share_one_harness_and_parse() -> None:
    """The PIP-136 scripts stand alone (a maintainer takes one file), so each carries the same block that starts
    the two standalones; it is kept identical. Each script parses, and its report points at it (the PIP-7 one starts
    a cluster of 4 brokers instead); every dossier with a script says what it starts (``script_about``)."""
    scripts = {key: ROOT / REPORTS / key / info.script for key, info in DOSSIERS.items() if info.script}
    assert {"pip136-apply-time-lww", "pip136-silent-no-op", "pip7-forgotten-placement"} <= set(scripts)
    blocks = set()
    for key, path in scripts.items():
        text = path.read_text()
        compile(text, str(path), "exec")
        assert f"({key}/{path.name})" in (ROOT / REPORTS / f"{key}.md").read_text()
        assert DOSSIERS[key].script_about, f"{key}: a dossier with a script says what it starts (script_about)"
        if not key.startswith("pip136-"):
            continue
        match = _HARNESS.search(text)
        assert match, path
        blocks.add(match.group(0))
    assert len(blocks) == 1, "the scripts' two-standalones blocks differ: copy one over the other"
