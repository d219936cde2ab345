"""The evidence of one scenario run: the timeline picture, its HTML report and ``verdict.json``."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_pulsar_ha.history import Event
from pytest_pulsar_ha.report.result import ScenarioResult
from pytest_pulsar_ha.report.sparkline import activity_of


def write_evidence(result: ScenarioResult, events: list[Event], evidence_dir: Path) -> None:
    """Write the evidence files into ``evidence_dir`` and list them in ``result.evidence``."""
    from pytest_pulsar_ha.report.run_page import render_run_page
    from pytest_pulsar_ha.report.timeline import render_html, render_png

    title = f"{result.case_id}: {result.outcome}"
    if events:
        result.activity = activity_of(events)
        png = render_png(events, evidence_dir / "timeline.png", title)
        result.evidence["timeline"] = png
        summary = [
            (c.name, "passed" if c.ok else "failed", f"{c.measured} (expected {c.expected})") for c in result.checks
        ]
        summary += [("problem", "failed", p) for p in result.problems]
        result.evidence["report"] = render_html(png, evidence_dir / "report.html", title, summary, result.facts)
        page = evidence_dir / "run.html"
        result.evidence["run_page"] = render_run_page(events, result.checks, result.facts, title, page)
    write_verdict(result, evidence_dir)


def write_verdict(result: ScenarioResult, evidence_dir: Path) -> Path:
    """Write ``verdict.json`` (the outcome and its reason, the verdicts with their figures, the facts) into
    ``evidence_dir``; list it in ``result.evidence``. What ``pulsar-ha mutate``, ``nightly`` and ``findings`` read."""
    evidence_dir.mkdir(parents=True, exist_ok=True)
    path = evidence_dir / "verdict.json"
    result.evidence["verdict"] = path
    verdict = {
        "id": result.case_id,
        "test": result.test,
        "mutant": result.mutant,
        "outcome": result.outcome,
        "reason": result.reason,
        "ended": result.ended,
        "seed": result.seed,
        "versions": result.versions,
        "problems": result.problems,
        "facts": result.facts,
        "checks": [c.to_dict() for c in result.checks],
        "figures": None if result.figures is None else result.figures.to_dict(),
        "side_by_side": None if result.side_by_side is None else result.side_by_side.to_dict(),
        "evidence": {k: str(v) for k, v in result.evidence.items()},
        "phases": result.phases,
        "deadlocks": [
            {
                "cluster": d.cluster,
                "threads": list(d.threads),
                "known": None if d.known is None else d.known.name,
                "upstream": None if d.known is None else d.known.upstream,
                "before_faults": d.before_faults,
            }
            for d in result.deadlocks
        ],
    }
    path.write_text(json.dumps(verdict, indent=2))
    return path
