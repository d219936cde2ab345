"""The suite's index page and a run's page, opened in a real browser as a user would: Debian's Chromium driven by
Playwright (``make setup`` and ``.ci/run`` install Chromium when it is missing). No console error, every link
resolves, the filters change the rows, failures come first, the timeline draws and hovering a mark shows what it
is, and a run killed midway (a history with a fault that never ended) still draws."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.history import FAULT_START, SWITCH, Event
from pytest_pulsar_ha.report.index import write_index
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.report.run_page import render_run_page
from pytest_pulsar_ha.report.sparkline import activity_of
from tests.report.test_run_page import T0, S, _history
from tests.report.verdicts import figures_verdict, window_verdict

SWITCH_WINDOW = "first ack by cluster-b within [2200ms, 2700ms] of fault #0 start"
BACK_WINDOW = "first ack by cluster-a within [4200ms, 4700ms] of fault #0 end"
ORDERED = figures_verdict(
    "ordering",
    True,
    "no reorder per producer among messages acked by one cluster",
    {
        "reorders": 0,
        "allowed_cross_cluster_interleavings": 0,
        "reorders[producer]": 0,
        "allowed_cross_cluster_interleavings[producer]": 0,
        "reorders[key]": 0,
        "allowed_cross_cluster_interleavings[key]": 0,
    },
)
"""A verdict whose measured text is one long line of figures (what made the pages wider than the window)."""
LONG_PROBLEM = "the cluster's broker log says " + "org.apache.pulsar.broker.service.BrokerServiceException" * 3


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("no chromium on PATH: `make setup` installs Debian's (apt-get install chromium)", pytrace=False)
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield launched
        launched.close()


class WatchedPage:
    """A Playwright page (everything but ``errors`` is the page's) and what it logged as an error: console errors
    and uncaught exceptions."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.page, name)


@pytest.fixture
def page(browser: Any) -> Iterator[WatchedPage]:
    opened = WatchedPage(browser.new_page(viewport={"width": 1280, "height": 900}))
    yield opened
    opened.close()


def _run(
    root: Path, case: str, outcome: str, checks: list[CheckResult], events: list[Event], marks: tuple[str, ...] = ()
) -> ScenarioResult:
    folder = root / case.replace("[", "_").replace("]", "_")
    folder.mkdir(parents=True)
    (folder / "history.jsonl").write_text("")
    run = render_run_page(
        events, checks, {"seed": "7", "command": LONG_PROBLEM}, f"{case}: {outcome}", folder / "run.html"
    )
    return ScenarioResult(
        case,
        outcome,
        7,
        checks,
        problems=["the switch back came late", LONG_PROBLEM] if outcome == "failed" else [],
        evidence={"run_page": run, "history": folder / "history.jsonl"},
        proposal="PIP-121 cluster failover",
        marks=marks,
        activity=activity_of(events),
    )


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    ok = window_verdict("switch", True, "cluster-b", 2.2, 2.7, 2.35)
    late = window_verdict("switch_back", False, "cluster-a", 4.2, 4.7, 5.10, of="end")
    results = [
        _run(tmp_path, "primary-outage", "passed", [ok], _history(), ("failover",)),
        _run(tmp_path, "primary-outage[late]", "failed", [ok, late, ORDERED], _history(), ("failover", "slow")),
        _run(tmp_path, "hung-primary", "passed", [ok], _history()),
    ]
    return write_index(results, tmp_path)


def _links_resolve(page: Any) -> list[str]:
    broken = []
    for href in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
        target = Path(unquote(urlparse(href).path))
        if urlparse(href).scheme == "file" and not target.exists():
            broken.append(href)
    return broken


def test_the_index_page_filters_its_rows_and_puts_the_failure_first(page: Any, suite: Path) -> None:
    page.goto(suite.as_uri())
    rows = page.locator("tr.run")
    assert rows.count() == 3
    assert rows.first.get_attribute("data-outcome") == "failed"
    assert "the switch back came late" in rows.first.inner_text()
    assert page.locator("svg.gauge").count() == 5  # each bounded verdict drawn against its bound
    page.select_option("#outcome", "failed")
    assert [r.is_visible() for r in rows.all()] == [True, False, False]
    page.select_option("#outcome", "")
    page.fill("#text", "hung")
    assert [r.is_visible() for r in rows.all()] == [False, False, True]
    assert _links_resolve(page) == []
    assert page.errors == []


def test_the_index_page_groups_by_marker_and_a_marker_shows_its_scenarios(page: Any, suite: Path) -> None:
    page.goto(suite.as_uri())
    marks = page.locator("tr.mark")
    assert [m.get_attribute("data-mark") for m in marks.all()] == ["failover", "slow", "(no marker)"]
    assert marks.first.inner_text().split("\t")[1:] == ["2", "1 failed, 1 passed"]
    rows = page.locator("tr.run")
    page.click("tr.mark[data-mark='slow'] a")
    assert [r.is_visible() for r in rows.all()] == [True, False, False]
    page.click("tr.mark[data-mark='(no marker)'] a")
    assert [r.is_visible() for r in rows.all()] == [False, False, True]
    page.select_option("#mark", "")
    assert all(r.is_visible() for r in rows.all())
    assert page.errors == []


def test_the_run_page_draws_the_timeline_and_hovering_a_mark_shows_it(page: Any, suite: Path) -> None:
    run = suite.parent / "primary-outage_late_" / "run.html"
    page.goto(run.as_uri())
    assert page.locator("#timeline rect.fault").count() == 1
    assert page.locator("#timeline polyline.rate").count() == 4
    page.locator("#timeline line.switch").hover(force=True)
    assert page.inner_text("#hover").startswith("switch to cluster-b at +6.00s")
    page.locator("#timeline circle.measured").first.hover(force=True)
    assert "measured" in page.inner_text("#hover")
    page.locator("#timeline line.event.ack").nth(100).hover(force=True)  # a small run: each message event
    assert page.inner_text("#hover") == "ack of p #100 by cluster-b at +10.000s, 0 ms after its send"
    first = page.locator("#expectations details.expectation").first
    assert first.get_attribute("class") == "expectation failed"  # the failure first
    before = page.get_attribute("#timeline", "viewBox")
    page.mouse.move(600, 300)
    page.mouse.wheel(0, -400)
    assert page.get_attribute("#timeline", "viewBox") != before  # the wheel zooms
    assert _links_resolve(page) == []
    assert page.errors == []


def test_a_run_killed_midway_still_draws(page: Any, tmp_path: Path) -> None:
    """A fault that never ended and no acknowledgement at all: the page draws what there is."""
    events = [
        Event(T0, FAULT_START, "nemesis", cluster="cluster-a", detail="#0 kill cluster-a"),
        Event(T0 + 2 * S, SWITCH, "provider", cluster="cluster-b", detail="primary down for 2.0s"),
    ]
    run = render_run_page(events, [], {}, "killed midway", tmp_path / "run.html")
    page.goto(run.as_uri())
    assert "to the end" in page.locator("#timeline rect.fault title").first.text_content()
    assert page.locator("#timeline line.switch").count() == 1
    assert page.errors == []


WIDTH_PX = 1280


def _fits(page: Any) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= WIDTH_PX, f"the page is {scroll} px wide in a {WIDTH_PX} px window"


def test_both_pages_fit_a_1280_px_window(page: Any, suite: Path) -> None:
    assert page.viewport_size["width"] == WIDTH_PX
    page.goto(suite.as_uri())
    _fits(page)
    page.locator("tr.run details.expectation[data-name='ordering'] summary").click()  # its figures opened
    assert page.locator("tr.run details[open] table.figures tr").count() == 6
    opened = page.locator("tr.run details[open] table.text td").first
    assert opened.evaluate("e => getComputedStyle(e).backgroundColor") == "rgba(0, 0, 0, 0)"  # not the outcome's
    _fits(page)
    page.goto((suite.parent / "primary-outage_late_" / "run.html").as_uri())
    _fits(page)
    page.locator("#expectations details.expectation").last.locator("summary").click()
    _fits(page)
    assert page.errors == []


def test_the_index_page_leads_with_counts_by_outcome_and_by_proposal(page: Any, suite: Path) -> None:
    page.goto(suite.as_uri())
    overview = page.locator(".overview")
    assert overview.bounding_box()["y"] < page.locator("tr.run").first.bounding_box()["y"]
    tiles = {t.get_attribute("data-outcome"): t.locator("b").inner_text() for t in page.locator(".tile").all()}
    assert tiles == {"": "3", "failed": "1", "passed": "2"}
    proposals = page.locator("tr.proposal")
    assert proposals.first.inner_text().split("\t")[:2] == ["PIP-121 cluster failover", "3"]
    assert proposals.count() == 4  # PIP-121, 188, 136 and 7, run or not
    rows = page.locator("tr.run")
    page.click(".tile[data-outcome='failed']")
    assert [r.is_visible() for r in rows.all()] == [True, False, False]
    page.click(".tile[data-outcome='']")
    assert all(r.is_visible() for r in rows.all())
    assert page.locator("tr.run svg.sparkline").count() == 3 and page.locator("tr.run img").count() == 0
    assert page.errors == []


def test_the_run_page_names_every_series_in_its_legend(page: Any, suite: Path) -> None:
    page.goto((suite.parent / "primary-outage_late_" / "run.html").as_uri())
    drawn = set(
        page.eval_on_selector_all(
            "#timeline > *",
            "marks => marks.filter(m => m.querySelector(':scope>title')).map(m => m.getAttribute('class'))",
        )
    )
    entries = {e.get_attribute("data-series"): e for e in page.locator("#legend li").all()}
    assert set(entries) == {c.replace(" ", "-") for c in drawn}
    for series in ("rate-ack", "rate-receive", "fault", "switch", "window", "measured"):
        assert entries[series].is_visible() and entries[series].locator("b").inner_text().strip()
    swatch = page.get_attribute("#legend li[data-series='rate-ack'] svg > *", "stroke")
    assert swatch == page.get_attribute("#timeline polyline.rate.ack", "stroke")  # the entry looks like its line
    assert page.errors == []


def _rect(locator: Any) -> dict[str, float]:
    """The element's geometry on the screen (its stroke left out)."""
    box: dict[str, float] = locator.evaluate(
        "e => { const r = e.getBoundingClientRect(); return {y: r.y, height: r.height}; }"
    )
    return box


def _middle(box: dict[str, float]) -> float:
    return box["y"] + box["height"] / 2


def test_the_run_page_has_a_scaled_y_axis_that_reads_its_lines(page: Any, suite: Path) -> None:
    """The y-axis beside the timeline: each lane's ticks labelled with numbers; the ack line's peak (ten a
    second) is drawn level with the tick labelled 10, and the zero line level with 0, on the screen."""
    page.goto((suite.parent / "primary-outage_late_" / "run.html").as_uri())
    for lane in ("cluster-a", "cluster-b", "clients"):
        labels = page.locator(f"#axis g.lane[data-lane='{lane}'] text.tick")
        assert labels.count() == 3 and all(t.is_visible() for t in labels.all())
        values = [float(t.text_content() or "nan") for t in labels.all()]
        assert values == [0, values[2] / 2, values[2]] and values[2] > 0
    lane = page.locator("#axis g.lane[data-lane='cluster-a']")
    assert lane.locator("text.unit tspan").all_text_contents() == ["acks, receipts", "per second"]
    marks = {v: _middle(_rect(lane.locator(f"line.tick-mark[data-value='{v}']"))) for v in ("0", "5", "10")}
    for value, at in marks.items():
        assert abs(_middle(_rect(lane.locator(f"text.tick[data-value='{value}']"))) - at) < 4  # labelled
    line = _rect(page.locator("#timeline polyline.rate.ack").first)  # its geometry: from 10 a second down to 0
    assert abs(line["y"] - marks["10"]) < 1 and abs(line["y"] + line["height"] - marks["0"]) < 1
    labels = page.locator("#time-axis text")
    before = labels.all_text_contents()
    assert before[:3] == ["+0s", "+2s", "+4s"]
    page.mouse.move(600, 300)
    for _ in range(6):
        page.mouse.wheel(0, -400)
    after = labels.all_text_contents()
    assert after != before and 3 <= len(after) <= 12  # the time axis follows the zoom, in finer steps
    assert page.errors == []
