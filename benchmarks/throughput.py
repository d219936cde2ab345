"""The project's workload (history on) against Pulsar's own ``pulsar-perf``, on one standalone of the same Pulsar,
on this machine, in the same run: 1 KB messages on one topic, producers with a consumer beside them.

* ``pulsar-perf produce`` (with ``pulsar-perf consume`` on the topic) at an unreachable rate, batching off and on
  (on: the same batching settings as the workload's, the Python client's defaults: 10 ms, 1,000 messages,
  128 KB): its aggregated msg/s and publish latency (p50, p99); batching on again after the workload's runs (one
  broker's throughput varies from run to run: the ratio is taken against the better pulsar-perf run);
* the workload as scenarios run it at rate, the fleet (:class:`~pytest_pulsar_ha.workload.fleet.fleet.FleetWorkload`:
  each producer and the consumer in a worker process of its own, every send, ack and receipt written to the
  history's Parquet parts as it runs), batching off and on, at offered rates in turn: msg/s acknowledged (acks over
  the time from the first send to the last ack), publish latency (ack time - send time, from the history), and
  whether it kept the rate (at least 95% of the offered sends acknowledged within 1 s, no producer falling behind
  its open loop, every acknowledged send received).

A fresh broker runs a ``pulsar-perf`` warm-up first (not counted: its JIT is cold). It prints a table and the
ratio of the workload's best kept rate to pulsar-perf's msg/s. Needs the binary
distribution (it has ``bin/pulsar-perf``): 4.0.8 by default.

    python benchmarks/throughput.py --seconds 20 --rates 20000,40000,50000 --unbatched-rates 10000,20000
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
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
from pytest_pulsar_ha.workload.fleet.config import Service  # noqa: E402
from pytest_pulsar_ha.workload.fleet.fleet import FleetTarget, FleetWorkload  # noqa: E402
from pytest_pulsar_ha.workload.plan import WorkloadPlan  # noqa: E402

SIZE = 1024
THROUGHPUT = re.compile(r"Aggregated throughput stats --- (\d+) records (?:sent|received) --- ([\d.]+) msg/s")
LATENCY = re.compile(
    r"Aggregated latency stats --- Latency: mean:\s*([\d.]+) ms - med:\s*([\d.]+) .*?99pct:\s*([\d.]+)"
)


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _descendants() -> dict[int, tuple[float, str]]:
    """Every process under this one: pid -> (CPU seconds so far, user and system, all threads; command line)."""
    parents: dict[int, int] = {}
    found: dict[int, tuple[float, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        fields = stat.rsplit(")", 1)[1].split()
        parents[int(entry)] = int(fields[1])
        found[int(entry)] = ((int(fields[11]) + int(fields[12])) / CLOCK_TICKS, command)
    ours_ = {os.getpid()}
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in ours_ and pid not in ours_:
                ours_.add(pid)
                changed = True
    return {pid: found[pid] for pid in ours_ if pid in found}


def _role(pid: int, command: str, workers: dict[int, str]) -> str:
    if pid == os.getpid():
        return "this process"
    if pid in workers:
        return f"worker ({workers[pid]})"
    if "PulsarStandaloneStarter" in command:
        return "broker (standalone)"
    if "PulsarPerfTestTool" in command:
        return "pulsar-perf " + ("produce" if " produce " in command else "consume")
    return "other (toxiproxy, shells)"


class CpuShare:
    """Cores used by each process under this one over a window of a run (``/proc``: user and system time of all
    its threads): where the two cores go."""

    def __init__(self, delay_s: float, window_s: float, workers: Any = None) -> None:
        self.delay_s, self.window_s, self.workers = delay_s, window_s, workers
        self.cores: dict[str, float] = {}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        time.sleep(self.delay_s)
        before, began = _descendants(), time.monotonic()
        time.sleep(self.window_s)
        after, span = _descendants(), time.monotonic() - began
        workers = self.workers() if callable(self.workers) else {}
        for pid, (seconds, command) in after.items():
            role = _role(pid, command, workers)
            used = seconds - before.get(pid, (seconds, ""))[0]
            self.cores[role] = self.cores.get(role, 0.0) + used / span

    def result(self) -> dict[str, float]:
        self._thread.join()
        return {role: round(cores, 2) for role, cores in sorted(self.cores.items()) if cores >= 0.005}


def pulsar_perf(
    home: Path, java: Path, url: str, seconds: int, batching: bool, namespace: str = "public/default"
) -> dict[str, float]:
    """``pulsar-perf produce`` beside ``pulsar-perf consume`` on a fresh topic of ``namespace``; the producer's
    aggregated figures."""
    topic = f"persistent://{namespace}/perf-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "JAVA_HOME": str(java.parent.parent), "PULSAR_LOG_DIR": "/tmp", "PULSAR_MEM": "-Xmx1g"}
    perf = str(home / "bin" / "pulsar-perf")
    consume = subprocess.Popen(
        [perf, "consume", "-u", url, "-ss", "perf", "-time", str(seconds + 10), topic],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        time.sleep(5)  # the subscription exists before the first send
        return _produce(perf, env, url, topic, seconds, batching)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(consume.pid, signal.SIGTERM)
        consume.communicate(timeout=60)


def _produce(perf: str, env: dict[str, str], url: str, topic: str, seconds: int, batching: bool) -> dict[str, float]:
    produce = [perf, "produce", "-u", url, "-r", "1000000", "-s", str(SIZE), "-time", str(seconds), "-o", "5000"]
    if batching:
        # the workload's batching settings (WorkloadPlan's defaults: the Python client's)
        produce += ["-b", str(WorkloadPlan.batch_delay_ms), "-bm", str(WorkloadPlan.batch_max_messages)]
        produce += ["-bb", str(WorkloadPlan.batch_max_bytes)]
    else:
        produce.append("-db")
    share = CpuShare(5.0, max(seconds - 8.0, 2.0))  # the middle of the run: the JVMs started, still sending
    done = subprocess.run([*produce, topic], env=env, capture_output=True, text=True, check=False)
    text = done.stdout + done.stderr
    rate, latency = THROUGHPUT.findall(text), LATENCY.findall(text)
    if done.returncode != 0 or not rate or not latency:
        raise SystemExit(f"pulsar-perf produce failed ({done.returncode}):\n{text[-3000:]}")
    figures = {"msg_s": float(rate[-1][1]), "p50_ms": float(latency[-1][1]), "p99_ms": float(latency[-1][2])}
    return {**figures, "cores": share.result()}


def plan_for(topic: str, rate: int, producers: int, consumers: int, seconds: int, batching: bool) -> WorkloadPlan:
    return WorkloadPlan(
        topics=[topic],
        producers=producers,
        consumers=consumers,
        subscription_type="exclusive" if consumers == 1 else "shared",
        keys=0,
        rate_per_second=rate / producers,
        message_size=SIZE,
        duration_s=seconds,
        replicated_subscriptions=False,
        send_timeout_ms=30_000,
        seed=1,
        batching=batching,
    )


def history_figures(files: list[Path]) -> dict[str, Any]:
    """Acks, receipts, send errors and publish latencies (ack - send of each acknowledged send) of the parts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pa.concat_tables([pq.read_table(str(path)) for path in files])
    kinds = {kind: table.filter(pc.equal(table["type"], kind)) for kind in (SEND, ACK, "receive", "send_error")}
    keys = ["producer", "seq"]
    sends = kinds[SEND].select([*keys, "ts_ns"]).rename_columns([*keys, "sent_ns"])
    joined = kinds[ACK].select([*keys, "ts_ns"]).join(sends, keys, join_type="inner")
    latency_ms = (joined["ts_ns"].to_numpy() - joined["sent_ns"].to_numpy()) / 1e6
    span_s = (joined["ts_ns"].to_numpy().max() - joined["sent_ns"].to_numpy().min()) / 1e9 if len(joined) else 0.0
    return {
        "acks_without_send": kinds[ACK].num_rows - joined.num_rows,
        "span_s": float(span_s),
        "acked_within_1s": int((latency_ms <= 1000).sum()),
        "sends": kinds[SEND].num_rows,
        "acks": kinds[ACK].num_rows,
        "receipts": kinds["receive"].num_rows,
        "errors": kinds["send_error"].num_rows,
        "p50_ms": float(np.percentile(latency_ms, 50)) if len(latency_ms) else float("nan"),
        "p99_ms": float(np.percentile(latency_ms, 99)) if len(latency_ms) else float("nan"),
        "rows": table.num_rows,
        "bytes": sum(path.stat().st_size for path in files),
    }


def ours(url: str, rate: int, producers: int, seconds: int, batching: bool, work: Path) -> dict[str, float]:
    """The fleet at ``rate`` msg/s offered (``producers`` open-loop producers, one consumer, a process each),
    its history written as it runs."""
    topic = f"persistent://public/default/workload-{uuid.uuid4().hex[:8]}"
    plan = plan_for(topic, rate, producers, 1, seconds, batching)
    parts = work / f"{rate}-{int(batching)}" / "parts"
    fleet = FleetWorkload(
        plan, EventLog(), FleetTarget(Service(url)), processes=producers + 1, parts_dir=parts, into_log=False
    )
    fleet.start()
    share = CpuShare(4.0, max(seconds - 6.0, 2.0), fleet.worker_processes)
    try:
        time.sleep(seconds)
        fleet.stop_sending()
        drained = fleet.drain(60)
        shortfalls = fleet.rate_shortfalls()
    finally:
        fleet.stop()
    figures = history_figures(fleet.part_files())
    kept = (
        figures["acked_within_1s"] >= 0.95 * rate * seconds
        and not shortfalls
        and drained
        and not figures["acks_without_send"]
    )
    return {
        "offered": rate,
        "msg_s": figures["acks"] / figures["span_s"] if figures["span_s"] else 0.0,
        "kept": float(kept),
        "p50_ms": figures["p50_ms"],
        "p99_ms": figures["p99_ms"],
        "events": float(figures["rows"]),
        "errors": float(figures["errors"]),
        "history_mb": figures["bytes"] / 1e6,
        "cores": share.result(),
        "why": "; ".join(
            [
                *shortfalls[:1],
                *([] if drained else ["not every acknowledged send was received"]),
                *([f"{figures['acks_without_send']} acks without their send"] if figures["acks_without_send"] else []),
                f"{figures['acked_within_1s'] / (rate * seconds):.0%} of the offered sends acknowledged within 1 s",
            ]
        )[:160],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=20, help="seconds of pulsar-perf first, not counted (0: none)")
    parser.add_argument("--rates", default="20000,40000,50000", help="offered rates of the batched workload, msg/s")
    parser.add_argument(
        "--unbatched-rates", default="", help="offered rates of the workload with batching off (default: --rates)"
    )
    parser.add_argument("--producers", type=int, default=2, help="producers, each in a worker process of its own")
    parser.add_argument("--pulsar-version", default="4.0.8", help="a binary distribution (it has pulsar-perf)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped benchmark still stops what it started
    cache = default_cache_dir()
    dist = ensure_pulsar(args.pulsar_version, cache, print)
    if not (dist.home / "bin" / "pulsar-perf").exists():
        parser.error(f"Pulsar {args.pulsar_version} here has no bin/pulsar-perf (an assembled runtime): use 4.0.8")
    settings = HaSettings(clusters=tuple(parse_clusters("1", "--clusters")), pulsar_version=args.pulsar_version)
    env = build_environment(settings, progress=print)
    rows: list[tuple[str, dict[str, Any]]] = []
    with env, tempfile.TemporaryDirectory(prefix="throughput-") as work:
        url = env.cluster(env.names[0]).direct_service_url
        if args.warmup:  # a fresh broker's JIT is cold: the first run would pay for it
            print("warm-up (not counted):", pulsar_perf(dist.home, dist.java, url, args.warmup, True), flush=True)
        for batching in (False, True):
            figures = pulsar_perf(dist.home, dist.java, url, args.seconds, batching)
            rows.append((f"pulsar-perf, batching {'on' if batching else 'off'}", figures))
            print(rows[-1], flush=True)
        for batching in (False, True):
            offered = args.rates if batching else (args.unbatched_rates or args.rates)
            for rate in (int(r) for r in offered.split(",") if r.strip()):
                figures = ours(url, rate, args.producers, args.seconds, batching, Path(work))
                rows.append((f"workload {'batched' if batching else 'unbatched'}, {rate:,}/s offered", figures))
                print(rows[-1], flush=True)
        # pulsar-perf again after the workload's runs: one broker's throughput varies from run to run, and the
        # ratio is taken against the better of the two (the goal is not met by a slow pulsar-perf run)
        figures = pulsar_perf(dist.home, dist.java, url, args.seconds, True)
        rows.append(("pulsar-perf, batching on, again", figures))
        print(rows[-1], flush=True)
    cores = os.cpu_count()
    print(f"\nPulsar {args.pulsar_version}, one standalone, {SIZE} B messages, {args.seconds} s each, {cores} cores")
    print(f"{'':<38} {'msg/s':>10} {'p50 ms':>8} {'p99 ms':>8}  {'history':>10}  kept the rate")
    for label, f in rows:
        kept = "" if "offered" not in f else ("yes" if f["kept"] else f"no: {f['why'] or 'under 95% acknowledged'}")
        history = f"{f['history_mb']:>7.1f} MB" if "history_mb" in f else ""
        print(f"{label:<38} {f['msg_s']:>10,.0f} {f['p50_ms']:>8.1f} {f['p99_ms']:>8.1f}  {history:>10}  {kept}")
    print(f"workload: {args.producers} producers and 1 consumer, each in a worker process; history: Parquet parts")
    print("cores used over the middle of each run (/proc: user + system time of every thread, per process):")
    for label, f in rows:
        if f.get("cores"):
            total = sum(f["cores"].values())
            shares = ", ".join(f"{role} {cores:.2f}" for role, cores in f["cores"].items())
            print(f"  {label}: {total:.2f} in all: {shares}")
    for batching in ("off", "on"):
        label = "batched" if batching == "on" else "unbatched"
        best = max((f["msg_s"] for name, f in rows if name.startswith(f"workload {label},") and f["kept"]), default=0.0)
        perf = max(f["msg_s"] for name, f in rows if name.startswith(f"pulsar-perf, batching {batching}"))
        print(
            f"batching {batching}: the workload's best kept rate {best:,.0f} msg/s / pulsar-perf's best {perf:,.0f} "
            f"msg/s = {best / perf:.1%} (goal: at least 50% with batching)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
