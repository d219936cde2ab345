"""Our AutoClusterFailover next to the client's native ``pulsar.AutoClusterFailover``, on the same faults.

Both run with the same settings (check every 1 s, fail over after 3 s, switch back after 5 s; the native one
takes probe counts, so 3 and 5 checks) against a real two-cluster environment, each with a producer sending
every 50 ms and a consumer. For each fault (an outage of the primary; a hung primary: TCP accepted, nothing
answered) it prints: the time from the fault to the client reporting the backup as its service URL
(detection-to-switch), the time to the first send acknowledged by the backup (read from the brokers' storage),
the sends that failed, and the acknowledged messages never received (lost). Needs ``make setup``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import pulsar

from pulsar_ha_providers import AutoClusterFailover, ClusterEndpoint
from pytest_pulsar_ha import HaSettings, build_environment
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.workload.one_topic import OneTopicWorkload

CHECK_S, FAILOVER_S, SWITCH_BACK_S, FAULT_S = 1.0, 3.0, 5.0, 12.0


def ours(env: PulsarHaEnvironment, probe: str) -> Any:
    a, b = env.cluster("cluster-a"), env.cluster("cluster-b")
    return AutoClusterFailover(
        ClusterEndpoint(a.service_url, name="cluster-a"),
        [ClusterEndpoint(b.service_url, name="cluster-b")],
        check_interval=CHECK_S,
        failover_delay=FAILOVER_S,
        switch_back_delay=SWITCH_BACK_S,
        probe=probe,
    )


def native(env: PulsarHaEnvironment) -> Any:
    return pulsar.AutoClusterFailover(
        pulsar.ServiceInfo(env.cluster("cluster-a").service_url),
        [pulsar.ServiceInfo(env.cluster("cluster-b").service_url)],
        check_interval_ms=int(CHECK_S * 1000),
        failover_threshold=int(FAILOVER_S / CHECK_S),
        switch_back_threshold=int(SWITCH_BACK_S / CHECK_S),
    )


def run_one(env: PulsarHaEnvironment, provider: Any, fault: str) -> dict[str, float | str]:
    client = env.client(provider, operation_timeout_seconds=5)
    backup_url = env.cluster("cluster-b").service_url
    work = OneTopicWorkload(client, f"persistent://{env.create_geo_namespace()}/bench").start()
    try:
        work.wait_for_acks(20)
        failures_before = work.failures
        primary = env.cluster("cluster-a")
        context = primary.outage() if fault == "outage" else primary.hang()
        switch_seen: float | None = None
        began = time.time()
        with context:
            while time.time() - began < FAULT_S:
                if switch_seen is None and client.get_service_info().service_url == backup_url:
                    switch_seen = time.time()
                time.sleep(0.05)
        failed = work.failures - failures_before
        time.sleep(SWITCH_BACK_S + 5)
        work.stop(drain_timeout=60)
        work.attribute(env)
        first = work.first_ack_on("cluster-b", after=began)
        return {
            "switch_s": f"{switch_seen - began:.2f}" if switch_seen else "never",
            "first_ack_backup_s": f"{first.ts - began:.2f}" if first else "never",
            "sends_failed": failed,
            "lost": len(work.lost()),
        }
    finally:
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    contenders: dict[str, Callable[[PulsarHaEnvironment], Any]] = {
        "ours (lookup probe)": lambda env: ours(env, "lookup"),
        "ours (tcp probe)": lambda env: ours(env, "tcp"),
        "native AutoClusterFailover": native,
    }
    with build_environment(HaSettings(), progress=lambda m: None) as env:
        print(f"settings: check {CHECK_S}s, failover {FAILOVER_S}s, switch back {SWITCH_BACK_S}s, fault {FAULT_S}s")
        print(f"{'fault':<7} {'provider':<28} {'switch s':>9} {'1st ack on backup s':>20} {'failed':>7} {'lost':>5}")
        for fault in ("outage", "hang"):
            for name, make in contenders.items():
                rows = [run_one(env, make(env), fault) for _ in range(args.repeat)]
                row = rows[len(rows) // 2] if args.repeat > 1 else rows[0]
                failed = statistics.median(float(r["sends_failed"]) for r in rows)
                lost = max(int(r["lost"]) for r in rows)
                figures = f"{row['switch_s']:>9} {row['first_ack_backup_s']:>20} {failed:>7.0f} {lost:>5}"
                print(f"{fault:<7} {name:<28} {figures}", flush=True)


if __name__ == "__main__":
    main()
