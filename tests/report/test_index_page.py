"""The suite's index page: the counts by outcome and by proposal first, one table per proposal with failures
first, every bounded verdict drawn against its bound, each run's acks drawn small, and a filter; each shipped
scenario grouped under the proposal it exercises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.report.index import write_index
from pytest_pulsar_ha.report.proposals import proposal_of
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.report.sparkline import activity_of
from pytest_pulsar_ha.report.window_bar import window_of
from pytest_pulsar_ha.scenario.loader import load_scenarios
from tests.report.test_run_page import _history
from tests.report.verdicts import figures_verdict, window_verdict

ROOT = Path(__file__).resolve().parents[2]
SWITCH = "first ack by cluster-b within [2200ms, 2700ms] of fault #0 start"


def test_a_window_verdict_is_read_from_its_data_never_from_its_words() -> None:
    assert window_of(window_verdict("switch", True, "cluster-b", 2.2, 2.7, 2.35)) == (2.2, 2.7, 2.35)
    assert window_of(figures_verdict("no_loss", True, "every send received", {"lost": 0})) is None
    never = CheckResult("switch", False, SWITCH, "no send acknowledged by cluster-b after it", "", {"target_acks": 0})
    assert window_of(never) is None
    assert window_of(CheckResult("switch", True, SWITCH, "2.35s")) is None  # words alone


def test_the_page_counts_groups_and_puts_failures_first(tmp_path: Path) -> None:
    results = [
        ScenarioResult(
            "po",
            "passed",
            1,
            [window_verdict("switch", True, "cluster-b", 2.2, 2.7, 2.35)],
            proposal="PIP-121 cluster failover",
        ),
        ScenarioResult(
            "po[late]",
            "failed",
            1,
            [window_verdict("switch", False, "cluster-b", 2.2, 2.7, 3.10)],
            proposal="PIP-121 cluster failover",
        ),
        ScenarioResult("bg", "xfailed", 1, [], proposal="PIP-188 blue-green migration"),
    ]
    results[0].activity = activity_of(_history())
    results[0].evidence["run_page"] = tmp_path / "po" / "run.html"
    page = write_index(results, tmp_path).read_text()
    assert page.index("class='overview'") < page.index("<h2>by marker</h2>")  # the counts lead
    tiles = re.findall(r"data-outcome='([^']*)'[^>]*><b>(\d+)</b>", page)
    assert tiles == [("", "3"), ("failed", "1"), ("xfailed", "1"), ("passed", "1")]
    assert "<td class='words'>1 failed, 1 passed</td>" in page
    assert page.index("<h2 id='pip-121-cluster-failover'>") < page.index("<h2 id='pip-188-blue-green-migration'>")
    assert page.index("<b>po[late]</b>") < page.index("<b>po</b>")  # the failure first
    assert page.count("<svg class='gauge'") == 2
    assert "<img" not in page  # no thumbnail too small to read: a sparkline, linked to the run's page
    assert "<a href='po/run.html'><svg class='sparkline'" in page and page.count("<svg class='sparkline'") == 1
    assert "<option>failed</option>" in page and "document.getElementById('text').oninput=f" in page


@pytest.mark.parametrize(
    ("file", "case", "proposal"),
    [
        ("primary-outage.pulsar-ha.yaml", "primary-outage", "PIP-121 cluster failover"),
        ("controlled-switch.pulsar-ha.yaml", "controlled-switch", "PIP-121 cluster failover"),
        ("blue-green-migration.pulsar-ha.yaml", "blue-green-migration", "PIP-188 blue-green migration"),
        ("metadata-sync.pulsar-ha.yaml", "metadata-sync-two-way", "PIP-136 metadata sync"),
        ("multi-broker/failure-domains.pulsar-ha.yaml", "anti-affinity-spread", "PIP-7 failure domains"),
    ],
)
def test_each_shipped_scenario_is_grouped_under_its_proposal(file: str, case: str, proposal: str) -> None:
    cases = {c.id: c for c in load_scenarios(ROOT / "scenarios" / file)}
    assert proposal_of(cases[case].scenario) == proposal
