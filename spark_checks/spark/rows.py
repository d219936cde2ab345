"""Small helpers the checks share: Spark's functions module (imported when a check runs), rows as dicts, and the
defaults of every check."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Row

DEFAULT_EXAMPLES = 5
"""How many example rows a verdict shows."""
NS_PER_S = 1_000_000_000


def _f() -> Any:
    from pyspark.sql import functions

    return functions


def _dicts(rows: Iterable[Row]) -> list[dict[str, Any]]:
    return [row.asDict(recursive=True) for row in rows]


def _int(value: Any) -> int:
    return int(value) if value is not None else 0


def _label(value: str | None) -> str:
    return "none" if value is None else value
