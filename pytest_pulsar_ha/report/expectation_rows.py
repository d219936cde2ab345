"""Each expectation as one row, on the index page and on a run's page: pass or fail, its name, its measured
figure drawn against its bound or window (:mod:`~pytest_pulsar_ha.report.gauges`) and the figure in short; the
full text (what was expected, every figure measured as a name/value table, the details) opens on demand (a
``<details>`` element, no script). Failures first."""

from __future__ import annotations

import html
from collections.abc import Sequence

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.report.gauges import Gauge, gauge_of, gauge_svg

STYLE = (
    ".expectation{margin:1px 0} .expectation summary{cursor:pointer;list-style-position:outside;margin-left:1em}"
    ".expectation .row{display:inline-grid;grid-template-columns:1.3em minmax(6em,9em) 168px minmax(0,1fr);"
    "align-items:center;column-gap:.5em;width:calc(100% - 1em);vertical-align:middle}"
    ".expectation .verdict{font-weight:bold} .expectation.ok .verdict{color:#1a7f37}"
    ".expectation.failed .verdict{color:#c62828} .expectation .name{overflow:hidden;text-overflow:ellipsis}"
    ".expectation .figure{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
    ".expectation .text{margin:.3em 0 .6em 2.3em;font-size:90%} .expectation .text th{font-weight:normal;color:#555}"
    ".expectation .text td,.expectation .text th{border:none;padding:1px 8px 1px 0;overflow-wrap:anywhere}"
    ".expectation pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.2em 0}"
)
"""The rows' CSS, for the pages that show them."""


def _figure(check: CheckResult, gauge: Gauge | None) -> str:
    """The measured figure in short: the gauge's, else the measured text (cut to one line by the style)."""
    return gauge.figure if gauge is not None else check.measured


def _number(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


def _only_figures(measured: str) -> bool:
    """Whether a measured text is nothing but ``name=value`` pairs (the figures, said again in words)."""
    return all("=" in part and " " not in part.strip() for part in measured.split(","))


def _full_text(check: CheckResult) -> str:
    rows = [("expected", html.escape(check.expected))]
    if not (check.figures and _only_figures(check.measured)):  # else the table below says it all
        rows.append(("measured", html.escape(check.measured)))
    if check.figures:
        table = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(_number(v))}</td></tr>" for k, v in check.figures.items()
        )
        rows.append(("figures", f"<table class='figures'>{table}</table>"))
    if check.details:
        rows.append(("details", f"<pre>{html.escape(check.details)}</pre>"))
    body = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    return f"<table class='text'>{body}</table>"


def expectation_row(check: CheckResult) -> str:
    """One ``<details class='expectation ok|failed'>``: its summary the row, its body the full text."""
    gauge = gauge_of(check)
    verdict = "ok" if check.ok else "failed"
    figure = html.escape(_figure(check, gauge))
    drawn = gauge_svg(gauge) if gauge is not None else "<span class='no-gauge'></span>"
    return (
        f"<details class='expectation {verdict}' data-name='{html.escape(check.name)}'><summary><span class='row'>"
        f"<span class='verdict' title='{verdict}'>{'✓' if check.ok else '✗'}</span>"
        f"<span class='name'>{html.escape(check.name)}</span>{drawn}"
        f"<span class='figure' title='{figure}'>{figure}</span></span></summary>{_full_text(check)}</details>"
    )


def expectation_rows(checks: Sequence[CheckResult]) -> str:
    """Every check's row, failures first (in their order otherwise)."""
    return "".join(expectation_row(c) for c in sorted(checks, key=lambda c: c.ok))
