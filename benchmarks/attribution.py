"""How many receipts of each run the history attributes to the cluster that delivered them.

Reads the evidence directories of finished runs (``make test`` writes ``reports/pulsar-ha``), one line per case:
its receipts, those whose delivering cluster is ``unknown``, their share, and the receipts per cluster. A
receipt's cluster comes from its message id's ledger id, which the embedded backend makes disjoint per cluster
(``runtime/nodes/ledger_ids.py``); the goal is at most 1% unknown. Exits 1 when a case is over it.

    python benchmarks/attribution.py reports/pulsar-ha reports/high-rate
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from pytest_pulsar_ha.history import RECEIVE
from pytest_pulsar_ha.history.files import iter_events_jsonl

GOAL = 0.01
"""At most this share of a run's receipts may have no delivering cluster."""


def _version(verdict: Path) -> str:
    try:
        facts = json.loads(verdict.read_text()).get("facts", {})
    except (OSError, ValueError):
        return "?"
    return str(facts.get("pulsar", "?")).split(" ")[0].rstrip(";")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("evidence", nargs="+", type=Path, help="evidence directories (one folder per case)")
    args = parser.parse_args()
    worst = 0.0
    rows = []
    for root in args.evidence:
        for history in sorted(root.glob("*/history.jsonl")):
            by_cluster: Counter[str] = Counter()
            for event in iter_events_jsonl(history):
                if event.type == RECEIVE:
                    by_cluster[event.cluster or "unknown"] += 1
            receipts = sum(by_cluster.values())
            if not receipts:
                continue
            unknown = by_cluster.pop("unknown", 0)
            share = unknown / receipts
            worst = max(worst, share)
            clusters = ", ".join(f"{name} {count}" for name, count in sorted(by_cluster.items()))
            case = f"{root.name}/{history.parent.name}"
            rows.append((case, _version(history.parent / "verdict.json"), receipts, unknown, share, clusters))
    if not rows:
        parser.error("no history with receipts under the evidence directories given")
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  pulsar  receipts  unknown  share   delivered by")
    for case, pulsar, receipts, unknown, share, clusters in rows:
        print(f"{case:<{width}}  {pulsar:<6}  {receipts:>8}  {unknown:>7}  {share:>6.2%}  {clusters}")
    over = [r[0] for r in rows if r[4] > GOAL]
    print(f"\n{len(rows)} case(s); the worst share unknown {worst:.2%} (goal: at most {GOAL:.0%})")
    if over:
        print(f"over the goal: {', '.join(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
