"""``pulsar-ha findings``: keep runs' observations of Pulsar's known behaviours, and the page of them per version.

    pulsar-ha findings record reports/matrix/4.2.4      # every verdict.json below it; appends to the data file
    pulsar-ha findings page                             # rewrites docs/results/findings.md from the data file
    pulsar-ha findings report pip136-silent-no-op       # writes docs/results/reports/<finding>.md (--all: each)
    pulsar-ha findings script pip136-silent-no-op --version 4.2.4 --runs 5   # runs its plain script, keeps the output

The data files are ``docs/results/data/findings/observations.jsonl`` (``--data``) and ``runs.jsonl`` (``--runs``);
a run is recorded once (its verdict.json's digest names it).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import ConfigurationError

DATA = Path("docs") / "results" / "data" / "findings" / "observations.jsonl"
RUNS = Path("docs") / "results" / "data" / "findings" / "runs.jsonl"
PAGE = Path("docs") / "results" / "findings.md"
ROOT = Path(".")
"""the repository's root: where the scenario files, the reports and their stored files are read from"""


def add_findings_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "findings",
        help="the findings catalogue: record runs' observations, write the page per Pulsar version",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = parser.add_subparsers(dest="step", required=True)
    record = steps.add_parser("record", help="record the observations of every verdict.json under the folders")
    record.add_argument("reports", nargs="+", type=Path, help="evidence folders (e.g. reports/matrix/4.2.4)")
    record.add_argument("--data", type=Path, default=DATA)
    record.add_argument("--runs", type=Path, default=RUNS, help="where every recorded run's outcome is kept")
    record.add_argument("--version", help="the Pulsar version, for verdicts without one answered version")
    record.set_defaults(func=cmd_findings_record)
    page = steps.add_parser("page", help="write the findings page from the data file")
    page.add_argument("--data", type=Path, default=DATA)
    page.add_argument("--runs", type=Path, default=RUNS)
    page.add_argument("--out", type=Path, default=PAGE)
    page.set_defaults(func=cmd_findings_page)
    report = steps.add_parser("report", help="write a finding's upstream report from the stored data")
    which = report.add_mutually_exclusive_group(required=True)
    which.add_argument("finding", nargs="?", help="the finding's key (as on the findings page)")
    which.add_argument("--all", action="store_true", help="every finding of the catalogue")
    report.add_argument("--data", type=Path, default=DATA)
    report.add_argument("--runs", type=Path, default=RUNS)
    report.add_argument("--root", type=Path, default=ROOT, help="the repository's root (default: here)")
    report.set_defaults(func=cmd_findings_report)
    script = steps.add_parser("script", help="run a finding's plain script here and keep its output and log lines")
    script.add_argument("finding", help="the finding's key (its report folder holds the script)")
    script.add_argument("--version", required=True, help="the Pulsar version to run it on (provisioned if needed)")
    script.add_argument("--runs", type=int, default=1, help="how many times to run it (default 1)")
    script.add_argument("--root", type=Path, default=ROOT, help="the repository's root (default: here)")
    script.set_defaults(func=cmd_findings_script)


def cmd_findings_record(args: argparse.Namespace) -> int:
    from pytest_pulsar_ha.report.findings import case_run, dump, load, load_runs, observe

    known = load(args.data.read_text()) if args.data.exists() else []
    seen = {(o.finding, o.run) for o in known}
    known_runs = {r.run for r in (load_runs(args.runs.read_text()) if args.runs.exists() else [])}
    new_runs = []
    today = datetime.date.today().isoformat()
    added = []
    for folder in args.reports:
        verdicts = sorted(folder.rglob("verdict.json"))
        if not verdicts:
            raise ConfigurationError(f"{folder}: no verdict.json below it (the evidence folder of a pytest run)")
        for path in verdicts:
            try:
                raw = path.read_bytes()
                digest = hashlib.sha256(raw).hexdigest()[:12]
                verdict = json.loads(raw)
                observations = observe(verdict, today, args.version, digest)
                run = case_run(verdict, today, args.version, digest)
            except (ValueError, KeyError, TypeError) as exc:
                raise ConfigurationError(f"{path}: {exc}") from None
            if run.run not in known_runs:
                known_runs.add(run.run)
                new_runs.append(run)
            for o in observations:
                if (o.finding, o.run) not in seen:
                    seen.add((o.finding, o.run))
                    added.append(o)
                    print(f"{o.version} {o.case} seed {o.seed}: {o.finding} {'shown' if o.shown else 'not shown'}")
    args.data.parent.mkdir(parents=True, exist_ok=True)
    with args.data.open("a") as out:
        out.write(dump(added))
    with args.runs.open("a") as out:
        out.write(dump(new_runs))
    print(f"{len(added)} observation(s) added to {args.data}, {len(new_runs)} run(s) to {args.runs}")
    return 0


def cmd_findings_page(args: argparse.Namespace) -> int:
    from pytest_pulsar_ha.report.findings import load, load_runs
    from pytest_pulsar_ha.report.findings_page import render

    observations = load(args.data.read_text()) if args.data.exists() else []
    runs = load_runs(args.runs.read_text()) if args.runs.exists() else []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(observations, runs))
    print(f"wrote {args.out} ({len(observations)} observations)")
    return 0


def cmd_findings_report(args: argparse.Namespace) -> int:
    from pytest_pulsar_ha.report.finding_reports import REPORTS, render_report
    from pytest_pulsar_ha.report.findings import FINDINGS, load, load_runs

    known = {f.key: f for f in FINDINGS}
    if not args.all and args.finding not in known:
        raise ConfigurationError(f"no finding {args.finding!r}; the catalogue has {', '.join(known)}")
    observations = load(args.data.read_text()) if args.data.exists() else []
    runs = load_runs(args.runs.read_text()) if args.runs.exists() else []
    out = args.root / REPORTS
    out.mkdir(parents=True, exist_ok=True)
    for finding in FINDINGS if args.all else [known[args.finding]]:
        path = out / f"{finding.key}.md"
        path.write_text(render_report(args.root, finding, observations, runs))
        print(f"wrote {path}")
    return 0


def cmd_findings_script(args: argparse.Namespace) -> int:
    """Run the finding's plain script ``--runs`` times on the provisioned ``--version``; keep what it printed in
    ``runs/<version>.txt`` and the mechanism's log lines in ``logs/<version>/``. Exit 0 when every run showed it."""
    from pytest_pulsar_ha.cli.findings_script import run_script

    if args.runs < 1:
        raise ConfigurationError(f"--runs {args.runs}: give at least 1")
    return run_script(args.root, args.finding, args.version, args.runs)
