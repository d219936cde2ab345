"""How reliably ModularLoadManagerImpl spreads an anti-affinity group (PIP-7) on real brokers, in rounds.

Starts one cluster of 4 brokers in 2 failure domains (``rack-1: [0, 1], rack-2: [2, 3]``) and, per round, makes a
fresh tenant with 4 namespaces in a fresh anti-affinity group, looks one topic up per namespace and reads the
placement back from Pulsar (owned bundles, domains). Prints per round the namespaces per domain and per broker,
the leader, and whether the round was spread (2 + 2 over the domains, one per broker), then the totals; with
``--pause S`` it waits S seconds between lookups, ``--via leader|non-leader`` picks the broker the lookups go to.
The broker logs' lines about anti-affinity and load-report updates of failed rounds are printed too.

    python benchmarks/pip7_placement.py --rounds 10
    python benchmarks/pip7_placement.py --rounds 10 --pause 6 --report-threshold 10
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pytest_pulsar_ha import HaSettings, build_environment  # noqa: E402
from pytest_pulsar_ha.pips.failure_domains import (  # noqa: E402
    cluster_group_placement,
    declare_failure_domains,
    lookup_topic,
    owner_id,
    set_anti_affinity_group,
)
from pytest_pulsar_ha.settings.clusters import ClusterSpec  # noqa: E402

DOMAINS = {"rack-1": [0, 1], "rack-2": [2, 3]}
LOG_WORDS = ("nti-affinity", "ntiAffinity", "Failed to filter", "expired", "preallocat")


def make_group(cluster: Any, tenant: str, group: str, count: int = 4) -> list[str]:
    cluster.admin.put(f"tenants/{tenant}", {"adminRoles": [], "allowedClusters": [cluster.name]})
    namespaces = [f"{tenant}/ns{i}" for i in range(count)]
    for ns in namespaces:
        cluster.admin.put(f"namespaces/{ns}", {})
        set_anti_affinity_group(cluster.admin, ns, group)
    return namespaces


def skew(cluster: Any) -> None:
    """Group 'skewed' of tenant 'skew': placed, then rack-1 killed until rack-2 serves all of it, rack-1 restarted."""
    namespaces = make_group(cluster, "skew", "skewed")
    for ns in namespaces:
        lookup_topic(cluster.brokers[0].direct_admin_url, f"{ns}/t")
    rack1, rack2 = cluster.brokers[:2], cluster.brokers[2:]
    for broker in rack1:
        broker.kill()
    deadline = time.monotonic() + 120
    while True:
        owners = [owner_id(lookup_topic(rack2[0].direct_admin_url, f"{ns}/t", timeout=10)) for ns in namespaces]
        if all(o in {b.id for b in rack2} for o in owners) or time.monotonic() > deadline:
            break
        time.sleep(1)
    for broker in rack1:
        broker.start()
    time.sleep(10)  # fresh load reports from the restarted brokers
    print(f"skew: group 'skewed' of tenant 'skew' now on {sorted(set(owners))} (rack-2); rack-1 restarted", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between the lookups of one round")
    parser.add_argument(
        "--via", choices=("first", "leader", "non-leader"), default="first", help="the broker that gets the lookups"
    )
    parser.add_argument(
        "--report-threshold", default="0", help="loadBalancerReportUpdateThresholdPercentage (Pulsar default 10)"
    )
    parser.add_argument(
        "--skew",
        action="store_true",
        help="first leave 4 namespaces of group 'skewed' all on rack-2 (rack-1 killed and restarted), then place "
        "each round's fresh tenant in that same group: shows whether the load manager counts a group's namespaces "
        "across tenants",
    )
    args = parser.parse_args()
    settings = {"failureDomainsEnabled": "true", "loadBalancerReportUpdateThresholdPercentage": args.report_threshold}
    spec = ClusterSpec("cluster-a", brokers=4, broker_settings=settings)
    base = HaSettings()
    env = build_environment(dataclasses.replace(base, clusters=(spec,)), work_dir=Path(tempfile.mkdtemp()))
    spread = 0
    with env:
        cluster = env.cluster("cluster-a")
        declare_failure_domains(cluster, DOMAINS)
        time.sleep(6)  # the domain map reaches the load manager through a metadata notification
        print(f"started in {env.startup_seconds:.0f}s; brokers {[b.id for b in cluster.brokers]}", flush=True)
        if args.skew:
            skew(cluster)
        for round_ in range(1, args.rounds + 1):
            tenant, group = f"t-{uuid.uuid4().hex[:6]}", "skewed" if args.skew else f"g-{uuid.uuid4().hex[:6]}"
            namespaces = make_group(cluster, tenant, group)
            leader = cluster.admin.get("brokers/leaderBroker")["brokerId"]
            via = {
                "first": cluster.brokers[0],
                "leader": next(b for b in cluster.brokers if b.id == leader),
                "non-leader": next(b for b in cluster.brokers if b.id != leader),
            }[args.via]
            began = time.time()
            for ns in namespaces:
                lookup_topic(via.direct_admin_url, f"{ns}/t")
                time.sleep(args.pause)
            placement = cluster_group_placement(cluster, group, tenant)
            by_domain = {d: len(ns) for d, ns in placement.namespaces_by_domain().items()}
            by_broker = Counter({b: len(ns) for b, ns in placement.namespaces_by_broker().items()})
            ok = by_domain == {"rack-1": 2, "rack-2": 2} and sorted(by_broker.values()) == [1, 1, 1, 1]
            spread += ok
            print(
                f"round {round_}: {'spread' if ok else 'NOT spread'} domains={by_domain} "
                f"brokers={dict(by_broker)} leader={leader}",
                flush=True,
            )
            if not ok:
                print(placement.describe())
                since = time.strftime("%H:%M:%S", time.localtime(began - 1))
                for log in sorted(Path(env.work_dir).rglob("*.log")):
                    for line in log.read_text(errors="replace").splitlines()[-4000:]:
                        if any(w in line for w in LOG_WORDS) and "RequestLog" not in line and line[11:19] >= since:
                            print(f"  {log.name}: {line[:300]}")
    print(
        f"\n{spread} of {args.rounds} rounds spread (pause {args.pause}s, report threshold "
        f"{args.report_threshold}%, lookups via the {args.via} broker)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
