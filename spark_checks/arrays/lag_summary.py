"""Replication lag percentiles from per-bucket summaries, by the rule of Spark's ``percentile_approx``.

The message frame computes the lag figures with ``percentile_approx(lag, p, 10000)``: the value at rank
``ceil(p * n)`` of the sorted samples (first or last for ``p`` within ``1/accuracy`` of 0 or 1), exactly while
there are at most 10,000 samples, and within ``n / 10000`` ranks beyond. A bucket summarises its samples of each
route (:func:`summarise`): all of them, sorted, when there are at most :data:`POINTS`; otherwise every
``w``-th, each standing for ``w`` samples. :func:`percentiles` merges the summaries of all buckets and applies
the same rule. So the figures equal the frame's wherever the frame's are exact (and the buckets' too, up to
:data:`POINTS` samples per bucket and route), and beyond stay within ``n / POINTS`` ranks: inside the frame's own
error (two runs of ``percentile_approx`` over other partitions differ in the same way).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..figures import LAG_ACCURACY
from .blocks import Array

POINTS = 20_000
"""At most this many values per bucket and route: twice ``percentile_approx``'s accuracy (half its error)."""


def summarise(values: Array, points: int = POINTS) -> dict[str, Any]:
    """A summary of one bucket's lag samples of one route: sorted values with weights, count and max."""
    ordered = np.sort(np.asarray(values, dtype=np.int64))
    n = len(ordered)
    if n <= points:
        return {"values": ordered.tolist(), "weights": None, "n": n, "max": int(ordered[-1]) if n else None}
    width = -(-n // points)
    picked = ordered[width - 1 :: width]  # the last of each run of `width` samples
    weights = np.full(len(picked), width, dtype=np.int64)
    if n % width:
        picked = np.append(picked, ordered[-1])
        weights = np.append(weights, n % width)
    return {"values": picked.tolist(), "weights": weights.tolist(), "n": n, "max": int(ordered[-1])}


def percentiles(summaries: Iterable[dict[str, Any]], fractions: Sequence[float]) -> list[int]:
    """The ``fractions`` of the samples the summaries stand for, by ``percentile_approx``'s rule."""
    values: list[Array] = []
    weights: list[Array] = []
    for summary in summaries:
        found = np.asarray(summary["values"], dtype=np.int64)
        values.append(found)
        given = summary["weights"]
        weights.append(np.ones(len(found), dtype=np.int64) if given is None else np.asarray(given, dtype=np.int64))
    merged = np.concatenate(values) if values else np.zeros(0, dtype=np.int64)
    if not len(merged):
        return []
    order = np.argsort(merged, kind="stable")
    merged = merged[order]
    cumulative = np.cumsum(np.concatenate(weights)[order])
    count = int(cumulative[-1])
    error = 1.0 / LAG_ACCURACY
    out = []
    for fraction in fractions:
        if fraction <= error:
            out.append(int(merged[0]))
        elif fraction >= 1 - error:
            out.append(int(merged[-1]))
        else:
            rank = math.ceil(fraction * count)
            out.append(int(merged[min(int(np.searchsorted(cumulative, rank, side="left")), len(merged) - 1)]))
    return out
