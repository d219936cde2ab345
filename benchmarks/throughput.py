"""The project's workload (history on) against Pulsar's own ``pulsar-perf``, on one standalone of the same Pulsar,
on this machine, in the same run: 1 KB messages on one topic, a producer side and a consumer beside it.

* ``pulsar-perf produce`` (with ``pulsar-perf consume`` on the topic) at an unreachable rate, batching off and on:
  its aggregated msg/s and publish latency (p50, p99);
* the workload (``pytest_pulsar_ha.workload.driver.Workload``, every send, ack and receive recorded), batching off
  and on, at offered rates in turn: msg/s acknowledged, publish latency (ack time - send time), and whether it
  kept the rate (at least 95% of the offered sends acknowledged within the run).

It prints a table and the ratio of the workload's best kept rate to pulsar-perf's msg/s. Needs the binary
distribution (it has ``bin/pulsar-perf``): 4.0.8 by default.

    python benchmarks/throughput.py --seconds 20 --rates 2000,5000,10000
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pytest_pulsar_ha import HaSettings, build_environment, parse_clusters  # noqa: E402
from pytest_pulsar_ha.history import ACK, SEND, EventLog  # noqa: E402
from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_pulsar  # noqa: E402
from pytest_pulsar_ha.workload.driver import Workload, WorkloadPlan  # noqa: E402

SIZE = 1024
THROUGHPUT = re.compile(r"Aggregated throughput stats --- (\d+) records (?:sent|received) --- ([\d.]+) msg/s")
LATENCY = re.compile(
    r"Aggregated latency stats --- Latency: mean:\s*([\d.]+) ms - med:\s*([\d.]+) .*?99pct:\s*([\d.]+)"
)


def pulsar_perf(home: Path, java: Path, url: str, seconds: int, batching: bool) -> dict[str, float]:
    """``pulsar-perf produce`` beside ``pulsar-perf consume`` on a fresh topic; the producer's aggregated figures."""
    topic = f"persistent://public/default/perf-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "JAVA_HOME": str(java.parent.parent), "PULSAR_LOG_DIR": "/tmp", "PULSAR_MEM": "-Xmx1g"}
    perf = str(home / "bin" / "pulsar-perf")
    consume = subprocess.Popen(
        [perf, "consume", "-u", url, "-ss", "perf", "-time", str(seconds + 10), topic],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    time.sleep(5)  # the subscription exists before the first send
    produce = [perf, "produce", "-u", url, "-r", "1000000", "-s", str(SIZE), "-time", str(seconds), "-o", "5000"]
    if not batching:
        produce.append("-db")
    done = subprocess.run([*produce, topic], env=env, capture_output=True, text=True, check=False)
    consume.terminate()
    consume.communicate(timeout=60)
    text = done.stdout + done.stderr
    rate, latency = THROUGHPUT.findall(text), LATENCY.findall(text)
    if done.returncode != 0 or not rate or not latency:
        raise SystemExit(f"pulsar-perf produce failed ({done.returncode}):\n{text[-3000:]}")
    return {"msg_s": float(rate[-1][1]), "p50_ms": float(latency[-1][1]), "p99_ms": float(latency[-1][2])}


def ours(env: Any, rate: int, producers: int, seconds: int, batching: bool) -> dict[str, float]:
    """The workload at ``rate`` msg/s offered (``producers`` open-loop producers), history on."""
    import pulsar

    name = env.names[0]
    topic = f"persistent://public/default/workload-{uuid.uuid4().hex[:8]}"
    plan = WorkloadPlan(
        topics=[topic],
        producers=producers,
        consumers=1,
        subscription_type="exclusive",
        keys=0,
        rate_per_second=rate / producers,
        message_size=SIZE,
        duration_s=seconds,
        replicated_subscriptions=False,
        send_timeout_ms=30_000,
        seed=1,
        batching=batching,
    )
    log = EventLog()
    client = pulsar.Client(env.cluster(name).direct_service_url, operation_timeout_seconds=30)
    workload = Workload(client, plan, log)
    try:
        workload.start()
        started = time.monotonic()
        time.sleep(seconds)
        workload.stop_sending()
        sent_for = time.monotonic() - started
        workload.drain(20)
    finally:
        workload.stop()
        client.close()
    events = log.snapshot()
    sends = {(e.producer, e.seq): e.ts_ns for e in events if e.type == SEND}
    latencies = sorted(
        (e.ts_ns - sends[(e.producer, e.seq)]) / 1e6 for e in events if e.type == ACK and (e.producer, e.seq) in sends
    )
    acked = len(latencies)
    return {
        "offered": rate,
        "msg_s": acked / sent_for,
        "kept": float(acked >= 0.95 * rate * seconds),
        "p50_ms": statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": latencies[int(0.99 * (acked - 1))] if latencies else float("nan"),
        "events": float(len(events)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--rates", default="2000,5000,10000", help="offered rates of the workload, msg/s")
    parser.add_argument("--producers", type=int, default=4)
    parser.add_argument("--pulsar-version", default="4.0.8", help="a binary distribution (it has pulsar-perf)")
    args = parser.parse_args()
    cache = default_cache_dir()
    dist = ensure_pulsar(args.pulsar_version, cache, print)
    if not (dist.home / "bin" / "pulsar-perf").exists():
        parser.error(f"Pulsar {args.pulsar_version} here has no bin/pulsar-perf (an assembled runtime): use 4.0.8")
    settings = HaSettings(clusters=tuple(parse_clusters("1", "--clusters")), pulsar_version=args.pulsar_version)
    env = build_environment(settings, progress=print)
    rows: list[tuple[str, dict[str, float]]] = []
    with env:
        url = env.cluster(env.names[0]).direct_service_url
        for batching in (False, True):
            figures = pulsar_perf(dist.home, dist.java, url, args.seconds, batching)
            rows.append((f"pulsar-perf, batching {'on' if batching else 'off'}", figures))
            print(rows[-1])
        for batching in (False, True):
            for rate in (int(r) for r in args.rates.split(",") if r.strip()):
                figures = ours(env, rate, args.producers, args.seconds, batching)
                rows.append((f"workload {'batched' if batching else 'unbatched'}, {rate:,}/s offered", figures))
                print(rows[-1])
    cores = os.cpu_count()
    print(f"\nPulsar {args.pulsar_version}, one standalone, {SIZE} B messages, {args.seconds} s each, {cores} cores")
    print(f"{'':<34} {'msg/s':>10} {'p50 ms':>8} {'p99 ms':>8}  kept the rate")
    for label, f in rows:
        kept = "" if "offered" not in f else ("yes" if f["kept"] else "no")
        print(f"{label:<34} {f['msg_s']:>10,.0f} {f['p50_ms']:>8.1f} {f['p99_ms']:>8.1f}  {kept}")
    best = max((f["msg_s"] for label, f in rows if "offered" in f and f["kept"]), default=0.0)
    for label, f in rows:
        if label.startswith("pulsar-perf"):
            print(
                f"the workload's best kept rate / {label}: {best / f['msg_s']:.1%} (goal: at least 50% with batching)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
