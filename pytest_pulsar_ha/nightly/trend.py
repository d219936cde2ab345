"""The trend across nights, from a results directory that accumulates them: pass rate per test, the
distribution of each figure (p50 / p95 / max) per night, flaky tests (passing and failing with different
seeds) with the commands that replay their failures, and regressions (a figure or the pass rate that got worse
in the latest night than in the nights before). Written as ``trend.json`` and a static ``trend.html`` (in the
index page's style, with its filter and a pass-rate bar per test) with plots (matplotlib, Agg), next to the nights.
"""

from __future__ import annotations

import html
import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.nightly.records import FAILING, FIGURES, RoundRecord, load_rounds
from pytest_pulsar_ha.report.index import FILTER, STYLE

NOISE = {"switch_s": 0.3, "switch_back_s": 0.3, "rto_s": 0.3, "duplicates": 10.0, "stranded": 5.0}
"""How much worse a median must get before it counts as a regression (beside the relative threshold)."""
RELATIVE = 0.25
UNSEEN_AFTER = 10
"""An intermittent expected failure not seen (no XFAIL) in this many runs or more is flagged: the evidence for
it is going stale (fixed upstream? a race the harness no longer hits?)."""


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass
class Distribution:
    count: int
    p50: float
    p95: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        return cls(len(values), percentile(values, 0.5), percentile(values, 0.95), max(values))


@dataclass
class CaseTrend:
    test: str
    runs: int = 0
    passed: int = 0
    failed: int = 0
    expected_failures: int = 0
    """XFAIL runs: the expected failure showed"""
    xpassed: int = 0
    """XPASS runs of an intermittent expected failure: it did not show (counted apart from passed)"""
    pass_rate: float = 0.0
    by_night: dict[str, dict[str, Any]] = field(default_factory=dict)
    failing_seeds: list[int] = field(default_factory=list)
    passing_seeds: list[int] = field(default_factory=list)


@dataclass
class Trend:
    nights: list[str]
    rounds: int
    tests: list[CaseTrend]
    flaky: list[dict[str, Any]]
    regressions: list[str]
    unseen: list[str] = field(default_factory=list)
    """intermittent expected failures with no XFAIL in UNSEEN_AFTER runs or more"""


def build_trend(rounds: Sequence[RoundRecord]) -> Trend:
    nights = sorted({r.night for r in rounds})
    tests: dict[str, CaseTrend] = {}
    samples: dict[tuple[str, str, str], list[float]] = {}
    night_outcomes: dict[tuple[str, str], list[str]] = {}
    for record in rounds:
        for test in record.tests:
            trend = tests.setdefault(test.test, CaseTrend(test.test))
            if test.outcome in ("skipped", "not applicable"):
                continue
            trend.runs += 1
            seed = test.seed if test.seed is not None else record.seed
            if test.outcome in FAILING:
                trend.failed += 1
                trend.failing_seeds.append(seed)
            elif test.outcome == "xfailed":
                trend.expected_failures += 1
            elif test.outcome == "xpassed":
                trend.xpassed += 1
            else:
                trend.passed += 1
                trend.passing_seeds.append(seed)
            night_outcomes.setdefault((test.test, record.night), []).append(test.outcome)
            for name, value in test.figures.items():
                samples.setdefault((test.test, record.night, name), []).append(value)
    for trend in tests.values():
        judged = trend.passed + trend.failed
        trend.pass_rate = round(trend.passed / judged, 3) if judged else 1.0
        for night in nights:
            outcomes = night_outcomes.get((trend.test, night), [])
            if not outcomes:
                continue
            entry: dict[str, Any] = {
                "runs": len(outcomes),
                "failed": sum(o in FAILING for o in outcomes),
            }
            for name in FIGURES:
                values = samples.get((trend.test, night, name))
                if values:
                    entry[name] = asdict(Distribution.of(values))
            trend.by_night[night] = entry
    flaky = [
        {
            "test": t.test,
            "passed": t.passed,
            "failed": t.failed,
            "replay": [f"pytest '{t.test}' --pulsar-ha-seed={seed}" for seed in sorted(set(t.failing_seeds))[:5]],
        }
        for t in sorted(tests.values(), key=lambda t: t.test)
        if t.passed and t.failed
    ]
    ordered = sorted(tests.values(), key=lambda t: t.test)
    return Trend(nights, len(rounds), ordered, flaky, regressions(tests, nights), unseen(ordered))


def unseen(tests: Sequence[CaseTrend], after: int = UNSEEN_AFTER) -> list[str]:
    """The intermittent expected failures that did not show in ``after`` runs or more (XPASS every time)."""
    return [
        f"{t.test}: its intermittent expected failure did not show in {t.xpassed} runs (XPASS each time, no XFAIL);"
        " the evidence for it is going stale: rerun it on the versions it names, or narrow or drop it"
        for t in tests
        if t.xpassed >= after and t.expected_failures == 0
    ]


def regressions(tests: dict[str, CaseTrend], nights: Sequence[str]) -> list[str]:
    """What got worse in the latest night than in the nights before it (medians of the earlier nights)."""
    if len(nights) < 2:
        return []
    latest, earlier = nights[-1], nights[:-1]
    out = []
    for trend in sorted(tests.values(), key=lambda t: t.test):
        now = trend.by_night.get(latest)
        if now is None:
            continue
        before_rates = [
            1 - e["failed"] / e["runs"] for n in earlier if (e := trend.by_night.get(n)) is not None and e["runs"]
        ]
        rate_now = 1 - now["failed"] / now["runs"] if now["runs"] else 1.0
        if before_rates and rate_now < min(before_rates):
            out.append(f"{trend.test}: pass rate {rate_now:.0%} in {latest}, at least {min(before_rates):.0%} before")
        for name in FIGURES:
            if name not in now:
                continue
            previous = [trend.by_night[n][name]["p50"] for n in earlier if name in trend.by_night.get(n, {})]
            if not previous:
                continue
            baseline, current = statistics.median(previous), now[name]["p50"]
            if current - baseline > NOISE[name] and current > baseline * (1 + RELATIVE):
                out.append(
                    f"{trend.test}: {name} median {current:.2f} in {latest}, {baseline:.2f} over the nights before"
                )
    return out


# -- writing ------------------------------------------------------------------------------------------------


def write_trend(results: Path, out: Path | None = None) -> Path:
    """Write ``trend.json``, ``trend.html`` and the plots for every night under ``results``; return the page."""
    out = out or results
    out.mkdir(parents=True, exist_ok=True)
    trend = build_trend(load_rounds(results))
    (out / "trend.json").write_text(json.dumps(asdict(trend), indent=1))
    plots = _plots(trend, out)
    page = out / "trend.html"
    page.write_text(_html(trend, plots))
    return page


def _plots(trend: Trend, out: Path) -> list[str]:
    if not trend.nights or not trend.tests:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(trend.tests) + 1.2))
    labels = [t.test.split("::")[-1] for t in trend.tests]
    ax.barh(labels, [t.pass_rate * 100 for t in trend.tests], color="#4c9a2a")
    ax.set_xlim(0, 100)
    ax.set_xlabel("pass rate, % of runs (expected failures excluded)")
    fig.tight_layout()
    fig.savefig(out / "pass-rate.png", dpi=90)
    plt.close(fig)
    names.append("pass-rate.png")
    for name in ("switch_s", "switch_back_s", "duplicates"):
        series: list[tuple[str, list[int], list[float], list[float]]] = []
        for t in trend.tests:
            points = [(i, d) for i, n in enumerate(trend.nights) if (d := t.by_night.get(n, {}).get(name))]
            if points:
                xs = [i for i, _ in points]
                series.append((t.test, xs, [d["p50"] for _, d in points], [d["max"] for _, d in points]))
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(9, 3.6))
        for test, xs, medians, maxima in series:
            ax.plot(xs, medians, marker="o", label=test.split("::")[-1])
            ax.fill_between(xs, medians, maxima, alpha=0.15)
        ax.set_xticks(range(len(trend.nights)), [n.removeprefix("night-") for n in trend.nights], rotation=20)
        ax.set_ylabel(f"{name} (median, band to max)")
        ax.legend(fontsize=7, loc="upper left")
        fig.tight_layout()
        file = f"{name}.png"
        fig.savefig(out / file, dpi=90)
        plt.close(fig)
        names.append(file)
    return names


def _rate_bar(rate: float, width: int = 100) -> str:
    """The pass rate as a bar (green passed, red the rest), as the index page draws a verdict against its window."""
    done = round(rate * width)
    return (
        f"<svg class='bar' width='{width}' height='10' role='img' aria-label='pass rate {rate:.0%}'>"
        f"<rect width='{width}' height='10' fill='#fdd'/><rect width='{done}' height='10' fill='#4c9a2a'/></svg>"
    )


def _html(trend: Trend, plots: Sequence[str]) -> str:
    e = html.escape
    rows = []
    for t in trend.tests:
        latest = t.by_night.get(trend.nights[-1], {}) if trend.nights else {}
        figures = "; ".join(
            f"{name} p50 {d['p50']:.2f} / p95 {d['p95']:.2f} / max {d['max']:.2f}"
            for name in FIGURES
            if (d := latest.get(name))
        )
        outcome = "failed" if t.failed else "passed"
        rows.append(
            f"<tr class='run {outcome}' data-outcome='{outcome}'><td>{e(t.test)}</td><td>{t.pass_rate:.0%} "
            f"{_rate_bar(t.pass_rate)}</td><td>{t.runs}</td><td>{t.passed}</td><td>{t.failed}</td>"
            f"<td>{t.expected_failures}</td><td>{t.xpassed}</td><td>{e(figures)}</td></tr>"
        )
    flaky = "".join(
        f"<li><b>{e(f['test'])}</b>: passed {f['passed']}, failed {f['failed']}<br>"
        + "<br>".join(f"<code>{e(c)}</code>" for c in f["replay"])
        + "</li>"
        for f in trend.flaky
    )
    regressions = "".join(f"<li>{e(r)}</li>" for r in trend.regressions)
    unseen_items = "".join(f"<li>{e(u)}</li>" for u in trend.unseen)
    images = "".join(f'<p><img src="{e(p)}" alt="{e(p)}"></p>' for p in plots)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>pulsar-ha nightly trend</title>
<style>{STYLE} .bad{{color:#b00}}</style></head><body>
<h1>Nightly trend</h1>
<p>{len(trend.nights)} night(s), {trend.rounds} round(s): {e(", ".join(trend.nights))}</p>
<h2 class="bad">Regressions ({len(trend.regressions)})</h2><ul>{regressions or "<li>none</li>"}</ul>
<h2>Flaky ({len(trend.flaky)})</h2><ul>{flaky or "<li>none</li>"}</ul>
<h2 class="bad">Expected failures not seen in {UNSEEN_AFTER}+ runs ({len(trend.unseen)})</h2>
<ul>{unseen_items or "<li>none</li>"}</ul>
<h2>Per test</h2>{FILTER.format(options="<option>failed</option><option>passed</option>", mark_select="")}
<table><tr><th>test</th><th>pass rate</th><th>runs</th><th>passed</th><th>failed</th><th>XFAIL</th><th>XPASS</th>
<th>figures, latest night</th></tr>{"".join(rows)}</table>
{images}
</body></html>
"""
