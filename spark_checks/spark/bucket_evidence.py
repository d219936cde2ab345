"""The evidence of the buckets engine: the figures and example rows of a laid-out history, from one Spark job with
a task per bucket (:mod:`spark_checks.spark.bucket_job`).

The job brings back, for each bucket, the first rows of every kind of example
(:mod:`spark_checks.arrays.array_examples`); the first rows of the whole history are among them, so each question
is answered on the driver by sorting the buckets' candidates in the check's order. A question for more rows than
were gathered runs the job again for the candidates only.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..evidence import MESSAGE_EXAMPLES
from ..figures import Figures
from .bucket_job import run_buckets

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from ..arrays.layout import Layout


def _first(candidates: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    return [candidate["row"] for candidate in sorted(candidates, key=lambda c: c["sort"])[:limit]]


class BucketEvidence:
    """Figures and example rows of a laid-out history (``owned``: the layout is removed by :meth:`close`)."""

    engine = "buckets"

    def __init__(
        self, spark: SparkSession, layout: Layout, examples: int, *, read: str = "arrow", owned: bool = False
    ) -> None:
        self.spark = spark
        self.layout = layout
        self.read = read
        self.owned = owned
        self.gathered = max(examples, MESSAGE_EXAMPLES)
        self._figures: Figures | None = None
        self._candidates: list[dict[str, Any]] = []

    def figures(self) -> Figures:
        if self._figures is None:
            result = run_buckets(self.spark, self.layout, self.gathered, read=self.read)
            self._figures, self._candidates = result.figures, result.candidates
        return self._figures

    def candidates(self, example: str, limit: int) -> list[dict[str, Any]]:
        """The buckets' candidates of one kind, enough for the first ``limit`` of the history."""
        self.figures()
        if limit > self.gathered:
            self._candidates = run_buckets(self.spark, self.layout, limit, read=self.read, figures=False).candidates
            self.gathered = limit
        return [candidate for candidate in self._candidates if candidate["example"] == example]

    def lost_rows(self, failing: Sequence[tuple[str | None, str]], limit: int) -> list[dict[str, Any]]:
        """Acknowledged messages of each failing (topic, subscription) that the subscription never received: in a
        bucket where the subscription received some of the topic's messages, its own candidates; elsewhere the
        bucket's first acknowledged messages of the topic (all missing)."""
        lost: dict[tuple[int, tuple[Any, ...]], list[dict[str, Any]]] = {}
        for candidate in self.candidates("received", limit):
            lost[(candidate["bucket"], tuple(candidate["group"]))] = []
        for candidate in self.candidates("lost", limit):
            lost.setdefault((candidate["bucket"], tuple(candidate["group"])), []).append(candidate)
        acked: dict[tuple[int, Any], list[dict[str, Any]]] = {}
        for candidate in self.candidates("acked", limit):
            acked.setdefault((candidate["bucket"], candidate["group"][0]), []).append(candidate)
        buckets = {bucket for bucket, _ in acked}
        chosen: list[dict[str, Any]] = []
        for topic, name in failing:
            for bucket in buckets:
                own = lost.get((bucket, (topic, name)))
                if own is not None:
                    chosen += own
                    continue
                for candidate in acked.get((bucket, topic), []):
                    row = {**candidate["row"], "subscription": name}
                    chosen.append({"sort": [*candidate["sort"][:3], name], "row": row})
        return _first(chosen, limit)

    def duplicate_rows(self, limit: int) -> list[dict[str, Any]]:
        return _first(self.candidates("duplicates", limit), limit)

    def ordering_rows(self, scopes: Sequence[str], limit: int) -> list[dict[str, Any]]:
        wanted = [candidate for candidate in self.candidates("ordering", limit) if candidate["group"][0] in scopes]
        return _first(wanted, limit)

    def unknown_rows(self, limit: int) -> list[dict[str, Any]]:
        return _first(self.candidates("unknown", limit), limit)

    def message_rows(self, kind: str, limit: int) -> list[dict[str, Any]]:
        return _first(self.candidates(kind, limit), limit)

    def close(self) -> None:
        if self.owned:
            shutil.rmtree(self.layout.directory, ignore_errors=True)
            self.owned = False
