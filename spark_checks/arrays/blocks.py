"""NumPy and PyArrow building blocks of the vectorised checks (no Python loop over events).

* :func:`string_codes`: a string (or dictionary) column as integer codes, -1 for null, in the byte order of the
  strings when asked (Spark's order of strings, and Python's);
* :func:`group_ids`: dense ids of a combination of integer columns, in the lexicographic order of the columns;
* :func:`first_of_groups`, :func:`last_of_groups`: the first and last element of each group, in array order;
* :class:`RunningMax`: per element, the largest value of the elements before it in its group;
* :func:`first_k`: the first k elements by a lexicographic sort key.

Imported by the per-bucket function on Spark's Python workers too: NumPy and PyArrow only, nothing of pyspark.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = Any
"""A NumPy array (NumPy's own annotations add nothing here: every array is 1-d int64 or bool)."""

DIRECT_SPAN_FACTOR = 4
"""Group keys whose range is at most this many times the number of keys are made dense by direct addressing
(a bincount and a cumulative sum); wider ranges by sorting (``np.unique``)."""
SAFE_SPAN = 1 << 62
"""Combined keys stay below this (int64, with room for an offset)."""


def string_codes(column: Any, *, sort: bool = True) -> tuple[Array, Any]:
    """Integer codes (int64, -1 for null) of a string or dictionary column, and the strings they stand for.

    Code ``i`` is ``words[i]``; equal strings have equal codes. With ``sort`` the codes follow the byte order of
    the strings (UTF-8 byte order: Spark's order of strings, and Python's code point order).
    """
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
    import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column  # unifies dictionaries
    if not pa.types.is_dictionary(array.type):
        array = pc.dictionary_encode(array)
    indices = array.indices if array.null_count == 0 else array.indices.fill_null(-1)
    codes = np.asarray(indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    dictionary = array.dictionary
    unique = pc.dictionary_encode(dictionary)  # a dictionary may repeat a value or hold a null
    remap = np.asarray(unique.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    words = unique.dictionary
    if sort and len(words) > 1:
        order = np.asarray(pc.sort_indices(words).to_numpy(), dtype=np.int64)
        rank = np.empty(len(words), dtype=np.int64)
        rank[order] = np.arange(len(words), dtype=np.int64)
        remap = np.where(remap >= 0, rank[np.maximum(remap, 0)], -1)
        words = words.take(pa.array(order))
    if len(remap) and np.array_equal(remap, np.arange(len(remap))):
        return codes, words  # the dictionary is already unique, without null, and in order
    return np.append(remap, -1)[codes], words  # code -1 (a null) picks the last entry: -1


def dense(keys: Array, span: int) -> tuple[Array, int, Array]:
    """Dense ids (0..count-1, in the order of the keys) of non-negative int64 ``keys`` below ``span``, their
    count, and the key of each id."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), 0, np.zeros(0, dtype=np.int64)
    if span <= DIRECT_SPAN_FACTOR * len(keys) + 1024:
        present = np.bincount(keys, minlength=span) > 0
        rank = np.cumsum(present, dtype=np.int64) - 1
        return rank[keys], int(rank[-1]) + 1, np.flatnonzero(present)
    unique, inverse = np.unique(keys, return_inverse=True)
    return np.asarray(inverse, dtype=np.int64).reshape(-1), len(unique), unique


def group_ids(*parts: tuple[Array, int]) -> tuple[Array, int]:
    """Ids of the combinations of ``parts`` (codes, span): codes in ``0..span-1``, combined in order (the first
    part most significant), so the ids follow the lexicographic order of the parts. The ids lie below the count
    returned; they are dense only where the combined range would be too wide to address directly."""
    ids, count = parts[0][0], max(int(parts[0][1]), 1)
    for codes, span in parts[1:]:
        span = max(int(span), 1)
        if count * span >= SAFE_SPAN:  # both made dense: each at most len(codes), their product fits
            codes, span, _ = dense(codes, span)
            ids, count, _ = dense(ids, count)
        ids, count = ids * span + codes, count * span
    if count > DIRECT_SPAN_FACTOR * len(ids) + 1024:
        ids, count, _ = dense(ids, count)
    return ids, count


def first_of_groups(ids: Array, count: int) -> Array:
    """For each group, the position of its first element in ``ids`` (``len(ids)`` for an empty group)."""
    first = np.full(count, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids), dtype=np.int64))
    return first


def last_of_groups(ids: Array, count: int) -> Array:
    """For each group, the position of its last element in ``ids`` (-1 for an empty group)."""
    last = np.full(count, -1, dtype=np.int64)
    np.maximum.at(last, ids, np.arange(len(ids), dtype=np.int64))
    return last


def stable_group_order(ids: Array, count: int) -> Array:
    """The permutation that groups ``ids`` and keeps array order inside each group (a radix sort when the ids
    fit in 8 or 16 bits)."""
    if count <= 1 << 8:
        return np.argsort(ids.astype(np.uint8), kind="stable")
    if count <= 1 << 16:
        return np.argsort(ids.astype(np.uint16), kind="stable")
    return np.argsort(ids, kind="stable")


class RunningMax:
    """Per element of ``values``: the largest value among the elements before it (in array order) of its group
    that are ``counted`` (all when None). :attr:`below` tells the elements whose own value is under that maximum;
    :meth:`at` gives the maximum itself at a few positions (the example rows)."""

    def __init__(self, ids: Array, count: int, values: Array, counted: Array | None = None) -> None:
        n = len(values)
        self.ids = ids
        self.order = stable_group_order(ids, count)
        self.groups = ids[self.order]
        own = values[self.order]
        self.low = int(own.min()) if n else 0
        span = int(own.max()) - self.low + 2 if n else 2  # shifted values: 0 is "nothing counted yet"
        self.uniques = None
        if count * span >= SAFE_SPAN:  # compress the values to their ranks (order kept)
            self.uniques, ranks = np.unique(own, return_inverse=True)
            own, self.low, span = np.asarray(ranks, dtype=np.int64).reshape(-1), 0, len(self.uniques) + 1
        shifted = own - self.low + 1
        base = self.groups * span
        if counted is not None:
            shifted_counted = np.where(counted[self.order], shifted, 0)
        running = np.maximum.accumulate(base + (shifted if counted is None else shifted_counted))
        self.before = np.zeros(n, dtype=np.int64)
        if n:
            self.before[1:] = np.maximum(running[:-1] - base[1:], 0)  # the previous group's maxima lie below base
        self.below = np.zeros(n, dtype=bool)
        self.below[self.order] = shifted < self.before

    def at(self, positions: Array) -> list[int | None]:
        """The maxima at ``positions`` (None where nothing was counted before)."""
        out: list[int | None] = []
        for position in positions:
            group = self.ids[position]
            start, end = np.searchsorted(self.groups, [group, group + 1])
            where = start + int(np.searchsorted(self.order[start:end], position))
            shifted = int(self.before[where])
            if shifted == 0:
                out.append(None)
            elif self.uniques is not None:
                out.append(int(self.uniques[shifted - 1]))
            else:
                out.append(shifted - 1 + self.low)
        return out


def first_k(k: int, *keys: Array) -> Array:
    """The positions of the ``k`` first elements by the lexicographic order of ``keys`` (``keys[0]`` first; ties
    beyond the keys by position), in that order."""
    n = len(keys[0]) if keys else 0
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    candidates = np.arange(n, dtype=np.int64)
    if n > k:  # only the elements whose first key is at most the k-th smallest can be among the first k
        kth = np.partition(keys[0], k - 1)[k - 1]
        candidates = np.flatnonzero(keys[0] <= kth)
    columns = [key[candidates] for key in keys] + [candidates]
    picked = np.lexsort(tuple(reversed(columns)))  # lexsort: the last key is the primary one
    return candidates[picked[:k]]
