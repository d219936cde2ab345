"""The index page of a scenario run: one row per scenario with its outcome, figures and evidence links; then, for
every scenario whose variants ran the same fault with different clients or providers (ours, the native one,
Java's), one side-by-side table of their figures (:mod:`pytest_pulsar_ha.checks.side_by_side`)."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.checks.side_by_side import COLUMNS, family_tables


def write_index(results: Sequence[Any], root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    rows = []
    for result in results:
        checks = "<br>".join(
            html.escape(f"{'ok' if c.ok else 'FAILED'} {c.name}: {c.measured} (expected {c.expected})")
            for c in result.checks
        )
        problems = "<br>".join(html.escape(p) for p in result.problems)
        figures = getattr(result, "figures", None)
        figure_lines = "<br>".join(html.escape(line) for line in figures.summary().splitlines()) if figures else ""
        links = " ".join(
            f"<a href='{html.escape(os.path.relpath(path, root))}'>{html.escape(name)}</a>"
            for name, path in result.evidence.items()
        )
        image = result.evidence.get("timeline")
        thumb = f"<img src='{html.escape(os.path.relpath(image, root))}' width='480'>" if image else ""
        rows.append(
            f"<tr class='{result.outcome}'><td>{html.escape(result.case_id)}</td><td>{result.outcome}</td>"
            f"<td>{checks}<br>{problems}</td><td>{figure_lines}</td><td>{links}<br>{thumb}</td></tr>"
        )
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>pulsar-ha scenarios</title><style>"
        "body{font-family:sans-serif;margin:2em} td{border:1px solid #ccc;padding:6px;vertical-align:top}"
        "tr.passed td:nth-child(2){background:#dfd} tr.failed td:nth-child(2),tr.deviated td:nth-child(2)"
        "{background:#fdd}</style></head><body><h1>pulsar-ha scenarios</h1><table>"
        "<tr><th>scenario</th><th>outcome</th><th>expectations</th><th>figures (from the history)</th>"
        "<th>evidence</th></tr>" + "".join(rows) + "</table>" + side_by_side_html(results) + "</body></html>\n"
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
