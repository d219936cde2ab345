"""``python -m spark_checks``: exit 0 (all ok), 1 (an anomaly), 2 (bad input), on JSON Lines and Parquet files.

The runs that need Spark call ``main`` in this process with the shared session (a new JVM per run would cost more
than the checks); the module entry point itself is run as a subprocess where it exits before starting Spark.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pytest_pulsar_ha.history import EVENT_COLUMNS, RECEIVE, HistoryWriter

from .histories import failover_history

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def run(spark: SparkSession, *args: str) -> tuple[int, str, str]:
    from spark_checks.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), spark=spark, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_clean_jsonl_exits_0(spark: SparkSession, tmp_path: Path) -> None:
    path = failover_history().write(tmp_path / "history.jsonl")
    code, out, err = run(spark, str(path), "--gap-threshold", "1s")
    assert code == 0, out + err
    assert "PASS: all 5 checks ok" in out and "[ok] lost" in out and "expected[sub-2]" in out


def test_anomaly_in_a_parquet_directory_exits_1(spark: SparkSession, tmp_path: Path) -> None:
    """A directory of two Parquet files (written by the history writer), one message lost on sub-2."""
    events = failover_history().without(RECEIVE, subscription="sub-2", producer="producer-1", seq=7).events
    folder = tmp_path / "history"
    half = len(events) // 2
    for index, part in enumerate((events[:half], events[half:])):
        with HistoryWriter(folder / f"part-{index}.parquet") as writer:
            writer.extend(part)
    code, out, err = run(spark, str(folder), "--json", "--max-duplicates", "0")
    assert code == 1, out + err
    report = json.loads(out)
    assert report["ok"] is False
    verdicts = {v["name"]: v for v in report["verdicts"]}
    assert [name for name, v in verdicts.items() if not v["ok"]] == ["lost"]
    assert verdicts["lost"]["counts"]["lost[sub-2]"] == 1
    assert [(e["producer"], e["seq"]) for e in verdicts["lost"]["examples"]] == [("producer-1", 7)]


def test_missing_column_in_parquet_exits_2_naming_it(spark: SparkSession, tmp_path: Path) -> None:
    rows = [e.to_dict() for e in failover_history(per_producer=2).events]
    columns = [name for name in EVENT_COLUMNS if name != "seq"]  # a history without its seq column
    table = pa.table({name: [row[name] for row in rows] for name in columns})
    pq.write_table(table, tmp_path / "no-seq.parquet")
    code, out, err = run(spark, str(tmp_path / "no-seq.parquet"))
    assert code == 2 and out == ""
    assert "missing column(s) seq" in err


def test_missing_column_in_jsonl_exits_2_naming_it(spark: SparkSession, tmp_path: Path) -> None:
    path = tmp_path / "no-process.jsonl"
    lines = [{k: v for k, v in e.to_dict().items() if k != "process"} for e in failover_history(per_producer=2).events]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = run(spark, str(path))
    assert code == 2
    assert "column process is missing or null" in err


def test_missing_file_and_bad_options_exit_2_before_spark_starts(tmp_path: Path) -> None:
    missing = subprocess.run(
        [sys.executable, "-m", "spark_checks", str(tmp_path / "nothing.jsonl")], capture_output=True, text=True
    )
    assert missing.returncode == 2 and "no such history" in missing.stderr
    (tmp_path / "h.csv").write_text("x")
    unknown = subprocess.run([sys.executable, "-m", "spark_checks", str(tmp_path / "h.csv")], capture_output=True)
    assert unknown.returncode == 2 and b"cannot tell the format" in unknown.stderr
    bad_gap = subprocess.run(
        [sys.executable, "-m", "spark_checks", str(tmp_path / "h.csv"), "--gap-threshold", "soon"], capture_output=True
    )
    assert bad_gap.returncode == 2 and b"--gap-threshold" in bad_gap.stderr


def test_parse_duration() -> None:
    from spark_checks.cli import parse_duration

    assert parse_duration("1s") == 1.0
    assert parse_duration("250ms") == pytest.approx(0.25)
    assert parse_duration("2.5") == 2.5
    assert parse_duration("1m") == 60.0
