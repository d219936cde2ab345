"""The Spark checker against the fastest single-process checker, on generated Parquet histories.

For each size N (events), writes a history of N events (numpy + pyarrow, in chunks of messages: sends, acks on
cluster-a then, after a failover in the middle, on cluster-b, and receipts on two subscriptions, one of them
through the other cluster with a replication lag), with a few anomalies injected (lost, duplicated, reordered
messages, and legitimate cross-cluster interleavings around the failover). Then runs, each in its own subprocess,

* ``buckets``: ``spark_checks``' buckets engine: the history laid out in buckets of whole producers (in a thread of
  the driver while the JVM starts; ``--no-overlap``: after), then one Spark task per bucket doing the vectorised
  work, no shuffle; lost, duplicates, ordering (``--all-checks``: the five); its JVM with the C1 compiler only
  (``spark_checks.spark.session.SCHEDULER_JAVA_OPTIONS``: it only schedules the Python tasks);
* ``frame``: the message-frame engine (one shuffle of the events by producer, window functions), the Spark
  checker before the buckets;
* ``vectorised``: ``spark_checks.arrays.vectorised``, the buckets' vectorised work on the whole history in one process
  (PyArrow and NumPy, no Python loop over events): the baseline the ratio is taken against, and
* ``python``: a plain-Python reimplementation of lost + duplicates + ordering that reads the Parquet file with
  pyarrow and iterates over the events (a cross-check of the figures; ``--python-limit`` skips it),

and prints wall time (the whole subprocess: Python and JVM start, layout, checks, stop), the layout's own time,
the JVM start, events per second, the ratio to the vectorised checker, and the peak memory of the whole process
tree (the resident memory of the subprocess and all its descendants, JVM and Python workers, summed, sampled every
0.2 s). Every checker must report the same lost, duplicates, reorders and allowed interleavings, and buckets,
frame and vectorised the same figures rows (a digest): the benchmark doubles as a cross-check of the engines.
``--standalone N`` adds the buckets engine on a Spark standalone cluster of N one-core workers started here.
``--memory-limit`` caps the single-process checkers' address space: one that runs out is reported so.

    python benchmarks/spark_checker.py --sizes 200000                              # a quick run
    python benchmarks/spark_checker.py --sizes 10M --masters 'local[2]' --checkers buckets,frame,vectorised
    python benchmarks/spark_checker.py --sizes 100M --masters 'local[2]' --checkers buckets,vectorised
    python benchmarks/spark_checker.py --sizes 10M --masters 'local[2]' --standalone 2 --checkers buckets,vectorised
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
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
CHECKERS = ("buckets", "frame", "vectorised", "python", "floor")


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


def digest(figures: Any) -> str:
    """A short digest of the figures rows (dimensions and counts): equal for equal figures."""
    rows, _ = figures.comparable()
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:12]


def _verdict_figures(verdicts: dict[str, Any]) -> dict[str, Any]:
    ordering = verdicts["ordering"].counts
    return {
        "lost": verdicts["lost"].counts["lost"],
        "duplicates": verdicts["duplicates"].counts["duplicates"],
        "reorders": ordering["reorders[producer]"] + ordering["reorders[key]"],
        "allowed_cross_cluster_interleavings": ordering["allowed_cross_cluster_interleavings"],
    }


def _run_checks(spark: Any, history: Any, all_checks: bool) -> dict[str, Any]:
    from spark_checks import check_duplicates, check_lost, check_ordering
    from spark_checks.checks import check_history

    if all_checks:
        report = check_history(spark, history)
        return {verdict.name: verdict for verdict in report}
    return {"lost": check_lost(history), "duplicates": check_duplicates(history), "ordering": check_ordering(history)}


def spark_checker(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The buckets or the frame engine: session, (layout,) load, checks, stop; each step timed."""
    from spark_checks.arrays.layout import lay_out
    from spark_checks.spark.bucket_loading import BackgroundLayout, parallelism_of
    from spark_checks.spark.load import load_history
    from spark_checks.spark.session import SCHEDULER_JAVA_OPTIONS, build_spark_session

    began = time.monotonic()
    buckets = args.checker == "buckets"
    background = None
    if buckets and args.overlap:
        background = BackgroundLayout(path, parallelism=parallelism_of(args.master))  # while the JVM starts
    conf = {"spark.driver.memory": args.driver_memory}
    if not buckets:
        events = pq_rows(path)
        conf["spark.sql.shuffle.partitions"] = str(max(2 * (os.cpu_count() or 2), min(1024, events // 250_000)))
    if args.executor_memory:
        conf["spark.executor.memory"] = args.executor_memory
    if buckets:  # executors too only schedule Python tasks (a standalone's; local masters have none)
        conf["spark.executor.extraJavaOptions"] = SCHEDULER_JAVA_OPTIONS
    spark = build_spark_session(args.master, conf=conf, java_options=SCHEDULER_JAVA_OPTIONS if buckets else "")
    started = time.monotonic()
    figures: dict[str, Any] = {"startup_s": started - began}
    layout_dir = None
    if buckets:
        if background is not None:
            layout_dir = background.wait()
            figures["layout_wait_s"] = time.monotonic() - started
            figures["layout_s"] = background.seconds
        else:
            layout_dir = Path(tempfile.mkdtemp(prefix="bench-layout-"))
            laid = time.monotonic()
            lay_out(path, layout_dir, parallelism=spark.sparkContext.defaultParallelism)
            figures["layout_s"] = time.monotonic() - laid
    checking = time.monotonic()
    options = {"engine": "buckets", "layout_dir": layout_dir, "read": args.reader} if buckets else {"engine": "frame"}
    with load_history(spark, str(path), **options) as history:
        verdicts = _run_checks(spark, history, args.all_checks)
        figures["events"] = history.stats["events"]
        figures["digest"] = digest(history.figures)
        if buckets:
            figures["buckets"] = len(history.evidence.layout.files)
    figures["check_s"] = time.monotonic() - checking
    figures.update(_verdict_figures(verdicts))
    if args.warm:
        figures["warm_s"] = _warm_checks(spark, path, args, figures["digest"])
    _stop_and_wait(spark)
    if background is not None:
        background.close()
    elif layout_dir is not None:
        shutil.rmtree(layout_dir, ignore_errors=True)
    return figures


def _warm_checks(spark: Any, path: Path, args: argparse.Namespace, expected: str) -> list[float]:
    """``--warm`` more checks of the same history on the session already started, as the pytest plugin runs one
    scenario's check after another on its session: each timed from the history file to the verdicts (the buckets'
    layout, in the driver, included), each checked to give the first check's figures."""
    from spark_checks.arrays.layout import lay_out
    from spark_checks.spark.load import load_history

    buckets = args.checker == "buckets"
    seconds = []
    for _ in range(args.warm):
        began = time.monotonic()
        layout_dir = Path(tempfile.mkdtemp(prefix="bench-layout-")) if buckets else None
        if layout_dir is not None:
            lay_out(path, layout_dir, parallelism=spark.sparkContext.defaultParallelism)
        options = (
            {"engine": "buckets", "layout_dir": layout_dir, "read": args.reader} if buckets else {"engine": "frame"}
        )
        with load_history(spark, str(path), **options) as history:
            _run_checks(spark, history, args.all_checks)
            if digest(history.figures) != expected:
                raise SystemExit(f"a warm check gave other figures: #{digest(history.figures)} vs #{expected}")
        seconds.append(time.monotonic() - began)
        if layout_dir is not None:
            shutil.rmtree(layout_dir, ignore_errors=True)
    return seconds


def vectorised_checker(path: Path) -> dict[str, Any]:
    """The single-process checker: the buckets' vectorised work on the whole history."""
    from spark_checks.arrays.allocator import keep_freed_memory
    from spark_checks.arrays.vectorised import figures_of_table, read_parquet
    from spark_checks.figures import headline

    keep_freed_memory()
    began = time.monotonic()
    table = read_parquet(path)
    figures = figures_of_table(table)
    checked = time.monotonic() - began
    return {"events": table.num_rows, **headline(figures), "digest": digest(figures), "check_s": checked}


def spark_floor(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The floor under any Spark checker: start the JVM, read the columns the checks read once, stop.

    One aggregation over ts_ns, type, cluster, subscription, producer, seq, key (no shuffle): what no Spark job
    on this file can go below, so that the report can say how much of the checker's time is start-up and scan.
    """
    from spark_checks.spark.session import build_spark_session

    began = time.monotonic()
    spark = build_spark_session(args.master, conf={"spark.driver.memory": args.driver_memory})
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
    """Entry point of the measuring subprocess: run one checker, print its figures as JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("checker", choices=CHECKERS)
    parser.add_argument("path", type=Path)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--executor-memory", default=None)
    parser.add_argument("--all-checks", action="store_true")
    parser.add_argument("--reader", default="arrow")
    parser.add_argument("--no-overlap", dest="overlap", action="store_false")
    parser.add_argument("--memory-limit", type=int, default=0)
    parser.add_argument("--warm", type=int, default=0)
    args = parser.parse_args(argv)
    began = time.monotonic()
    if args.checker in ("python", "vectorised") and args.memory_limit:
        resource.setrlimit(resource.RLIMIT_AS, (args.memory_limit, args.memory_limit))
    try:
        if args.checker == "python":
            figures = python_checker(args.path)
            figures["check_s"] = time.monotonic() - began
        elif args.checker == "vectorised":
            figures = vectorised_checker(args.path)
        elif args.checker == "floor":
            figures = spark_floor(args.path, args)
        else:
            figures = spark_checker(args.path, args)
    except MemoryError:
        figures = {"out_of_memory": True}
    print("RESULT " + json.dumps(figures))


def cores_of(master: str) -> int:
    """The cores a ``local[N]`` master uses (``local[*]``/``local``: all of this machine's; others: 0, unknown)."""
    if master == "local":
        return 1
    if master.startswith("local[") and master.endswith("]"):
        inside = master[len("local[") : -1].split(",")[0]
        return os.cpu_count() or 1 if inside == "*" else int(inside)
    return 0


class TreeMemory:
    """The peak of the summed resident memory of a process and all its descendants, sampled in a thread; with
    ``others``, also the descendants of those (a standalone cluster's workers: the executors), not themselves."""

    def __init__(self, pid: int, others: tuple[int, ...] = (), interval_s: float = 0.2) -> None:
        self.pid = pid
        self.others = others
        self.interval_s = interval_s
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._page = os.sysconf("SC_PAGE_SIZE")
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _tree_bytes(self) -> int:
        parents: dict[int, int] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    with open(f"/proc/{entry.name}/stat", "rb") as stat:
                        fields = stat.read().rsplit(b")", 1)[1].split()
                    parents[int(entry.name)] = int(fields[1])
                except (OSError, IndexError, ValueError):
                    continue
        tree, frontier = {self.pid, *self.others}, [self.pid, *self.others]
        while frontier:
            parent = frontier.pop()
            children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
            tree.update(children)
            frontier += children
        total = 0
        for pid in tree - set(self.others):
            try:
                with open(f"/proc/{pid}/statm", "rb") as statm:
                    total += int(statm.read().split()[1]) * self._page
            except (OSError, IndexError, ValueError):
                continue
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_bytes = max(self.peak_bytes, self._tree_bytes())
            self._stop.wait(self.interval_s)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak_bytes


def measure(
    checker: str, path: Path, args: argparse.Namespace, master: str = "", cluster: Any = None
) -> dict[str, Any]:
    """Run one checker ``--repeat`` times; the run of median wall time, with every run's wall time."""
    runs = [_measure_once(checker, path, args, master, cluster) for _ in range(max(args.repeat, 1))]
    runs.sort(key=lambda run: run["wall_s"])
    chosen = runs[len(runs) // 2]
    chosen["walls"] = [run["wall_s"] for run in runs]
    return chosen


def _measure_once(checker: str, path: Path, args: argparse.Namespace, master: str, cluster: Any) -> dict[str, Any]:
    command = [sys.executable, __file__, "--run-checker", checker, str(path), "--master", master or args.master]
    command += ["--driver-memory", args.driver_memory, "--reader", args.reader]
    command += ["--all-checks"] if args.all_checks else []
    command += [] if args.overlap else ["--no-overlap"]
    command += ["--executor-memory", args.executor_memory] if args.executor_memory else []
    command += ["--memory-limit", str(args.memory_limit)] if args.memory_limit else []
    command += ["--warm", str(args.warm)] if args.warm and checker in ("buckets", "frame") else []
    began = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as process:
        memory = TreeMemory(process.pid, tuple(cluster.worker_pids()) if cluster is not None else ())
        out, err = process.communicate()
        peak = memory.stop()
    wall = time.monotonic() - began
    lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
    if process.returncode != 0 or not lines:
        if process.returncode in (-9, 137) and checker in ("vectorised", "python"):
            return {"out_of_memory": True, "wall_s": wall, "tree_peak_mb": peak / 2**20}
        raise SystemExit(f"{checker} checker failed ({process.returncode}):\n{out[-3000:]}\n{err[-3000:]}")
    figures: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    figures["wall_s"] = wall - sum(figures.get("warm_s", ()))  # a cold check: the warm ones are reported apart
    figures["tree_peak_mb"] = peak / 2**20
    return figures


# ------------------------------------------------------------------------------------------------ main


def _row(size: int, name: str, figures: dict[str, Any]) -> str:
    if figures.get("out_of_memory"):
        limit = f" (address space limit {figures['limit_gb']:.0f} GB)" if figures.get("limit_gb") else ""
        peak = figures["tree_peak_mb"] / 1024
        wall = figures["wall_s"]
        return f"{size:>12,} {name:>20}  out of memory{limit} after {wall:.1f} s, at {peak:.1f} GiB resident"
    rate = size / figures["wall_s"]

    def seconds(key: str) -> str:
        value = figures.get(key)
        return f"{value:>8.1f}" if value is not None else f"{'-':>8}"

    versus = f"{figures['x_vectorised']:>8.2f}" if figures.get("x_vectorised") is not None else f"{'n/a':>8}"
    found = " ".join(f"{f.split('_')[0]}={figures[f]}" for f in FIGURES if f in figures)
    if figures.get("digest"):
        found += f" rows#{figures['digest']}"
    return (
        f"{size:>12,} {name:>20} {figures['wall_s']:>8.1f} {seconds('layout_s')} {seconds('startup_s')} "
        f"{seconds('check_s')} {rate:>12,.0f} {figures['tree_peak_mb']:>9.0f} {versus}  {found}"
    )


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _print_warm(results: dict[str, dict[str, Any]]) -> None:
    """Each Spark checker's warm checks, and each standalone's median against the local master's of its engine."""
    warm = {name: _median(f["warm_s"]) for name, f in results.items() if f.get("warm_s")}
    for name, figures in results.items():
        if name in warm:
            listed = ", ".join(f"{value:.1f}" for value in figures["warm_s"])
            count = len(figures["warm_s"])
            print(f"  {name}: {count} checks on the started session: {listed} s (median {warm[name]:.1f})")
    for name, median in warm.items():
        engine, _, master = name.partition(" ")
        if not master.startswith("standalone"):
            continue
        for other, local in warm.items():
            if other.startswith(f"{engine} local"):
                print(
                    f"  {name} / {other}, per check on a started session: {median:.1f} s / {local:.1f} s "
                    f"= {median / local:.2f}x (goal: within 1.2x)"
                )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--run-checker":
        run_checker(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1M,10M", help="comma list of history sizes in events (1M,10M)")
    parser.add_argument("--dir", type=Path, default=None, help="where the histories go (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated histories")
    parser.add_argument("--master", default=os.environ.get("PULSAR_HA_SPARK_MASTER", "local[*]"))
    parser.add_argument(
        "--masters", default=None, help="comma list of masters for the Spark checkers, e.g. local[1],local[2]"
    )
    parser.add_argument("--checkers", default="buckets,vectorised,python", help=f"comma list of {', '.join(CHECKERS)}")
    parser.add_argument("--standalone", type=int, default=0, metavar="N", help="also on a standalone of N workers")
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--executor-memory", default=None, help="spark.executor.memory (standalone)")
    parser.add_argument("--reader", choices=("arrow", "spark"), default="arrow", help="how a bucket task reads")
    parser.add_argument("--no-overlap", dest="overlap", action="store_false", help="lay out after the JVM start")
    parser.add_argument("--all-checks", action="store_true", help="Spark runs all five checks, not only three")
    parser.add_argument("--python-limit", type=parse_size, default=None, help="skip the Python checker above N")
    parser.add_argument("--repeat", type=int, default=1, help="runs per checker; the median run is reported")
    parser.add_argument(
        "--warm",
        type=int,
        default=0,
        metavar="N",
        help="then N more checks of the history on the same Spark session (as the pytest plugin runs them)",
    )
    parser.add_argument(
        "--memory-limit", type=parse_size, default=0, help="address-space limit of the single-process checkers"
    )
    args = parser.parse_args()
    checkers = [c.strip() for c in args.checkers.split(",") if c.strip()]
    unknown = sorted(set(checkers) - set(CHECKERS))
    if unknown:
        parser.error(f"unknown checkers {unknown}; valid: {', '.join(CHECKERS)}")
    sizes = [parse_size(size) for size in args.sizes.split(",") if size.strip()]
    folder = args.dir or Path(tempfile.mkdtemp(prefix="spark-checker-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    masters = [m.strip() for m in (args.masters or args.master).split(",") if m.strip()]
    print(f"cpus: {os.cpu_count()}, masters: {', '.join(masters)}, checkers: {', '.join(checkers)}")
    cluster = None
    if args.standalone:
        from spark_checks.spark.standalone import LocalSparkCluster

        cluster = LocalSparkCluster(folder / "standalone", workers=args.standalone, cores=1, memory="6g").start()
        print(f"standalone: {args.standalone} workers of 1 core ({cluster.master_url}), started before the runs")
    spark_names = {"buckets", "frame", "floor"}
    rows = []
    try:
        for size in sizes:
            path = folder / f"history-{size}.parquet"
            began = time.monotonic()
            injected = generate(path, size) if not path.exists() else {"kept": "from an earlier run"}
            mb = path.stat().st_size / 2**20
            print(f"generated {path.name}: {mb:.1f} MB in {time.monotonic() - began:.1f} s; injected {injected}")
            results: dict[str, dict[str, Any]] = {}
            for checker in checkers:
                if checker in spark_names:
                    for master in masters:
                        results[f"{checker} {master}"] = measure(checker, path, args, master)
                    if cluster is not None and checker != "floor":
                        name = f"{checker} standalone[{args.standalone}]"
                        results[name] = measure(checker, path, args, cluster.master_url, cluster)
                elif checker != "python" or args.python_limit is None or size <= args.python_limit:
                    results[checker] = measure(checker, path, args)
                    if results[checker].get("out_of_memory") and args.memory_limit:
                        results[checker]["limit_gb"] = args.memory_limit / 1e9
            baseline = results.get("vectorised")
            usable = baseline is not None and not baseline.get("out_of_memory")
            reference = next((r for r in results.values() if not r.get("out_of_memory") and "lost" in r), None)
            for name, figures in results.items():
                if usable and not figures.get("out_of_memory"):
                    figures["x_vectorised"] = figures["wall_s"] / baseline["wall_s"]
                rows.append((size, name, figures))
                if name.startswith("floor") or figures.get("out_of_memory") or reference is None:
                    continue
                if [figures[f] for f in FIGURES] != [reference[f] for f in FIGURES]:
                    print(f"MISMATCH at {size}: {name} {[figures[f] for f in FIGURES]}")
                if figures.get("digest") and reference.get("digest") and figures["digest"] != reference["digest"]:
                    print(f"MISMATCH at {size}: {name} figures rows #{figures['digest']} vs #{reference['digest']}")
                if len(figures.get("walls", ())) > 1:
                    print(
                        f"  {name}: wall s of the {len(figures['walls'])} runs: "
                        + ", ".join(f"{wall:.1f}" for wall in figures["walls"])
                    )
                if figures.get("x_vectorised") is not None and name != "vectorised":
                    print(f"  {name}: {figures['x_vectorised']:.2f}x the vectorised checker's wall time (<1: faster)")
                if figures.get("layout_s") is not None:
                    print(
                        f"  {name}: layout {figures['layout_s']:.1f} s ({figures.get('buckets')} buckets), "
                        + (
                            f"done while the JVM started (waited {figures['layout_wait_s']:.1f} s after it)"
                            if "layout_wait_s" in figures
                            else "after the JVM start"
                        )
                    )
            _print_warm(results)
            if not args.keep:
                path.unlink()
    finally:
        if cluster is not None:
            cluster.stop()
            shutil.rmtree(folder / "standalone", ignore_errors=True)
    print()
    print(
        f"{'events':>12} {'checker':>20} {'wall s':>8} {'layout s':>8} {'start s':>8} {'check s':>8} "
        f"{'events/s':>12} {'peak MB':>9} {'x vector':>8}  figures"
    )
    for size, name, figures in rows:
        print(_row(size, name, figures))
    print("wall s: the whole subprocess (Python and JVM start, layout, checks, stop); layout s: the buckets' layout")
    print("(in a driver thread while the JVM starts, counted in wall s unless it ended first); start s: JVM start;")
    print("check s: loading and the checks (the single-process checkers: reading and checking); events/s: events /")
    print("wall s; peak MB: the most resident memory of the checker's process tree at once (JVM, Python workers,")
    print("summed; sampled every 0.2 s); x vector: wall s / the vectorised checker's; rows#: digest of figures rows.")
    if args.repeat > 1:
        print(f"each row: the run of median wall time of {args.repeat} (every run's wall s listed above the table).")
    if not args.keep and args.dir is None:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
