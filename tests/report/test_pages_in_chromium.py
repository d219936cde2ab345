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
from tests.report.test_run_page import T0, S, _history

SWITCH_WINDOW = "first ack by cluster-b within [2200ms, 2700ms] of fault #0 start"
BACK_WINDOW = "first ack by cluster-a within [4200ms, 4700ms] of fault #0 end"


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
    run = render_run_page(events, checks, {"seed": "7"}, f"{case}: {outcome}", folder / "run.html")
    return ScenarioResult(
        case,
        outcome,
        7,
        checks,
        problems=["the switch back came late"] if outcome == "failed" else [],
        evidence={"run_page": run, "history": folder / "history.jsonl"},
        proposal="PIP-121 cluster failover",
        marks=marks,
    )


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    ok = CheckResult("switch", True, SWITCH_WINDOW, "2.35s")
    late = CheckResult("switch_back", False, BACK_WINDOW, "5.10s")
    results = [
        _run(tmp_path, "primary-outage", "passed", [ok], _history(), ("failover",)),
        _run(tmp_path, "primary-outage[late]", "failed", [ok, late], _history(), ("failover", "slow")),
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
    assert page.locator("svg.bar").count() == 4  # each timing verdict drawn against its window
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
    assert page.locator("table tr").first.inner_text().startswith("FAILED")  # the failure first
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
