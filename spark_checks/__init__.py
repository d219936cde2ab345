"""Checker of pytest-pulsar-ha histories: PySpark jobs that read a scenario's history and return a verdict.

::

    from spark_checks import check_history, spark_session

    with spark_session() as spark:                 # local[*], or $PULSAR_HA_SPARK_MASTER
        report = check_history(spark, "history.jsonl", max_duplicates=0, gap_threshold_s=1.0)
    print(report.describe())
    assert report.ok

or ``python -m spark_checks history.parquet``. The history format is in ``docs/history-format.md``.
Importing this package does not import pyspark: the names below are loaded on first use.

The layout: the checks (:mod:`~spark_checks.checks`, :mod:`~spark_checks.availability`), the command line and what
both sides share (the history format, the figures, the engines' interface :mod:`~spark_checks.evidence`, the
verdicts) at the top; :mod:`spark_checks.spark` holds what runs on Spark (the session, reading a history, the
message-frame and buckets engines), :mod:`spark_checks.arrays` the in-process NumPy and PyArrow work (the buckets'
per-task function, the layout, the single-process checker).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .verdict import Report, Verdict

if TYPE_CHECKING:
    from .availability import check_availability
    from .checks import (
        check_accounting,
        check_duplicates,
        check_history,
        check_lost,
        check_ordering,
    )
    from .spark.load import History, load_history
    from .spark.reading import HistoryInputError
    from .spark.session import build_spark_session, spark_session

_LAZY = {
    "check_accounting": "checks",
    "check_availability": "availability",
    "check_duplicates": "checks",
    "check_history": "checks",
    "check_lost": "checks",
    "check_ordering": "checks",
    "History": "spark.load",
    "HistoryInputError": "spark.reading",
    "load_history": "spark.load",
    "build_spark_session": "spark.session",
    "spark_session": "spark.session",
}

__all__ = [
    "History",
    "HistoryInputError",
    "Report",
    "Verdict",
    "build_spark_session",
    "check_accounting",
    "check_availability",
    "check_duplicates",
    "check_history",
    "check_lost",
    "check_ordering",
    "load_history",
    "spark_session",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
