"""The suite's index page: counts by outcome, one table per proposal with failures first, every timing verdict
drawn against its window, and a filter; each shipped scenario grouped under the proposal it exercises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.report.index import write_index
from pytest_pulsar_ha.report.proposals import proposal_of
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.report.window_bar import bar_svg, window_of
from pytest_pulsar_ha.scenario.loader import load_scenarios

ROOT = Path(__file__).resolve().parents[2]
SWITCH = "first ack by cluster-b within [2200ms, 2700ms] of fault #0 start"


def test_a_window_verdict_is_read_and_drawn_inside_or_outside() -> None:
    inside = CheckResult("switch", True, SWITCH, "2.35s")
    late = CheckResult("switch", False, SWITCH, "3.10s")
    assert window_of(inside) == (2.2, 2.7, 2.35)
    assert window_of(CheckResult("no_loss", True, "every send received", "lost=0")) is None
    assert window_of(CheckResult("switch", False, SWITCH, "no send acknowledged by cluster-b after it")) is None
    assert "aria-label='2.35s in [2.2s, 2.7s]'" in bar_svg(*window_of(inside))  # type: ignore[misc]
    drawn = bar_svg(*window_of(late))  # type: ignore[misc]
    assert "aria-label='3.10s outside [2.2s, 2.7s]'" in drawn and "#c62828" in drawn
    tick = float(re.search(r"class='measured' x1='([\d.]+)'", drawn).group(1))  # type: ignore[union-attr]
    band_end = float(re.search(r"<rect x='([\d.]+)' y='3' width='([\d.]+)'", drawn).group(1)) + float(
        re.search(r"<rect x='[\d.]+' y='3' width='([\d.]+)'", drawn).group(1)  # type: ignore[union-attr]
    )
    assert tick > band_end  # the late tick sits right of the window's band


def test_the_page_counts_groups_and_puts_failures_first(tmp_path: Path) -> None:
    results = [
        ScenarioResult(
            "po", "passed", 1, [CheckResult("switch", True, SWITCH, "2.35s")], proposal="PIP-121 cluster failover"
        ),
        ScenarioResult(
            "po[late]",
            "failed",
            1,
            [CheckResult("switch", False, SWITCH, "3.10s")],
            proposal="PIP-121 cluster failover",
        ),
        ScenarioResult("bg", "xfailed", 1, [], proposal="PIP-188 blue-green migration"),
    ]
    page = write_index(results, tmp_path).read_text()
    assert (
        "<span class='failed'>1 failed</span><span class='xfailed'>1 xfailed</span><span class='passed'>1 passed</span>"
        in page
    )
    assert page.index("<h2>PIP-121 cluster failover</h2>") < page.index("<h2>PIP-188 blue-green migration</h2>")
    assert page.index("<td>po[late]</td>") < page.index("<td>po</td>")  # the failure first
    assert page.count("<svg class='bar'") == 2
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
