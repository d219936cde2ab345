"""The default workload path, as a user writes it first: 1 KB messages on two geo-replicated clusters, no faults,
``rate:`` and nothing else (no ``processes:``: ``auto`` decides), each rate run several times on one
environment, and Pulsar's own ``pulsar-perf`` in the same run on the same clusters for scale.

For each offered rate it prints, per run, the share of sends acknowledged within 1 s of their intended time (the
``availability`` figure, recomputed here from the stored history), how many worker processes ``auto`` chose,
sends that failed, the driver's lag problem if any, and the CPU the runner's process used per message; then per
rate the spread (min / median / max) over the runs. ``--single-process-rates`` runs the single-process driver
(``processes: 1`` written) too: its ceiling (``workload.process_count.SINGLE_PROCESS_MSG_S``) is the highest
rate it kept in every run.

``workload.batching`` is ``auto`` too unless ``--batched-rates`` / ``--unbatched-rates`` write it: above the rate
two clusters take unbatched (``workload.batching_choice.UNBATCHED_MSG_S``) the producers batch, as ``pulsar-perf``
and the Java client do by default; the summary says which each run did.

``pulsar-perf produce`` (with ``pulsar-perf consume`` beside it, 1 KB), unbatched, then batched (its default),
runs ``--perf-runs`` times each against cluster-a on a namespace replicated to cluster-b. It comes from the 4.0.8
distribution (an assembled runtime has no ``bin/pulsar-perf``): a 4.0.8 client tool against the brokers of
the version under test.

    python benchmarks/default_workload.py --pulsar-versions 4.2.4,4.0.8 --rates 2000,5000,20000,50000 \
        --unbatched-rates 20000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from pytest_pulsar_ha import HaSettings, build_environment, parse_clusters  # noqa: E402
from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_pulsar  # noqa: E402
from pytest_pulsar_ha.run.conductor import execute  # noqa: E402
from pytest_pulsar_ha.scenario.loader import parse_scenarios  # noqa: E402

ACK_WITHIN_S = 1.0
KEPT = 0.99
"""A run kept its rate when at least this share of its sends was acknowledged within :data:`ACK_WITHIN_S`."""
SETTLE_S = 10.0
"""Seconds between runs: a saturated cluster drains what it was sent before the next run checks its health."""

SCENARIO = """\
scenarios:
  - name: {name}
    topology: {{clusters: [cluster-a, cluster-b]}}
    provider: {{kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 1s,
               failover_delay: 5s, switch_back_delay: 5s}}
    workload:
      topics: [{{name: steady}}]
      rate: {rate}/s
      message_size: 1KB
      duration: {seconds}s
{processes}{batching}    expect:
      - availability: {{min_ratio: 0.95, ack_within: 1s}}
"""


def case_for(rate: int, seconds: int, single: bool = False, batching: bool | None = None) -> Any:
    """The scenario of one offered rate: ``processes`` and ``batching`` as the default (``auto``) unless given."""
    written = {None: "", True: "-batched", False: "-unbatched"}[batching]
    name = f"steady-{rate}" + ("-single" if single else "") + written
    processes = "      processes: 1\n" if single else ""
    batched = "" if batching is None else f"      batching: {str(batching).lower()}\n"
    text = SCENARIO.format(name=name, rate=rate, seconds=seconds, processes=processes, batching=batched)
    (case,) = parse_scenarios(text, "default.pulsar-ha.yaml")
    return case


def acked_within(history_parquet: Path) -> tuple[int, int, int]:
    """(sends, sends acknowledged within 1 s of their intended time, failed sends), from the stored history."""
    import json

    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    table = pq.read_table(history_parquet, columns=["ts_ns", "type", "producer", "seq", "detail"])
    sends = table.filter(pc.equal(table["type"], "send")).to_pylist()
    acks = table.filter(pc.equal(table["type"], "ack")).to_pylist()
    errors = table.filter(pc.equal(table["type"], "send_error")).num_rows
    first_ack: dict[tuple[str, int], int] = {}
    for ack in acks:
        key = (ack["producer"], ack["seq"])
        first_ack[key] = min(first_ack.get(key, ack["ts_ns"]), ack["ts_ns"])
    within = 0
    for send in sends:
        intended = json.loads(send["detail"])["intended_ns"]
        acked = first_ack.get((send["producer"], send["seq"]))
        within += acked is not None and acked - intended <= ACK_WITHIN_S * 1e9
    return len(sends), within, errors


def run_case(env: Any, case: Any, out: Path, seed: int) -> dict[str, Any]:
    cpu_before = time.process_time()
    result = execute(case, env, evidence_dir=out, spark=lambda: None, seed=seed)
    env.heal()
    cpu_s = time.process_time() - cpu_before
    time.sleep(SETTLE_S)
    if "history_parquet" not in result.evidence:  # the run never started its workload (say why)
        why = f"not run ({getattr(result, 'ended', '?')}): " + "; ".join(result.problems)[:300]
        return {
            "sends": 0,
            "within": 0,
            "ratio": 0.0,
            "errors": 0,
            "processes": "-",
            "batching": "-",
            "lag": why,
            "runner_cpu_us": 0.0,
        }
    sends, within, errors = acked_within(Path(result.evidence["history_parquet"]))
    lag = [p for p in result.problems if "could not keep" in p]
    return {
        "sends": sends,
        "within": within,
        "ratio": within / sends if sends else 0.0,
        "errors": errors,
        "processes": result.facts.get("workload processes", "?").split(" ")[0],
        "batching": result.facts.get("workload batching", "?").split(" ")[0],
        "lag": lag[0] if lag else "",
        "runner_cpu_us": cpu_s / sends * 1e6 if sends else 0.0,
    }


def perf_runs(env: Any, runs: int, seconds: int, batching: bool) -> list[float]:
    from throughput import pulsar_perf

    dist = ensure_pulsar("4.0.8", default_cache_dir(), print)
    url = env.cluster("cluster-a").service_url  # through its proxy, as the workload's clients
    rates = []
    for run in range(runs):
        namespace = env.create_geo_namespace()
        figures = pulsar_perf(dist.home, dist.java, url, seconds, batching=batching, namespace=namespace)
        print(
            f"pulsar-perf {'batched' if batching else 'unbatched'} run {run + 1}/{runs}: "
            f"{figures['msg_s']:,.0f} msg/s (p99 {figures['p99_ms']:.0f} ms), "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        rates.append(figures["msg_s"])
    return rates


def spread(values: list[float], form: str) -> str:
    return " / ".join(form.format(v) for v in (min(values), statistics.median(values), max(values)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pulsar-versions", default="4.2.4,4.0.8", help="each on an environment of its own")
    parser.add_argument("--rates", default="2000,5000,20000,50000", help="offered msg/s, comma-separated")
    parser.add_argument("--single-process-rates", default="", help="rates to run with processes: 1 written too")
    parser.add_argument("--batched-rates", default="", help="rates to run with batching: true written too")
    parser.add_argument("--unbatched-rates", default="", help="rates to run with batching: false written too")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--perf-runs", type=int, default=3)
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split(",") if r]
    singles = [int(r) for r in args.single_process_rates.split(",") if r]
    batched = [int(r) for r in args.batched_rates.split(",") if r]
    unbatched = [int(r) for r in args.unbatched_rates.split(",") if r]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped benchmark still stops what it started
    for version in args.pulsar_versions.split(","):
        cases = [(f"{r:,}/s, auto", case_for(r, args.seconds)) for r in rates]
        cases += [(f"{r:,}/s, processes: 1", case_for(r, args.seconds, single=True)) for r in singles]
        cases += [(f"{r:,}/s, batching: true", case_for(r, args.seconds, batching=True)) for r in batched]
        cases += [(f"{r:,}/s, batching: false", case_for(r, args.seconds, batching=False)) for r in unbatched]
        one_version(version, cases, args)
    return 0


def one_version(version: str, cases: list[tuple[str, Any]], args: argparse.Namespace) -> None:
    settings = HaSettings(clusters=tuple(parse_clusters("2", "--clusters")), pulsar_version=version)
    rows: dict[str, list[dict[str, Any]]] = {}
    out = Path(tempfile.mkdtemp(prefix="default-workload-"))
    with build_environment(settings, progress=print) as env:
        print(f"\nPulsar {env.describe_pulsar()}; 2 clusters, 1 KB messages, {args.seconds} s per run")
        perf = perf_runs(env, args.perf_runs, args.seconds, batching=False) if args.perf_runs else []
        perf_batched = perf_runs(env, args.perf_runs, args.seconds, batching=True) if args.perf_runs else []
        for run in range(args.runs):
            for label, case in cases:
                row = run_case(env, case, out / f"{case.id}-{run}", seed=run)
                rows.setdefault(label, []).append(row)
                print(
                    f"run {run + 1}/{args.runs} {label}: {row['ratio']:.1%} acked within 1 s "
                    f"({row['within']:,} of {row['sends']:,}), {row['errors']:,} failed, {row['processes']} "
                    f"process(es), batching {row['batching']}, runner {row['runner_cpu_us']:.0f} us CPU per send, "
                    f"load average {os.getloadavg()[0]:.1f}" + (f"; {row['lag']}" if row["lag"] else ""),
                    flush=True,
                )
    print(f"\nPulsar {version}, 2 clusters, 1 KB, {args.seconds} s, {args.runs} runs each")
    print("offered                    acked within 1 s (min / median / max)   kept   processes   batching")
    for label, runs in rows.items():
        kept = sum(r["ratio"] >= KEPT and not r["lag"] for r in runs)
        ratios = spread([r["ratio"] * 100 for r in runs], "{:.1f}%")
        processes = ",".join(sorted({r["processes"] for r in runs}))
        batching = ",".join(sorted({r["batching"] for r in runs}))
        print(f"{label:<26} {ratios:<39} {kept}/{len(runs)}    {processes:<11} {batching}")
    if perf:
        print(f"pulsar-perf (4.0.8's, batching off) msg/s: {spread(perf, '{:,.0f}')} over {len(perf)} runs")
        print(f"pulsar-perf (4.0.8's, batching on) msg/s: {spread(perf_batched, '{:,.0f}')} over {len(perf)} runs")


if __name__ == "__main__":
    raise SystemExit(main())
