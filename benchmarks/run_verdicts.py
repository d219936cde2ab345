"""The verdicts of finished runs, one block per case: its outcome, each expectation's measured figure, and the
run's workload and figures facts. For repeated runs of the same cases (e.g. the production-rate scenarios run
3 times): how many passed, and the spread of each timed expectation.

Reads the ``verdict.json`` of each case under the evidence directories given (``--pulsar-ha-evidence-dir``).
Exits 1 when a case did not pass.

    python benchmarks/run_verdicts.py reports/high-rate/run-1 reports/high-rate/run-2 reports/high-rate/run-3
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

SECONDS = re.compile(r"^([\d.]+)s$")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("evidence", nargs="+", type=Path, help="evidence directories of finished runs")
    args = parser.parse_args()
    outcomes: dict[str, list[str]] = defaultdict(list)
    timings: dict[tuple[str, str], list[float]] = defaultdict(list)
    for root in args.evidence:
        for verdict_path in sorted(root.glob("*/verdict.json")):
            verdict = json.loads(verdict_path.read_text())
            case, facts = verdict["id"], verdict.get("facts", {})
            outcomes[case].append(verdict["outcome"])
            print(f"{root.name}  {case}: {verdict['outcome']} (Pulsar {str(facts.get('pulsar', '?')).split(' ')[0]})")
            for check in verdict.get("checks", []):
                print(f"    {'ok  ' if check['ok'] else 'FAIL'} {check['name']}: {check['measured']}")
                if match := SECONDS.match(str(check["measured"])):
                    timings[(case, check["name"])].append(float(match.group(1)))
            for name in ("workload", "events", "figures"):
                if name in facts:
                    print(f"    {name}: {facts[name]}")
            for problem in verdict.get("problems", []):
                print(f"    problem: {problem}")
    print()
    for case, seen in sorted(outcomes.items()):
        spread = "; ".join(
            f"{name} {min(values):.2f}-{max(values):.2f}s"
            for (timed_case, name), values in sorted(timings.items())
            if timed_case == case
        )
        print(f"{case}: {seen.count('passed')} of {len(seen)} passed" + (f" ({spread})" if spread else ""))
    return 0 if all(set(seen) == {"passed"} for seen in outcomes.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
