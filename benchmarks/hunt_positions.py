"""Where the hunt's duplicates and losses are (#39), read from the stored histories of its runs: for every message a
subscription (or reader) received more than once, whether it was received at one position (a redelivery) or at
several (the cluster stored it more than once); for every acknowledged message never received, which cluster
acknowledged it. The checks count duplicates and losses; this tells a message stored twice from one delivered twice.

    python benchmarks/hunt_positions.py reports/hunt/4.2.4/huntB-run-1 reports/hunt/4.2.4/huntB-run-2 ...

Prints a line per case and run directory.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path


def positions(history: Path) -> str:
    """One case's line: its duplicates by how many positions they were received at, and its losses by acker."""
    receipts: dict[tuple[str, str, int], set[str]] = collections.defaultdict(set)
    counts: collections.Counter[tuple[str, str, int]] = collections.Counter()
    acks: dict[tuple[str, int], str] = {}
    received: set[tuple[str, int]] = set()
    with history.open() as lines:
        for line in lines:
            event = json.loads(line)
            key = (event.get("producer") or "", int(event.get("seq") or 0))
            if event["type"] == "ack":
                acks[key] = event.get("cluster") or "unknown"
            elif event["type"] == "receive":
                where = (event.get("subscription") or "", *key)
                receipts[where].add(f"{event.get('cluster')}@{event.get('message_id')}")
                counts[where] += 1
                received.add(key)
    duplicated = [where for where, n in counts.items() if n > 1]
    stored_twice = sum(1 for where in duplicated if len(receipts[where]) > 1)
    lost = collections.Counter(cluster for key, cluster in acks.items() if key not in received)
    lost_text = ", ".join(f"{n} acknowledged by {cluster}" for cluster, n in sorted(lost.items())) or "none"
    return (
        f"received more than once: {len(duplicated)} messages, {stored_twice} of them at more than one position; "
        f"acknowledged, never received: {lost_text}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="evidence directories (--pulsar-ha-evidence-dir)")
    args = parser.parse_args()
    for run in args.runs:
        for history in sorted(run.glob("*/history.jsonl")):
            print(f"{run.name} {history.parent.name}: {positions(history)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
