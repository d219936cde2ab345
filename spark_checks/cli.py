"""``python -m spark_checks HISTORY``: check one history and print the report.

Exit status: 0 every check ok, 1 an anomaly was found, 2 bad input (no such file, not a history: the message
names the missing column or the rule broken; bad options), 3 the checker itself failed (e.g. Spark did not start).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from .spark.reading import HistoryInputError, check_source

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

EXIT_OK, EXIT_ANOMALY, EXIT_BAD_INPUT, EXIT_FAILURE = 0, 1, 2, 3

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|ms|s|m|h)?\s*$")
_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds in ``text``: ``1s``, ``500ms``, ``2.5`` (seconds), ``1m`` ... (argparse type)."""
    match = _DURATION.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 1s, 500ms or 2.5")
    seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the duration must be positive")
    return seconds


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _conf(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key.strip(), value.strip()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m spark_checks",
        description="Check a pytest-pulsar-ha history (lost, duplicates, ordering, accounting, availability).",
        epilog="Exit status: 0 all checks ok, 1 an anomaly, 2 bad input, 3 the checker failed.",
    )
    parser.add_argument("history", help="a .jsonl or .parquet history, or a directory of .parquet (or .jsonl) files")
    parser.add_argument(
        "--subscription",
        action="append",
        dest="subscriptions",
        metavar="S",
        help="a subscription that must receive every acknowledged message of its topics (repeatable; "
        "default: every subscription seen in receive events)",
    )
    parser.add_argument("--max-duplicates", type=_non_negative, default=0, metavar="N", help="duplicates allowed")
    parser.add_argument(
        "--gap-threshold", type=parse_duration, default=1.0, metavar="D", help="longest window without acks (1s)"
    )
    parser.add_argument("--per-producer-gaps", action="store_true", help="also look for windows per producer")
    parser.add_argument(
        "--order-scope",
        action="append",
        choices=("producer", "key"),
        dest="order_scopes",
        help="ordering groups: producer = (subscription, producer), key = (subscription, key); default both",
    )
    parser.add_argument("--examples", type=_non_negative, default=5, metavar="N", help="example rows per check")
    parser.add_argument(
        "--master", default=None, help="Spark master URL (default: $PULSAR_HA_SPARK_MASTER, else local[*])"
    )
    parser.add_argument(
        "--conf", type=_conf, action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting"
    )
    parser.add_argument(
        "--engine",
        choices=("auto", "frame", "buckets"),
        default="auto",
        help="how the figures are computed: buckets (a Parquet history laid out by producer, one task per bucket, "
        "no shuffle), frame (one shuffle by producer, windows); auto: buckets for a local Parquet history",
    )
    parser.add_argument(
        "--layout-dir",
        default=None,
        metavar="DIR",
        help="where the buckets engine lays the history out (kept; default: a temporary directory, removed); "
        "the layout is done while Spark starts",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    spark: SparkSession | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit status. ``spark``: reuse a session (tests) instead of building one."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    args = build_parser().parse_args(argv)
    path = os.fspath(args.history)
    try:  # fail fast, before starting a JVM, on what can be seen from here
        kind = check_source(path)
    except HistoryInputError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_BAD_INPUT
    from .arrays.layout import is_layout
    from .checks import ORDER_SCOPES, check_history
    from .spark.bucket_loading import BackgroundLayout, can_lay_out, parallelism_of
    from .spark.session import SCHEDULER_JAVA_OPTIONS, build_spark_session, resolve_master

    background = None
    if args.engine != "frame" and kind == "parquet" and can_lay_out(path) and not is_layout(path):
        cores = spark.sparkContext.defaultParallelism if spark else parallelism_of(resolve_master(args.master))
        background = BackgroundLayout(path, parallelism=cores, directory=args.layout_dir)  # while the JVM starts
    try:
        java_options, conf = "", dict(args.conf)
        if background is not None:  # the JVMs will only schedule Python tasks
            java_options = SCHEDULER_JAVA_OPTIONS
            conf.setdefault("spark.executor.extraJavaOptions", SCHEDULER_JAVA_OPTIONS)
        session = spark or build_spark_session(args.master, conf=conf, java_options=java_options)
    except Exception as exc:
        if background is not None:
            background.close()
        print(f"error: could not start Spark: {exc}", file=err)
        return EXIT_FAILURE
    try:
        layout_dir = background.wait() if background is not None else args.layout_dir
        report = check_history(
            session,
            path,
            subscriptions=args.subscriptions,
            max_duplicates=args.max_duplicates,
            gap_threshold_s=args.gap_threshold,
            examples=args.examples,
            order_scopes=tuple(dict.fromkeys(args.order_scopes or ORDER_SCOPES)),
            per_producer_gaps=args.per_producer_gaps,
            engine=args.engine,
            layout_dir=layout_dir,
        )
    except HistoryInputError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_BAD_INPUT
    except Exception as exc:
        print(f"error: the checker failed: {type(exc).__name__}: {exc}", file=err)
        return EXIT_FAILURE
    finally:
        if spark is None:
            session.stop()
        if background is not None:
            background.close()
    print(report.to_json() if args.json else report.describe(), file=out)
    return EXIT_OK if report.ok else EXIT_ANOMALY
