"""A quiet local[2] SparkSession shared by every Spark test (one JVM for the whole test session).

The settings suit the tiny histories of these tests on a 2-core machine: 1 GB driver, 4 shuffle partitions, no
adaptive re-planning and no code generation (compiling each plan costs more than running it on a few hundred
rows). ``$PULSAR_HA_SPARK_MASTER`` points the tests at another master.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TEST_CONF = {
    "spark.driver.memory": "1g",
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}

# a short-lived JVM: the C1 compiler alone warms up much faster, the serial collector suits a 1 GB heap
TEST_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    from spark_checks.spark.session import MASTER_ENV, build_spark_session

    session = build_spark_session(
        os.environ.get(MASTER_ENV, "local[2]"), conf=TEST_CONF, log_level="ERROR", java_options=TEST_JAVA_OPTIONS
    )
    yield session
    session.stop()
