"""What Spark's executors need to run the per-bucket function (:mod:`spark_checks.arrays.buckets`): a Python with NumPy
and PyArrow, this package, and ``mapInArrow`` without pandas.

* The Python: ``$PYSPARK_PYTHON`` or ``spark.pyspark.python`` when set; otherwise PySpark's default (``python3``
  on the PATH, often one without PyArrow) is replaced by this process's interpreter, which is right for local
  masters and for a standalone cluster on this machine. On a remote cluster set ``PYSPARK_PYTHON`` to the
  executors' Python.
* The package: on a master other than ``local``, ``spark_checks`` is zipped and added with ``addPyFile`` (once
  per Spark context), so remote executors import the driver's very code.
* ``mapInArrow``: PySpark's own method requires pandas on the driver although the Arrow path never uses it;
  :func:`map_in_arrow` builds the same plan (a ``SQL_MAP_ARROW_ITER_UDF``) without that check.
"""

from __future__ import annotations

import os
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

DEFAULT_PYTHON = "python3"
"""PySpark's worker Python when nothing is set."""

_shipped: set[str] = set()
_zip: Path | None = None


def package_zip() -> Path:
    """A zip of ``spark_checks``' modules, its subpackages' with them (built once per process)."""
    global _zip
    if _zip is None or not _zip.exists():
        package = Path(__file__).resolve().parents[1]
        handle, name = tempfile.mkstemp(prefix="spark_checks-", suffix=".zip")
        os.close(handle)
        with zipfile.ZipFile(name, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(package.rglob("*.py")):
                archive.write(path, (Path(package.name) / path.relative_to(package)).as_posix())
        _zip = Path(name)
    return _zip


def prepare_executors(spark: SparkSession) -> None:
    """Point the Python workers at an interpreter with PyArrow and ship this package to remote executors."""
    context = spark.sparkContext
    chosen = os.environ.get("PYSPARK_PYTHON") or context.getConf().get("spark.pyspark.python")
    if chosen:
        context.pythonExec = chosen
    elif context.pythonExec == DEFAULT_PYTHON:
        context.pythonExec = sys.executable
    master = context.master or ""
    application = context.applicationId
    if not master.startswith("local") and application not in _shipped:
        context.addPyFile(str(package_zip()))
        _shipped.add(application)


def map_in_arrow(frame: DataFrame, function: Callable[..., Any], schema: str) -> DataFrame:
    """``frame.mapInArrow(function, schema)``, without PySpark's check that pandas is installed."""
    from pyspark.sql import DataFrame
    from pyspark.sql.udf import _create_udf
    from pyspark.util import PythonEvalType

    udf = _create_udf(function, schema, PythonEvalType.SQL_MAP_ARROW_ITER_UDF)
    column = udf(*[frame[name] for name in frame.columns])
    return DataFrame(frame._jdf.mapInArrow(column._jc, False, None), frame.sparkSession)
