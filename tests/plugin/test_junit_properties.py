"""A scenario test's JUnit record links its evidence (run page, report, verdict), where CI shows properties; with
pytest-html, its row in the HTML report links the run page."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from tests.plugin.fake_runs import fake_run_conftest

SCENARIO = """
scenarios:
  - name: linked
    topology: {clusters: [cluster-a]}
    workload: {topics: [{name: t}], rate: 10/s, duration: 2s}
    expect:
      - no_loss: true
"""

CONFTEST = fake_run_conftest(
    """
def fake_execute(case, env, *, evidence_dir, spark, seed=None):
    result = scenario_runner.ScenarioResult(case.id, "passed", 7)
    result.checks.append(CheckResult("no_loss", True, "every send received", "lost=0"))
    result.evidence["run_page"] = evidence_dir / "run.html"
    result.evidence["verdict"] = evidence_dir / "verdict.json"
    return result
"""
)


def test_the_junit_record_carries_the_run_page_and_verdict(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    (pytester.path / "linked.pulsar-ha.yaml").write_text(SCENARIO)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--junitxml={junit}", "-o", "junit_family=xunit1")
    result.assert_outcomes(passed=1)
    properties = {p.get("name"): p.get("value") for p in ElementTree.parse(junit).getroot().iter("property")}
    assert properties["pulsar_ha_run_page"].endswith("linked/run.html")
    assert properties["pulsar_ha_verdict"].endswith("linked/verdict.json")
    assert "pulsar_ha_report" not in properties  # only what the run wrote


def test_the_pytest_html_report_links_the_run_page(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    (pytester.path / "linked.pulsar-ha.yaml").write_text(SCENARIO)
    report = pytester.path / "report.html"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--html={report}", "--self-contained-html")
    result.assert_outcomes(passed=1)
    page = report.read_text()
    assert "run page" in page and "linked/run.html" in page
