"""The Spark checker against a straightforward single-process Python checker, on generated Parquet histories.

For each size N (events), writes a history of N events (numpy + pyarrow, in chunks of messages: sends, acks on
cluster-a then, after a failover in the middle, on cluster-b, and receipts on two subscriptions, one of them
through the other cluster with a replication lag), with a few anomalies injected (lost, duplicated, reordered
messages, and legitimate cross-cluster interleavings around the failover). Then runs, each in its own subprocess,

* ``spark``: ``spark_checks`` (lost, duplicates, ordering; ``--all-checks`` for the five), and
* ``vectorised``: ``spark_checks.vectorised``, the same three checks in one process with PyArrow and NumPy (no
  Python loop over events): the baseline the ratio is taken against, and
* ``python``: a plain-Python reimplementation of lost + duplicates + ordering that reads the Parquet file with
  pyarrow and iterates over the events (a cross-check of the figures; ``--python-limit`` skips it),

and prints wall time, events per second, the ratio to the vectorised checker, and the peak resident memory of
each (``getrusage`` ``RUSAGE_SELF`` of the checker process, and ``RUSAGE_CHILDREN`` for Spark's JVM). Every
checker must report the same figures: the benchmark doubles as a cross-check of the Spark jobs.

    python benchmarks/spark_checker.py                          # 1M, 10M and 50M events (long!)
    python benchmarks/spark_checker.py --sizes 200000           # a quick run
    python benchmarks/spark_checker.py --sizes 10M --masters 'local[1],local[2]'   # scaling: events/s per core
    python benchmarks/spark_checker.py --sizes 10M --floor                      # + the no-op Spark job's time
    python benchmarks/spark_checker.py --sizes 10M --master spark://host:7077 --python-limit 0
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

T0 = 1_700_000_000_000_000_000
MS = 1_000_000
TOPIC = "persistent://pulsar-ha/bench/orders"
PRODUCERS = 8
KEYS = 16
SPACING_NS = 10_000  # one message every 10 us overall (100k messages/s)
FIGURES = ("lost", "duplicates", "reorders", "allowed_cross_cluster_interleavings")


def parse_size(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    factor = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


# ------------------------------------------------------------------------------------------------ generation


def generate(path: Path, events: int, *, seed: int = 7, chunk_messages: int = 250_000) -> dict[str, int]:
    """Write a history of about ``events`` events (4 per message) as Parquet; returns what was injected."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pytest_pulsar_ha.history import arrow_schema

    rng = np.random.default_rng(seed)
    messages = max(1, events // 4)
    failover = messages // 2
    producer_names = pa.array([f"producer-{i}" for i in range(PRODUCERS)])
    key_names = pa.array([f"k{i}" for i in range(KEYS)])
    types = pa.array(["send", "ack", "receive"])
    clusters = pa.array(["cluster-a", "cluster-b"])
    subscriptions = pa.array(["sub-1", "sub-2"])
    processes = pa.array([f"producer-{i}" for i in range(PRODUCERS)] + ["consumer-1", "consumer-2"])
    schema = arrow_schema()
    injected = {"lost": 0, "duplicated": 0, "delayed": 0}
    rate = max(1e-5, 10 / messages)  # of each anomaly: about 10 in a small history, 1e-5 of a large one

    def strings(indices: Any, vocabulary: Any, mask: Any = None) -> Any:
        array = pa.DictionaryArray.from_arrays(pa.array(indices.astype(np.int32), mask=mask), vocabulary)
        return array.cast(pa.string())

    with pq.ParquetWriter(str(path), schema, compression="snappy") as writer:
        for start in range(0, messages, chunk_messages):
            idx = np.arange(start, min(messages, start + chunk_messages), dtype=np.int64)
            n = len(idx)
            producer = idx % PRODUCERS
            seq = idx // PRODUCERS + 1
            key = seq % KEYS
            send_ts = T0 + idx * SPACING_NS
            on_b = idx >= failover
            ack_ts = send_ts + 2 * MS + rng.integers(0, SPACING_NS * 4, n)
            ack_cluster = on_b.astype(np.int64)
            # sub-1 reads from the acking cluster; sub-2 from the other one (replicated): a->b lags 200 ms,
            # b->a 50 ms, so right after the failover sub-2 gets b's messages before a's last ones (allowed)
            r1_ts = ack_ts + 3 * MS + rng.integers(0, SPACING_NS * 4, n)
            r2_ts = ack_ts + np.where(on_b, 50 * MS, 200 * MS) + rng.integers(0, SPACING_NS * 4, n)
            # anomalies: lose a few of sub-2's receipts, duplicate a few of sub-1's (100 ms later), delay a few
            # of sub-1's by 1 ms (behind later messages of the same producer and cluster: reorders)
            keep2 = rng.random(n) >= rate
            dup1 = rng.random(n) < rate
            late1 = rng.random(n) < rate
            r1_ts = np.where(late1, r1_ts + MS, r1_ts)
            injected["lost"] += int((~keep2).sum())
            injected["duplicated"] += int(dup1.sum())
            injected["delayed"] += int(late1.sum())
            parts = [
                # (ts, type, process, cluster, subscription, producer, seq, key, rows)
                (send_ts, 0, producer, None, None, slice(None)),
                (ack_ts, 1, producer, ack_cluster, None, slice(None)),
                (r1_ts, 2, None, ack_cluster, 0, slice(None)),
                (r2_ts[keep2], 2, None, 1 - ack_cluster[keep2], 1, keep2),
                (r1_ts[dup1] + 100 * MS, 2, None, ack_cluster[dup1], 0, dup1),
            ]
            ts_all, type_all, proc_all, proc_is_consumer, cl_all, cl_null, sub_all, sub_null = ([] for _ in range(8))
            prod_all, seq_all, key_all = [], [], []
            for ts, type_index, process, cluster, sub, rows in parts:
                m = len(ts)
                ts_all.append(ts)
                type_all.append(np.full(m, type_index))
                prod_all.append(producer[rows])
                seq_all.append(seq[rows])
                key_all.append(key[rows])
                if process is not None:
                    proc_all.append(process[rows])
                    proc_is_consumer.append(np.zeros(m, dtype=bool))
                else:
                    proc_all.append(np.full(m, sub))
                    proc_is_consumer.append(np.ones(m, dtype=bool))
                cl_all.append(np.zeros(m, dtype=np.int64) if cluster is None else cluster)
                cl_null.append(np.full(m, cluster is None))
                sub_all.append(np.full(m, 0 if sub is None else sub))
                sub_null.append(np.full(m, sub is None))
            ts = np.concatenate(ts_all)
            order = np.argsort(ts, kind="stable")
            consumer = np.concatenate(proc_is_consumer)[order]
            proc = np.concatenate(proc_all)[order]
            process_names = strings(np.where(consumer, PRODUCERS + proc, proc), processes)
            table = pa.Table.from_arrays(
                [
                    pa.array(ts[order], pa.int64()),
                    strings(np.concatenate(type_all)[order], types),
                    process_names,
                    strings(np.concatenate(cl_all)[order], clusters, np.concatenate(cl_null)[order]),
                    pa.array(np.full(len(ts), TOPIC), pa.string()),
                    strings(np.concatenate(sub_all)[order], subscriptions, np.concatenate(sub_null)[order]),
                    strings(np.concatenate(prod_all)[order], producer_names),
                    pa.array(np.concatenate(seq_all)[order], pa.int64()),
                    strings(np.concatenate(key_all)[order], key_names),
                    pa.nulls(len(ts), pa.string()),
                    pa.nulls(len(ts), pa.string()),
                ],
                schema=schema,
            )
            writer.write_table(table, row_group_size=1_000_000)
    return injected


# ------------------------------------------------------------------------------------------------ checkers


def python_checker(path: Path) -> dict[str, Any]:
    """Lost, duplicates and ordering, the plain way: read every event with pyarrow, dicts and sets, one sort."""
    import pyarrow.parquet as pq

    acks: dict[tuple[str, int], tuple[int, str]] = {}
    receives: list[tuple[int, int, str, str, int, str | None, str | None]] = []
    row = 0
    columns = ["ts_ns", "type", "cluster", "subscription", "producer", "seq", "key"]
    for batch in pq.ParquetFile(str(path)).iter_batches(columns=columns, batch_size=65_536):
        data = batch.to_pydict()
        for ts, kind, cluster, subscription, producer, seq, key in zip(*(data[c] for c in columns), strict=True):
            if kind == "ack":
                known = acks.get((producer, seq))
                if known is None or ts < known[0]:
                    acks[(producer, seq)] = (ts, cluster)
            elif kind == "receive":
                receives.append((ts, row, subscription, producer, seq, key, cluster))
            row += 1
    receives.sort()
    seen: dict[str, set[tuple[str, int]]] = {}
    delivered: set[tuple[str, str, int, str | None]] = set()
    duplicates = reorders = allowed = 0
    top_any: dict[tuple[Any, ...], int] = {}
    top_same: dict[tuple[Any, ...], int] = {}
    top_stream: dict[tuple[Any, ...], int] = {}
    for _, _, subscription, producer, seq, key, cluster in receives:
        got = seen.setdefault(subscription, set())
        first = (producer, seq) not in got
        duplicates += not first
        got.add((producer, seq))
        if (subscription, producer, seq, cluster) in delivered:
            continue  # a redelivery by the same cluster: it may rewind that cluster's stream
        delivered.add((subscription, producer, seq, cluster))
        ack = acks.get((producer, seq))
        cls = ack[1] if ack else None
        groups = [("producer", subscription, producer)]
        if key is not None:
            groups.append(("key", subscription, producer, key))
        for group in groups:
            streamed = top_stream.get((*group, cluster, cls))
            reorder = streamed is not None and seq < streamed
            if streamed is None or seq > streamed:
                top_stream[(*group, cluster, cls)] = seq
            if not first:
                reorders += reorder
                continue
            same = top_same.get((*group, cls))
            anyone = top_any.get(group)
            if reorder or (same is not None and seq < same):
                reorders += 1
            elif anyone is not None and seq < anyone:
                allowed += 1
            if same is None or seq > same:
                top_same[(*group, cls)] = seq
            if anyone is None or seq > anyone:
                top_any[group] = seq
    lost = sum(1 for got in seen.values() for message in acks if message not in got)
    return {
        "events": row,
        "lost": lost,
        "duplicates": duplicates,
        "reorders": reorders,
        "allowed_cross_cluster_interleavings": allowed,
    }


def pq_rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(str(path)).metadata.num_rows)


def spark_checker(
    path: Path, master: str, driver_memory: str, all_checks: bool, shuffle_partitions: int | None
) -> dict[str, Any]:
    from spark_checks import check_duplicates, check_lost, check_ordering
    from spark_checks.checks import check_history
    from spark_checks.load import load_history
    from spark_checks.session import build_spark_session

    began = time.monotonic()
    events = pq_rows(path)
    partitions = shuffle_partitions or max(2 * (os.cpu_count() or 2), min(1024, events // 250_000))
    spark = build_spark_session(
        master, conf={"spark.driver.memory": driver_memory, "spark.sql.shuffle.partitions": str(partitions)}
    )
    started = time.monotonic()
    figures: dict[str, Any] = {}
    if all_checks:
        report = check_history(spark, str(path))
        verdicts = {verdict.name: verdict for verdict in report}
        figures["ok"] = report.ok
    else:
        with load_history(spark, str(path)) as history:
            verdicts = {
                "lost": check_lost(history),
                "duplicates": check_duplicates(history),
                "ordering": check_ordering(history),
            }
            figures["events"] = history.stats["events"]
    checked = time.monotonic()
    figures["lost"] = verdicts["lost"].counts["lost"]
    figures["duplicates"] = verdicts["duplicates"].counts["duplicates"]
    figures["reorders"] = verdicts["ordering"].counts["reorders[producer]"]
    figures["reorders"] += verdicts["ordering"].counts["reorders[key]"]
    figures["allowed_cross_cluster_interleavings"] = verdicts["ordering"].counts["allowed_cross_cluster_interleavings"]
    _stop_and_wait(spark)
    figures["startup_s"] = started - began
    figures["shuffle_partitions"] = partitions
    figures["check_s"] = checked - started
    return figures


def spark_floor(path: Path, master: str, driver_memory: str) -> dict[str, Any]:
    """The floor under any Spark checker: start the JVM, read the columns the checks read once, stop.

    One aggregation over ts_ns, type, cluster, subscription, producer, seq, key (no shuffle): what no Spark job
    on this file can go below, so that the report can say how much of the checker's time is start-up and scan.
    """
    from spark_checks.session import build_spark_session

    began = time.monotonic()
    spark = build_spark_session(master, conf={"spark.driver.memory": driver_memory})
    started = time.monotonic()
    row = (
        spark.read.parquet(str(path))
        .selectExpr(
            "count(1) AS events",
            "count_if(type = 'ack' AND cluster IS NOT NULL) AS acks",
            "count_if(subscription IS NOT NULL AND producer IS NOT NULL AND key IS NOT NULL) AS receipts",
            "max(ts_ns) AS last",
            "max(seq) AS seq",
        )
        .collect()[0]
    )
    scanned = time.monotonic()
    _stop_and_wait(spark)
    return {"events": row["events"], "startup_s": started - began, "check_s": scanned - started}


def _stop_and_wait(spark: Any) -> None:
    """Stop the session and let its JVM exit, so that ``RUSAGE_CHILDREN`` covers it."""
    gateway = spark.sparkContext._gateway
    spark.stop()
    process = getattr(gateway, "proc", None)
    if process is not None:
        if process.stdin:
            process.stdin.close()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_checker(argv: list[str]) -> None:
    """Entry point of the measuring subprocess: run one checker, print its figures and peak memory as JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("checker", choices=("spark", "python", "vectorised", "floor"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--all-checks", action="store_true")
    parser.add_argument("--shuffle-partitions", type=int, default=None)
    args = parser.parse_args(argv)
    began = time.monotonic()
    if args.checker in ("python", "vectorised"):
        if args.checker == "python":
            figures = python_checker(args.path)
        else:
            from spark_checks.vectorised import check_parquet

            figures = dict(check_parquet(args.path))
        figures["check_s"] = time.monotonic() - began
    elif args.checker == "floor":
        figures = spark_floor(args.path, args.master, args.driver_memory)
    else:
        figures = spark_checker(args.path, args.master, args.driver_memory, args.all_checks, args.shuffle_partitions)
    figures["self_maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures["children_maxrss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print("RESULT " + json.dumps(figures))


def cores_of(master: str) -> int:
    """The cores a ``local[N]`` master uses (``local[*]``/``local``: all of this machine's; others: 0, unknown)."""
    if master == "local":
        return 1
    if master.startswith("local[") and master.endswith("]"):
        inside = master[len("local[") : -1].split(",")[0]
        return os.cpu_count() or 1 if inside == "*" else int(inside)
    return 0


def measure(checker: str, path: Path, args: argparse.Namespace, master: str = "") -> dict[str, Any]:
    command = [sys.executable, __file__, "--run-checker", checker, str(path), "--master", master or args.master]
    command += ["--driver-memory", args.driver_memory] + (["--all-checks"] if args.all_checks else [])
    if args.shuffle_partitions:
        command += ["--shuffle-partitions", str(args.shuffle_partitions)]
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.monotonic() - began
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{checker} checker failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    figures["wall_s"] = wall
    figures["peak_rss_mb"] = max(figures["self_maxrss_mb"], figures["children_maxrss_mb"])
    return figures


# ------------------------------------------------------------------------------------------------ main


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--run-checker":
        run_checker(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1M,10M,50M", help="comma list of history sizes in events (1M,10M,50M)")
    parser.add_argument("--dir", type=Path, default=None, help="where the histories go (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated histories")
    parser.add_argument("--master", default=os.environ.get("PULSAR_HA_SPARK_MASTER", "local[*]"))
    parser.add_argument(
        "--masters",
        default=None,
        help="comma list of masters to run the Spark checker on, e.g. local[1],local[2] (scaling); default --master",
    )
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--all-checks", action="store_true", help="Spark runs all five checks, not only three")
    parser.add_argument(
        "--shuffle-partitions", type=int, default=None, help="default: 2 x cpus, or events / 250k up to 1024"
    )
    parser.add_argument(
        "--python-limit", type=parse_size, default=None, help="skip the Python checker above this many events"
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also time a no-op Spark job (JVM start, one scan of the columns read, stop): the floor under Spark",
    )
    args = parser.parse_args()
    sizes = [parse_size(size) for size in args.sizes.split(",") if size.strip()]
    folder = args.dir or Path(tempfile.mkdtemp(prefix="spark-checker-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"cpus: {os.cpu_count()}, master: {args.master}, histories in {folder}")
    masters = [m.strip() for m in (args.masters or args.master).split(",") if m.strip()]
    header = (
        f"{'events':>12} {'checker':>16} {'wall s':>8} {'check s':>8} {'events/s':>12} {'ev/s/core':>10} "
        f"{'peak MB':>9} {'x vector':>8}  figures"
    )
    rows = []
    for size in sizes:
        path = folder / f"history-{size}.parquet"
        began = time.monotonic()
        injected = generate(path, size)
        generated = time.monotonic() - began
        mb = path.stat().st_size / 2**20
        print(f"generated {path.name}: {mb:.1f} MB in {generated:.1f} s; injected {injected}")
        results: dict[str, dict[str, Any]] = {}
        for master in masters:
            results[f"spark {master}"] = measure("spark", path, args, master)
            results[f"spark {master}"]["cores"] = cores_of(master)
        if args.floor:
            results[f"floor {masters[-1]}"] = measure("floor", path, args, masters[-1])
            results[f"floor {masters[-1]}"]["cores"] = cores_of(masters[-1])
        results["vectorised"] = measure("vectorised", path, args)
        results["vectorised"]["cores"] = 1
        if args.python_limit is None or size <= args.python_limit:
            results["python"] = measure("python", path, args)
            results["python"]["cores"] = 1
        baseline = results["vectorised"]
        expected = [baseline[f] for f in FIGURES]
        for name, figures in results.items():
            figures["x_vectorised"] = figures["wall_s"] / baseline["wall_s"]
            rows.append((size, name, figures))
            if name.startswith("floor"):
                continue
            found = [figures[f] for f in FIGURES]
            if found != expected:
                print(f"MISMATCH at {size}: {name} {found} vectorised {expected}")
            if name != "vectorised":
                print(f"  {name}: {figures['x_vectorised']:.2f}x the vectorised checker's wall time (<1: faster)")
        if not args.keep:
            path.unlink()
    print()
    print(header)
    for size, name, figures in rows:
        rate = size / figures["wall_s"]
        per_core = f"{rate / figures['cores']:>10,.0f}" if figures.get("cores") else f"{'?':>10}"
        found = " ".join(f"{f.split('_')[0]}={figures[f]}" for f in FIGURES if f in figures)
        check_s = figures["check_s"]
        versus = f"{figures['x_vectorised']:>8.2f}"
        print(
            f"{size:>12,} {name:>16} {figures['wall_s']:>8.1f} {check_s:>8.1f} {rate:>12,.0f} {per_core} "
            f"{figures['peak_rss_mb']:>9.0f} {versus}  {found}"
        )
    print("wall s: the whole subprocess (Spark: JVM start included); check s: the checks alone;")
    print("events/s: events / wall s (per core: divided by the master's cores; vectorised, python: 1 core);")
    print("peak MB: max RSS of the checker process or its JVM (getrusage); x vector: wall s / the vectorised one's.")
    print("floor: JVM start, one scan of the columns the checks read, stop (--floor): no Spark checker goes below it.")
    if not args.keep and args.dir is None:
        folder.rmdir()


if __name__ == "__main__":
    main()
