"""The index page of a scenario run, read at a glance and within a 1,280 px window: first the counts by outcome
(a tile each, a click shows only its scenarios) and by proposal (:mod:`~pytest_pulsar_ha.report.overview`), a
filter, the counts by marker (each marker's row filters the page to its scenarios), then one table per proposal
with a row per scenario, failures first: its outcome, each expectation a row with its measured figure drawn
against its bound or window and its text on demand (:mod:`~pytest_pulsar_ha.report.expectation_rows`), the
run's figures, its evidence links and its acks per second drawn small (:mod:`~pytest_pulsar_ha.report.sparkline`);
then, for every scenario whose variants ran the same fault with different clients or providers (ours, the native
one, Java's), one side-by-side table of their figures (:mod:`pytest_pulsar_ha.checks.side_by_side`)."""

from __future__ import annotations

import html
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks.side_by_side import COLUMNS, family_tables
from pytest_pulsar_ha.report.expectation_rows import STYLE as EXPECTATION_STYLE
from pytest_pulsar_ha.report.expectation_rows import expectation_rows
from pytest_pulsar_ha.report.overview import STYLE as OVERVIEW_STYLE
from pytest_pulsar_ha.report.overview import anchor, overview_html, rank, slug
from pytest_pulsar_ha.report.proposals import PROPOSALS
from pytest_pulsar_ha.report.sparkline import sparkline_svg

STYLE = (
    "body{font-family:sans-serif;margin:2em} td{border:1px solid #ccc;padding:6px;vertical-align:top}"
    "tr.passed>td:nth-child(2),tr.killed>td:nth-child(2){background:#dfd}"
    "tr.failed>td:nth-child(2),tr.deviated>td:nth-child(2),tr.survived>td:nth-child(2){background:#fdd}"
    "tr.xfailed>td:nth-child(2){background:#ffe9b3} .check{white-space:nowrap} .check svg{vertical-align:middle}"
    ".counts span{margin-right:1em} .filters{margin:1em 0}"
)
"""The page's base style (the nightly trend page shares it)."""
RUNS_STYLE = (
    "table{border-collapse:collapse} table.runs,table.side{width:100%;table-layout:fixed}"
    "td,th{overflow-wrap:anywhere} table.runs th{text-align:left;padding:4px 6px}"
    ".runs col.case{width:15%} .runs col.outcome{width:7em} .runs col.figures{width:17%} .runs col.activity"
    "{width:186px} .runs .links{font-size:85%;margin-top:.4em} .runs .problem{color:#b71c1c;margin-bottom:.3em}"
    ".runs .figures ul{margin:0;padding-left:1em;font-size:85%} .side td,.side th{font-size:85%}"
)
"""The layout that keeps the page within a 1,280 px window: the tables fixed to its width, long words broken."""
FILTER = (
    "<div class='filters'>filter: <input id='text' placeholder='scenario, expectation, figure...'> "
    "<select id='outcome'><option value=''>any outcome</option>{options}</select>{mark_select}</div>"
    "<script>function f(){{var t=document.getElementById('text').value.toLowerCase(),"
    "o=document.getElementById('outcome').value,me=document.getElementById('mark'),m=me?me.value:'';"
    "document.querySelectorAll('tr.run').forEach(function(r){{"
    "r.style.display=(!o||r.dataset.outcome===o)&&(!m||(' '+r.dataset.marks+' ').indexOf(' '+m+' ')>=0)"
    "&&r.textContent.toLowerCase().indexOf(t)>=0?'':'none';}});}}"
    "function byMark(m){{document.getElementById('mark').value=m;f();}}"
    "document.getElementById('text').oninput=f;document.getElementById('outcome').onchange=f;"
    "if(document.getElementById('mark'))document.getElementById('mark').onchange=f;</script>"
)
"""The rows' filter by text and outcome; ``mark_select`` is :data:`MARK_SELECT` on pages whose rows carry marks."""
MARK_SELECT = " <select id='mark'><option value=''>any marker</option>{marks}</select>"
UNMARKED = "(no marker)"


def _links(result: Any, root: Path) -> str:
    return " · ".join(
        f"<a href='{html.escape(os.path.relpath(path, root))}'>{html.escape(name.replace('_', ' '))}</a>"
        for name, path in result.evidence.items()
    )


def _activity(result: Any, root: Path) -> str:
    """The run's sparkline (a link to its page when it has one), or '' for a run without a history."""
    activity = getattr(result, "activity", None)
    if activity is None:
        return ""
    drawn = sparkline_svg(activity)
    page = result.evidence.get("run_page")
    return f"<a href='{html.escape(os.path.relpath(page, root))}'>{drawn}</a>" if page else drawn


def _row(result: Any, root: Path) -> str:
    problems = "".join(f"<div class='problem'>{html.escape(p)}</div>" for p in result.problems)
    figures = getattr(result, "figures", None)
    figure_lines = (
        "<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in figures.summary().splitlines()) + "</ul>"
        if figures
        else ""
    )
    outcome = html.escape(result.outcome)
    marks = html.escape(" ".join(_marks(result)))
    return (
        f"<tr class='run {slug(result.outcome)}' data-outcome='{outcome}' data-marks='{marks}'>"
        f"<td class='case'><b>{html.escape(result.case_id)}</b><div class='links'>{_links(result, root)}</div></td>"
        f"<td>{outcome}</td><td class='expectations'>{problems}{expectation_rows(result.checks)}</td>"
        f"<td class='figures'>{figure_lines}</td><td class='activity'>{_activity(result, root)}</td></tr>"
    )


def _marks(result: Any) -> tuple[str, ...]:
    return tuple(getattr(result, "marks", ()) or ()) or (UNMARKED,)


def marker_table(results: Sequence[Any]) -> str:
    """One row per marker (scenarios without one under :data:`UNMARKED`): its scenarios' counts by outcome; a
    click on the marker shows only its scenarios."""
    by_mark: dict[str, Counter[str]] = {}
    for result in results:
        for mark in _marks(result):
            by_mark.setdefault(mark, Counter())[result.outcome] += 1
    rows = []
    for mark in sorted(by_mark, key=lambda m: (m == UNMARKED, m)):
        counts = by_mark[mark]
        cells = ", ".join(f"{n} {html.escape(o)}" for o, n in sorted(counts.items(), key=lambda i: rank(i[0])))
        name = html.escape(mark)
        rows.append(
            f"<tr class='mark' data-mark='{name}'><td><a href='#' onclick=\"byMark('{name}');return false\">"
            f"{name}</a></td><td>{sum(counts.values())}</td><td>{cells}</td></tr>"
        )
    return (
        "<h2>by marker</h2><table><tr><th>marker</th><th>scenarios</th><th>outcomes</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def write_index(results: Sequence[Any], root: Path) -> Path:
    """The suite's page: the counts by outcome and by proposal first (:mod:`~pytest_pulsar_ha.report.overview`),
    a filter by text, outcome and marker, the counts by marker, then one table per proposal, failures first, each
    expectation a row with its figure drawn against its bound (:mod:`~pytest_pulsar_ha.report.expectation_rows`)
    and each run's acks per second drawn small (:mod:`~pytest_pulsar_ha.report.sparkline`)."""
    root.mkdir(parents=True, exist_ok=True)
    counts = Counter(r.outcome for r in results)
    options = "".join(f"<option>{html.escape(o)}</option>" for o in sorted(counts, key=rank))
    all_marks = sorted({m for r in results for m in _marks(r)}, key=lambda m: (m == UNMARKED, m))
    mark_options = "".join(f"<option>{html.escape(m)}</option>" for m in all_marks)
    groups: dict[str, list[Any]] = {}
    for result in results:
        groups.setdefault(getattr(result, "proposal", "") or "other", []).append(result)
    order = {name: index for index, name in enumerate(PROPOSALS)}
    tables = []
    for proposal in sorted(groups, key=lambda name: order.get(name, len(order))):
        members = sorted(groups[proposal], key=lambda r: rank(r.outcome))
        tables.append(
            f"<h2 id='{anchor(proposal)}'>{html.escape(proposal)}</h2><table class='runs'><colgroup>"
            "<col class='case'><col class='outcome'><col class='expectations'><col class='figures'>"
            "<col class='activity'></colgroup><tr><th>scenario</th><th>outcome</th><th>expectations</th>"
            "<th>figures (from the history)</th><th>acks per second</th></tr>"
            + "".join(_row(r, root) for r in members)
            + "</table>"
        )
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>pulsar-ha scenarios</title><style>"
        + STYLE
        + RUNS_STYLE
        + OVERVIEW_STYLE
        + EXPECTATION_STYLE
        + "</style></head><body><h1>pulsar-ha scenarios</h1>"
        + overview_html(results)
        + FILTER.format(options=options, mark_select=MARK_SELECT.format(marks=mark_options))
        + marker_table(results)
        + "".join(tables)
        + side_by_side_html(results)
        + "</body></html>\n"
    )
    index = root / "index.html"
    index.write_text(page)
    return index


def side_by_side_html(results: Sequence[Any]) -> str:
    """One table per scenario family that ran several clients or providers on the same fault ('' when none)."""
    rows = [r.side_by_side for r in results if getattr(r, "side_by_side", None) is not None]
    parts = []
    for name, members in family_tables(rows).items():
        header = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row.cells()) + "</tr>" for row in members
        )
        parts.append(
            f"<h2>side by side: {html.escape(name)}</h2>"
            "<p>switch: the first send acknowledged by another cluster after the fault began; switch back: the "
            "first acknowledged by the fault's cluster after it ended (the same measure for every provider); "
            "provider switched: the provider's own switch events, from the fault's start.</p>"
            f"<table class='side'><tr>{header}</tr>{body}</table>"
        )
    return "".join(parts)
