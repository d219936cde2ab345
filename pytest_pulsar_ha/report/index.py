"""The index page of a scenario run: one row per scenario with its outcome, figures and evidence links."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any


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
        "<th>evidence</th></tr>" + "".join(rows) + "</table></body></html>\n"
    )
    index = root / "index.html"
    index.write_text(page)
    return index
