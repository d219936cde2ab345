"""Each expectation as a row: its measured figure drawn against its bound or window (a gauge whose band is what
passes and whose tick is what was measured), its figures as a table rather than a line of ``name=value``, the
full text on demand; and the index page's overview and sparkline."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, cast

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.history import ACK, FAULT_START, Event
from pytest_pulsar_ha.report.expectation_rows import expectation_row, expectation_rows
from pytest_pulsar_ha.report.gauges import PAD, Gauge, gauge_of, gauge_svg
from pytest_pulsar_ha.report.overview import overview_html
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.report.sparkline import activity_of, sparkline_svg
from tests.report.test_run_page import T0, S, _history

SWITCH = "first ack by cluster-b within [2200ms, 2700ms] of fault #0 start"
ORDERING = "no reorder per producer among messages acked by one cluster"
ORDERED = "reorders=0, allowed_cross_cluster_interleavings=0, reorders[producer]=0"
AVAILABILITY = ">= 99% of sends acknowledged within 1s of their intended time"


def _tick_and_band(svg: str) -> tuple[float, float, float]:
    """(the measured tick's x, the band's left, the band's right) of a drawn gauge."""
    tick = re.search(r"class='measured' x1='([\d.]+)'", svg)
    band = re.search(r"class='band' x='([\d.]+)' y='5' width='([\d.]+)'", svg)
    assert tick is not None and band is not None
    return float(tick.group(1)), float(band.group(1)), float(band.group(1)) + float(band.group(2))


def window(ok: bool, seconds: float, name: str = "switch", details: str = "") -> CheckResult:
    """A window verdict as the timing check gives it: its words and its data."""
    figures = {"seconds": seconds, "target_acks": 10.0}
    anchor = ("cluster-b", 0, "start")
    return CheckResult(name, ok, SWITCH, f"{seconds:.2f}s", details, figures, (2.2, 2.7), measured_from=anchor)


def test_a_window_is_drawn_as_a_band_with_the_measured_tick_inside_or_outside() -> None:
    inside = gauge_of(window(True, 2.35))
    late = gauge_of(window(False, 3.10))
    assert inside == Gauge(2.2, 2.7, 2.35, 0.0, 5.0, "s", "2.35s")
    assert late is not None and not late.inside
    tick, left, right = _tick_and_band(gauge_svg(inside))
    assert left < tick < right
    drawn = gauge_svg(late)
    tick, left, right = _tick_and_band(drawn)
    assert tick > right and "stroke='#c62828'" in drawn
    assert "aria-label='3.10s outside [2.2s, 2.7s]'" in drawn
    labels = re.findall(r"<text class='tick[^']*'[^>]*>([^<]+)</text>", drawn)
    assert labels == ["2.2\u20132.7s", "0s", "5s"]  # the band, then the axis's ends: the axis is scaled


def availability(ratio: float) -> CheckResult:
    return CheckResult("availability", False, AVAILABILITY, f"{ratio:.1%}", figures={"ratio": ratio}, window=(0.99, 1))


def test_a_floor_is_drawn_on_a_percent_axis_that_starts_where_the_difference_shows() -> None:
    near = gauge_of(availability(0.96))
    assert near is not None and (near.start, near.end, near.low, near.measured) == (95.0, 100.0, 99.0, 96.0)
    tick, left, _ = _tick_and_band(gauge_svg(near))
    assert PAD < tick < left  # below the floor, and visibly apart from it
    far = gauge_of(availability(0.116))
    assert far is not None and far.start == 0.0 and far.figure == "11.6%"


def test_a_ceiling_is_read_from_the_figure_its_bound_names() -> None:
    said = "duplicates=3, x=9"
    duplicates = gauge_of(
        CheckResult("max_duplicates", True, "at most 10", said, "", {"duplicates": 3, "x": 9}, (0, 10))
    )
    assert duplicates == Gauge(0.0, 10.0, 3.0, 0.0, 20.0, "", "duplicates 3")
    figures = {"reorders": 2, "allowed_cross_cluster_interleavings": 5}
    reorders = gauge_of(CheckResult("ordering", False, ORDERING, "reorders=2", "", figures, (0, 0)))
    assert reorders is not None and (reorders.high, reorders.measured, reorders.inside) == (0.0, 2.0, False)
    lost = gauge_of(CheckResult("no_loss", True, "every acknowledged send received", "lost=0", "", {"lost": 0}, (0, 0)))
    assert lost is not None and lost.inside and lost.figure == "lost 0"
    tick, left, right = _tick_and_band(gauge_svg(lost))
    assert tick == left == PAD and right - left == 2.0  # the bound 0: a sliver of band at the axis's start


def test_no_gauge_without_a_bound_or_without_evidence_and_never_from_words() -> None:
    placement = CheckResult("placement", True, "group g spread over the live domains", "2 namespaces over 2 domains")
    assert gauge_of(placement) is None
    no_receipt = CheckResult("max_duplicates", False, "at most 0", "no receive event", evidence=False, window=(0, 0))
    assert gauge_of(no_receipt) is None
    never = CheckResult("switch", False, SWITCH, "no send acknowledged by cluster-b after it", "", {"target_acks": 0})
    assert gauge_of(never) is None
    assert gauge_of(CheckResult("switch", True, SWITCH, "2.35s")) is None  # words alone draw nothing


@dataclass(frozen=True)
class _Verdict:
    """A verdict that carries its data (its bound and its figures), as the checks' results may."""

    name: str
    ok: bool
    expected: str
    measured: str
    details: str = ""
    figures: dict[str, float] = field(default_factory=dict)
    window: tuple[float, float] | None = None
    evidence: bool = True


def test_a_verdict_that_carries_its_data_is_drawn_from_it_not_from_its_words() -> None:
    said = _Verdict("converged", True, "the same value within 30s", "agreed", figures={"seconds": 1.2}, window=(0, 30))
    drawn = gauge_of(cast(CheckResult, said))
    assert drawn == Gauge(0.0, 30.0, 1.2, 0.0, 50.0, "s", "1.20s")
    ratio = _Verdict("availability", False, AVAILABILITY, "?", figures={"ratio": 0.96}, window=(0.99, 1.0))
    assert cast(Any, gauge_of(cast(CheckResult, ratio))).figure == "96.0%"
    lacking = _Verdict("switch", False, SWITCH, "no event", figures={"seconds": 0}, window=(2.2, 2.7), evidence=False)
    assert gauge_of(cast(CheckResult, lacking)) is None


def test_a_row_shows_verdict_name_gauge_and_figure_and_the_text_on_demand() -> None:
    row = expectation_row(window(False, 5.10, "switch_back", "the provider switched back late"))
    summary, body = row.split("</summary>")
    assert row.startswith("<details class='expectation failed' data-name='switch_back'>")
    assert "✗" in summary and ">switch_back<" in summary and "<svg class='gauge'" in summary
    assert "title='5.10s'>5.10s</span>" in summary
    assert SWITCH in body and "<pre>the provider switched back late</pre>" in body
    assert SWITCH not in summary  # the full text only on demand


def test_figures_are_a_table_not_a_line_of_name_value_pairs() -> None:
    figures = {"reorders": 0, "allowed_cross_cluster_interleavings": 0, "reorders[producer]": 0}
    row = expectation_row(CheckResult("ordering", True, ORDERING, ORDERED, "", figures, (0, 0)))
    assert ORDERED not in row
    assert "<tr><th>allowed_cross_cluster_interleavings</th><td>0</td></tr>" in row
    assert "<tr><th>reorders[producer]</th><td>0</td></tr>" in row


def test_failures_come_first() -> None:
    rows = expectation_rows(
        [CheckResult("a", True, SWITCH, "2.3s"), CheckResult("b", False, SWITCH, "9s"), CheckResult("c", True, "", "")]
    )
    assert re.findall(r"data-name='(\w)'", rows) == ["b", "a", "c"]


def test_the_overview_counts_by_outcome_and_by_every_proposal() -> None:
    results = [
        ScenarioResult("a", "failed", 1, proposal="PIP-121 cluster failover"),
        ScenarioResult("b", "passed", 1, proposal="PIP-121 cluster failover"),
        ScenarioResult("c", "passed", 1, proposal="PIP-121 cluster failover"),
        ScenarioResult("d", "xfailed", 1, proposal="PIP-188 blue-green migration"),
    ]
    page = overview_html(results)
    tiles = re.findall(r"data-outcome='([^']*)'[^>]*><b>(\d+)</b>", page)
    assert tiles == [("", "4"), ("failed", "1"), ("xfailed", "1"), ("passed", "2")]
    rows = re.findall(r"data-proposal='([^']+)'>(?:<td>)?(?:<a [^>]+>)?[^<]*(?:</a>)?</td><td>(\d+)</td>", page)
    assert rows == [
        ("PIP-121 cluster failover", "3"),
        ("PIP-188 blue-green migration", "1"),
        ("PIP-136 metadata sync", "0"),
        ("PIP-7 failure domains", "0"),
    ]  # every proposal, run or not; "other" only when a scenario is
    assert "width:33.3%;background:#d32f2f' title='1 failed'" in page and "1 failed, 2 passed" in page


def test_the_sparkline_draws_acks_per_second_faults_and_its_scale() -> None:
    activity = activity_of(_history())
    assert activity is not None
    assert activity.bin_s == 1.0 and activity.faults == ((4.0, 10.0),)
    assert activity.acks[:14] == (10,) * 14  # ten sends a second, every one acknowledged
    drawn = sparkline_svg(activity)
    assert "acks/s, peak 10<" in drawn and ">+15s<" in drawn
    assert f"<rect class='fault' x='{round(4 / 14.9 * 170, 1)}'" in drawn
    unended = activity_of(
        [Event(T0, FAULT_START, "n", cluster="a", detail="#0 kill a"), Event(T0 + 3 * S, ACK, "p", cluster="b")]
    )
    assert unended is not None and unended.faults == ((0.0, 3.0),)
    assert activity_of([]) is None
