"""``pulsar-ha mutate``: are my scenarios strong enough? Every selected scenario case runs once unmutated, then
once per mutant (a deliberately broken provider or client, :mod:`pytest_pulsar_ha.mutants`) on one environment; a
case kills a mutant when an expectation able to see it fails on evidence and the unmutated run passed.

    pulsar-ha mutate --list
    pulsar-ha mutate -- scenarios/primary-outage.pulsar-ha.yaml -k "primary-outage and not java"
    pulsar-ha mutate --mutants late,early,drop_one --fail-under 100 -- scenarios/

It prints the kill matrix (case x mutant: killed by which expectation and its figure, survived, not judged and
why, or why the mutant does not apply), read from the runs' ``verdict.json`` (``OUT/evidence``, each with the
outcome and its reason), and writes it to ``OUT/kill-matrix.html`` and ``.json``. Exit status: 0; 1 when
``--fail-under`` is given and the mutation score (killed of the mutants killed or survived) is below it;
pytest's own status where pytest could not run the cases (2-5).
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import ConfigurationError


@dataclass(frozen=True)
class Verdict:
    case: str
    mutant: str
    verdict: str
    """the run's outcome: killed, survived, not applicable or not judged"""
    why: str


def add_mutate_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "mutate",
        help="run scenarios against deliberately broken clients: which mutants do they kill?",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--mutants", default="all", help="a comma list of mutants, or all (default)")
    parser.add_argument("--list", action="store_true", help="list the mutants and what each models, and stop")
    parser.add_argument("--fail-under", type=float, help="exit 1 when the mutation score (percent) is below this")
    parser.add_argument("--out", type=Path, default=Path("reports/mutants"), help="where the matrix goes")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --: what pytest runs, e.g. scenarios/")
    parser.set_defaults(func=cmd_mutate)


def verdicts_from_evidence(evidence: Path, mutants: list[str] | None = None) -> list[Verdict]:
    """The kill matrix from the ``verdict.json`` of every mutated run under ``evidence`` (their outcome and its
    reason), by case, then by mutant in the order of ``mutants``."""
    found = []
    for path in sorted(evidence.glob("*/verdict.json")):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("mutant"), str):
            continue
        mutant = data["mutant"]
        case = str(data.get("id", "")).rsplit("@", 1)[0]
        found.append(Verdict(case, mutant, str(data.get("outcome", "not judged")), str(data.get("reason", ""))[:500]))
    order = {m: i for i, m in enumerate(mutants or [])}
    return sorted(found, key=lambda v: (v.case, order.get(v.mutant, len(order)), v.mutant))


def score(verdicts: list[Verdict]) -> tuple[int, int]:
    """(killed, applicable): the mutants killed, of those that applied and were judged."""
    judged = [v for v in verdicts if v.verdict in ("killed", "survived")]
    return sum(1 for v in judged if v.verdict == "killed"), len(judged)


def render_html(verdicts: list[Verdict]) -> str:
    killed, judged = score(verdicts)
    rows = "".join(
        f"<tr class='{html.escape(v.verdict.replace(' ', '-'))}'><td>{html.escape(v.case)}</td>"
        f"<td>{html.escape(v.mutant)}</td><td>{html.escape(v.verdict)}</td><td>{html.escape(v.why)}</td></tr>"
        for v in verdicts
    )
    return (
        "<!doctype html><meta charset='utf-8'><title>pulsar-ha kill matrix</title><style>"
        "body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left;vertical-align:top}"
        ".killed td:nth-child(3){color:#070}.survived td:nth-child(3){color:#b00;font-weight:bold}"
        ".not-applicable,.not-judged{color:#777}</style>"
        f"<h1>Kill matrix</h1><p>{killed} of {judged} applicable mutants killed.</p>"
        f"<table><tr><th>case</th><th>mutant</th><th>verdict</th><th>why</th></tr>{rows}</table>"
    )


def cmd_mutate(args: argparse.Namespace) -> int:
    from pytest_pulsar_ha.mutants.catalogue import MUTANTS, parse_mutants

    if args.list:
        for name, models in MUTANTS.items():
            print(f"{name:<16} {models}")
        return 0
    try:
        mutants = parse_mutants(args.mutants)
    except ValueError as exc:
        raise ConfigurationError(f"--mutants: {exc}") from None
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    evidence = (out / "evidence").resolve()
    shutil.rmtree(evidence, ignore_errors=True)  # no verdict of an earlier session in this matrix
    pytest_args = [a for a in args.pytest_args if a != "--"]
    command = [sys.executable, "-m", "pytest", f"--pulsar-ha-mutants={','.join(mutants)}"]
    command += [f"--pulsar-ha-evidence-dir={evidence}", *pytest_args]
    status = subprocess.run(command, check=False).returncode
    if status not in (0, 1) or not evidence.exists():
        print(f"pulsar-ha mutate: pytest could not run the cases (exit {status})", file=sys.stderr)
        return status or 2
    verdicts = verdicts_from_evidence(evidence, mutants)
    (out / "kill-matrix.json").write_text(json.dumps([asdict(v) for v in verdicts], indent=1) + "\n")
    (out / "kill-matrix.html").write_text(render_html(verdicts))
    killed, judged = score(verdicts)
    percent = 100.0 * killed / judged if judged else 0.0
    for v in verdicts:
        if v.verdict == "survived":
            print(f"survived: {v.case} @ {v.mutant}: {MUTANTS[v.mutant]}")
    unjudged = sum(1 for v in verdicts if v.verdict == "not judged")
    print(
        f"mutation score: {killed} of {judged} applicable mutants killed ({percent:.0f}%); {unjudged} not judged; "
        f"{out / 'kill-matrix.html'}"
    )
    if args.fail_under is not None and percent < args.fail_under:
        print(f"pulsar-ha mutate: the score {percent:.0f}% is under --fail-under {args.fail_under:g}", file=sys.stderr)
        return 1
    return 0
