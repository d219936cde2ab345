"""The index page of a scenario run: counts by outcome, then counts by marker (each marker's row filters the page
to its scenarios), then one table per proposal with a row per scenario (its outcome, each verdict with a timing
verdict's window drawn, figures and evidence links, failures first); then, for
every scenario whose variants ran the same fault with different clients or providers (ours, the native one,
Java's), one side-by-side table of their figures (:mod:`pytest_pulsar_ha.checks.side_by_side`)."""

from __future__ import annotations

import html
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks.side_by_side import COLUMNS, family_tables
from pytest_pulsar_ha.report.proposals import PROPOSALS
from pytest_pulsar_ha.report.window_bar import bar_svg, window_of

OUTCOME_ORDER = ("failed", "deviated", "survived", "interrupted", "xfailed", "killed", "passed", "n/a")
"""Rows in this order within each proposal: what needs a look first."""

STYLE = (
    "body{font-family:sans-serif;margin:2em} td{border:1px solid #ccc;padding:6px;vertical-align:top}"
    "tr.passed td:nth-child(2),tr.killed td:nth-child(2){background:#dfd}"
    "tr.failed td:nth-child(2),tr.deviated td:nth-child(2),tr.survived td:nth-child(2){background:#fdd}"
    "tr.xfailed td:nth-child(2){background:#ffe9b3} .check{white-space:nowrap} .check svg{vertical-align:middle}"
    ".counts span{margin-right:1em} .filters{margin:1em 0}"
)
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


def _check_html(check: Any) -> str:
    text = html.escape(f"{'ok' if check.ok else 'FAILED'} {check.name}: {check.measured}")
    window = window_of(check)
    bar = bar_svg(*window) if window is not None else ""
    return f"<div class='check' title='expected {html.escape(check.expected)}'>{bar} {text}</div>"


def _row(result: Any, root: Path) -> str:
    checks = "".join(_check_html(c) for c in result.checks)
    problems = "<br>".join(html.escape(p) for p in result.problems)
    figures = getattr(result, "figures", None)
    figure_lines = "<br>".join(html.escape(line) for line in figures.summary().splitlines()) if figures else ""
    links = " ".join(
        f"<a href='{html.escape(os.path.relpath(path, root))}'>{html.escape(name)}</a>"
        for name, path in result.evidence.items()
    )
    image = result.evidence.get("timeline")
    thumb = f"<img src='{html.escape(os.path.relpath(image, root))}' width='480'>" if image else ""
    outcome = html.escape(result.outcome)
    marks = html.escape(" ".join(_marks(result)))
    return (
        f"<tr class='run {outcome}' data-outcome='{outcome}' data-marks='{marks}'>"
        f"<td>{html.escape(result.case_id)}</td><td>{outcome}</td>"
        f"<td>{problems}{checks}</td><td>{figure_lines}</td><td>{links}<br>{thumb}</td></tr>"
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
        cells = ", ".join(f"{n} {html.escape(o)}" for o, n in sorted(counts.items(), key=lambda i: _rank(i[0])))
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


def _rank(outcome: str) -> int:
    return OUTCOME_ORDER.index(outcome) if outcome in OUTCOME_ORDER else len(OUTCOME_ORDER)


def write_index(results: Sequence[Any], root: Path) -> Path:
    """The suite's page: counts by outcome, then one table per proposal, failures first; each timing verdict with
    its window drawn (:mod:`~pytest_pulsar_ha.report.window_bar`); a filter by text and by outcome."""
    root.mkdir(parents=True, exist_ok=True)
    counts = Counter(r.outcome for r in results)
    count_html = "".join(
        f"<span class='{html.escape(o)}'>{n} {html.escape(o)}</span>"
        for o, n in sorted(counts.items(), key=lambda i: _rank(i[0]))
    )
    options = "".join(f"<option>{html.escape(o)}</option>" for o in sorted(counts, key=_rank))
    all_marks = sorted({m for r in results for m in _marks(r)}, key=lambda m: (m == UNMARKED, m))
    mark_options = "".join(f"<option>{html.escape(m)}</option>" for m in all_marks)
    groups: dict[str, list[Any]] = {}
    for result in results:
        groups.setdefault(getattr(result, "proposal", "") or "other", []).append(result)
    order = {name: index for index, name in enumerate(PROPOSALS)}
    tables = []
    for proposal in sorted(groups, key=lambda name: order.get(name, len(order))):
        members = sorted(groups[proposal], key=lambda r: _rank(r.outcome))
        tables.append(
            f"<h2>{html.escape(proposal)}</h2><table><tr><th>scenario</th><th>outcome</th><th>expectations</th>"
            "<th>figures (from the history)</th><th>evidence</th></tr>"
            + "".join(_row(r, root) for r in members)
            + "</table>"
        )
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>pulsar-ha scenarios</title><style>{STYLE}</style>"
        f"</head><body><h1>pulsar-ha scenarios</h1><p class='counts'>{count_html}</p>"
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
            f"<table><tr>{header}</tr>{body}</table>"
        )
    return "".join(parts)
