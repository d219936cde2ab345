"""What the checks ask of a history's engine (:class:`Evidence`): its figures, and its example rows in each
check's order. Two engines answer, with the same figures and rows:

* ``frame`` (:mod:`spark_checks.spark.frame_evidence`): the Spark message frame, one shuffle of the events by producer
  and window functions (any input: JSON Lines, Parquet, a DataFrame);
* ``buckets`` (:mod:`spark_checks.spark.bucket_evidence`): a Parquet history laid out in buckets of whole producers
  (:mod:`spark_checks.arrays.layout`), one Spark task per bucket doing the vectorised single-process work, no shuffle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .figures import Figures

ENGINES = ("frame", "buckets")
MESSAGE_EXAMPLES = 3
"""Example messages named when a history breaks a message rule
(:func:`spark_checks.spark.validation._message_problems`)."""


class Evidence(Protocol):
    """The figures of a history and its example rows (each list in its check's order, at most ``limit`` rows)."""

    engine: str

    def figures(self) -> Figures:
        """Every count of the checks (see :mod:`spark_checks.figures`)."""

    def lost_rows(self, failing: Sequence[tuple[str | None, str]], limit: int) -> list[dict[str, Any]]:
        """Acknowledged messages of each (topic, subscription) pair that the subscription never received."""

    def duplicate_rows(self, limit: int) -> list[dict[str, Any]]:
        """First receipts of messages delivered more than once on their subscription."""

    def ordering_rows(self, scopes: Sequence[str], limit: int) -> list[dict[str, Any]]:
        """Reorders, then allowed cross-cluster interleavings, of the given scopes."""

    def unknown_rows(self, limit: int) -> list[dict[str, Any]]:
        """First receipts of messages never sent nor acknowledged."""

    def message_rows(self, kind: str, limit: int) -> list[dict[str, Any]]:
        """``resent`` messages (sent more than once) or ``orphans`` (an ack or send_error without a send)."""

    def close(self) -> None:
        """Release what the engine holds."""
