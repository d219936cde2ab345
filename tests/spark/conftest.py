"""A quiet local[2] SparkSession shared by every Spark test (one JVM per test session)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

pyspark = pytest.importorskip("pyspark", reason="the Spark checks need pyspark (pip install -e '.[spark]')")

from pyspark.sql import SparkSession  # noqa: E402

from spark_checks.session import MASTER_ENV, build_spark_session  # noqa: E402

TEST_CONF = {
    "spark.driver.memory": "1g",
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.coalescePartitions.initialPartitionNum": "4",
}


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    session = build_spark_session(os.environ.get(MASTER_ENV, "local[2]"), conf=TEST_CONF, log_level="ERROR")
    yield session
    session.stop()
