"""``pulsar-ha nightly``: run the suite round after round with fresh seeds, and the trend across nights.

    pulsar-ha nightly run --results RESULTS --rounds 3 -- scenarios/ -m "not wedges_client"
    pulsar-ha nightly run --results RESULTS --for 30m -- scenarios/generated-chaos.pulsar-ha.yaml
    pulsar-ha nightly run --results RESULTS --rounds 4 --versions 4.0.8,4.2.4 -- scenarios/  # versions in turn
    pulsar-ha nightly report --results RESULTS            # RESULTS/trend.html, trend.json

``run`` ends with the trend page too. Its exit code: 0 every round passed (expected failures included); 1 a
test failed in some round (the replay commands are printed and kept in the trend page); 2 no round could run;
4 or 5 pytest refused the arguments or found no tests.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import ConfigurationError


def _duration(text: str) -> float:
    from pytest_pulsar_ha.scenario.quantities import Duration

    try:
        return Duration(text).seconds
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None


def add_nightly_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "nightly",
        help="nightly chaos runs: rounds with fresh seeds, and the trend report across nights",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = parser.add_subparsers(dest="step", required=True)
    run = steps.add_parser("run", help="run rounds of pytest, each with a fresh seed; then write the trend")
    run.add_argument("--results", type=Path, required=True, help="the results directory (nights accumulate)")
    run.add_argument("--rounds", type=int, help="how many rounds")
    run.add_argument("--for", dest="budget", type=_duration, help="a time budget, e.g. 30m (no round starts that "
                     "would, at the slowest round's pace, end after it)")  # fmt: skip
    run.add_argument("--seed", type=int, help="the first round's seed (default: drawn afresh)")
    run.add_argument("--versions", default="", help="Pulsar versions the rounds take in turn, e.g. 4.0.8,4.2.4")
    run.add_argument("--keep-passed-evidence", action="store_true", help="do not prune passed tests' evidence")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --: what pytest runs, e.g. scenarios/")
    run.set_defaults(func=cmd_nightly_run)
    report = steps.add_parser("report", help="write RESULTS/trend.html and trend.json from every night")
    report.add_argument("--results", type=Path, required=True)
    report.set_defaults(func=cmd_nightly_report)


def cmd_nightly_run(args: argparse.Namespace) -> int:
    from pytest_pulsar_ha.nightly.rounds import NightPlan, run_night
    from pytest_pulsar_ha.nightly.trend import write_trend

    pytest_args = [a for a in args.pytest_args if a != "--"]
    if args.rounds is None and args.budget is None:
        raise ConfigurationError("nightly run needs --rounds N or --for DURATION")
    if args.rounds is not None and args.rounds < 1:
        raise ConfigurationError(f"--rounds must be at least 1, got {args.rounds}")
    if not pytest_args:
        raise ConfigurationError("nightly run needs what pytest runs after --, e.g. -- scenarios/")
    from pytest_pulsar_ha.settings import check_version

    versions = tuple(check_version(v.strip(), "--versions") for v in args.versions.split(",") if v.strip())
    plan = NightPlan(
        args.results, tuple(pytest_args), args.rounds, args.budget, args.keep_passed_evidence, args.seed, versions
    )
    code, records = run_night(plan, say=lambda m: print(m, flush=True))
    page = write_trend(args.results)
    print(f"[nightly] {len(records)} round(s); trend: {page}")
    return code


def cmd_nightly_report(args: argparse.Namespace) -> int:
    from pytest_pulsar_ha.nightly.trend import write_trend

    if not args.results.is_dir():
        raise ConfigurationError(f"--results {args.results}: no such directory")
    print(f"trend: {write_trend(args.results)}")
    return 0
