"""The checks on a real Spark standalone cluster (a master and two workers started from the pyspark distribution),
through the plugin's ``--pulsar-ha-spark-master``: what a nightly job does once its histories outgrow one
process. The history is a soak's (a directory of Parquet files) with three receipts taken out: the buckets engine
(its tasks on both workers' executors, which import the package shipped to them) and the message frame must both
find exactly those three lost, and the master must list the checker's application."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pulsar_ha.history import Event
from pytest_pulsar_ha.history.segments import ParquetSegments
from spark_checks.spark.standalone import LocalSparkCluster

# A minute and a half here (two JVM daemons, then a checker session on them): make soak runs it, beside the soak
# whose histories are what a Spark cluster is for; make test keeps local[*].
pytestmark = pytest.mark.spark_cluster

DATA = Path(__file__).parents[1] / "data" / "primary-outage-paused-primary.history.jsonl"
DROPPED = (5, 300, 600)  # producer-0's receipts taken out: lost on every subscription


@pytest.fixture(scope="module")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSparkCluster]:
    with LocalSparkCluster(tmp_path_factory.mktemp("spark-cluster"), cores=1, memory="1g", workers=2) as cluster:
        yield cluster


def soak_history(directory: Path) -> Path:
    with ParquetSegments(directory, rows_per_file=500) as segments:  # five files, as a soak writes them
        for line in DATA.read_text().splitlines():
            fields = json.loads(line)
            if fields["type"] == "receive" and fields["producer"] == "producer-0" and fields["seq"] in DROPPED:
                continue
            segments.append(Event(**fields))
    return directory


INNER = """
import pytest
from spark_checks import check_history, load_history

@pytest.mark.parametrize("engine", ["buckets", "frame"])
def test_checks_on_the_cluster(pulsar_ha_spark, engine):
    assert pulsar_ha_spark.sparkContext.master == {master!r}
    with load_history(pulsar_ha_spark, {history!r}, engine=engine) as history:
        assert history.engine == engine
        report = check_history(pulsar_ha_spark, history, max_duplicates=10_000, gap_threshold_s=60)
    print(report.describe())
    lost = report["lost"]
    assert not lost.ok
    assert sorted(row["seq"] for row in lost.examples) == {dropped!r}, lost.examples
"""


def test_the_checks_run_on_a_spark_standalone_cluster(
    pytester: pytest.Pytester, spark_cluster: LocalSparkCluster, tmp_path: Path
) -> None:
    history = soak_history(tmp_path / "history")
    assert len(list(history.glob("part-*.parquet"))) == 5
    pytester.makepyfile(
        test_inner=textwrap.dedent(
            INNER.format(master=spark_cluster.master_url, history=str(history), dropped=list(DROPPED))
        )
    )
    result = pytester.runpytest_subprocess(f"--pulsar-ha-spark-master={spark_cluster.master_url}", "-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*lost*3*"])
    apps = spark_cluster.state()
    assert apps["aliveworkers"] == 2
    finished = [app["name"] for app in apps.get("completedapps", [])]
    assert "pulsar-ha-checker" in finished, apps  # the executors were the cluster's, not a local[*] session
