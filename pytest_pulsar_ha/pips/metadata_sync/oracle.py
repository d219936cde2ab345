"""The oracle of PIP-136 metadata sync: given every metadata write (path, value or deletion, origin cluster,
origin time), what each path must converge to on every cluster; and how what clusters finally hold differs.

PIP-136's rule is last writer wins: the write with the latest origin timestamp; on equal timestamps the source
cluster whose name sorts first ("Pulsar selects event with source region-name A over source-region B based on
lexicographic sorting"). Pulsar 4.0.8 codes the tie the other way (``AbstractMetadataStore.shouldIgnoreEvent``:
an event from a smaller name is ignored, so the larger name wins); ``tie="pulsar-4.0.8"`` computes that variant
so a checker can tell which rule a cluster followed. A deletion is a write like any other (a tombstone): the
latest one removes the path. The result depends on the set of writes only, never on the order they arrive in.

Pure: no cluster, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

TieRule = Literal["pip", "pulsar-4.0.8"]
TIE_RULES: tuple[TieRule, ...] = ("pip", "pulsar-4.0.8")

PULSAR_TIE_RULES: dict[str, tuple[TieRule, str]] = {
    "4.0.8": ("pulsar-4.0.8", "AbstractMetadataStore.shouldIgnoreEvent in pulsar-metadata-4.0.8-sources.jar"),
    "4.2.4": (
        "pulsar-4.0.8",
        "AbstractMetadataStore.shouldIgnoreEvent in pulsar-metadata-4.2.4-sources.jar: the same comparisons as 4.0.8 "
        "(only the options null check changed, apache/pulsar#26200), read 2026-11-27",
    ),
}
"""The tie rule each Pulsar version codes, with where it was read; a version not listed has not been read."""


def pulsar_tie_rule(version: str) -> TieRule | None:
    """The tie rule Pulsar ``version`` codes, or None when its source has not been read."""
    known = PULSAR_TIE_RULES.get(version)
    return known[0] if known else None


@dataclass(frozen=True)
class MetadataWrite:
    """One write of a metadata path at its origin: ``value`` None is a deletion."""

    path: str
    value: bytes | None
    cluster: str
    ts_ms: int

    def __post_init__(self) -> None:
        if not self.path.startswith("/"):
            raise ValueError(f"a metadata path starts with '/', found {self.path!r}")
        if not self.cluster:
            raise ValueError("a write needs its origin cluster")
        if isinstance(self.ts_ms, bool) or not isinstance(self.ts_ms, int) or self.ts_ms < 0:
            raise ValueError(f"ts_ms is milliseconds since the epoch (an int >= 0), found {self.ts_ms!r}")


def wins_over(a: MetadataWrite, b: MetadataWrite, tie: TieRule = "pip") -> bool:
    """Whether ``a`` wins over ``b`` (same path) under last-writer-wins with the ``tie`` rule."""
    if a.ts_ms != b.ts_ms:
        return a.ts_ms > b.ts_ms
    if a.cluster != b.cluster:
        return a.cluster < b.cluster if tie == "pip" else a.cluster > b.cluster
    # Same cluster, same millisecond: the cluster's own store serialised them; a deterministic choice keeps the
    # oracle order-free (the larger value, a deletion counting as the smallest).
    return (a.value or b"", a.value is not None) > (b.value or b"", b.value is not None)


def winners(writes: Iterable[MetadataWrite], tie: TieRule = "pip") -> dict[str, MetadataWrite]:
    """Path -> its winning write (deletions included), in path order."""
    if tie not in TIE_RULES:
        raise ValueError(f"unknown tie rule {tie!r}; expected one of {', '.join(TIE_RULES)}")
    best: dict[str, MetadataWrite] = {}
    for write in writes:
        current = best.get(write.path)
        if current is None or wins_over(write, current, tie):
            best[write.path] = write
    return dict(sorted(best.items()))


def converged(writes: Iterable[MetadataWrite], tie: TieRule = "pip") -> dict[str, bytes]:
    """Path -> the value every cluster must hold in the end (paths whose winning write is a deletion are absent)."""
    return {path: w.value for path, w in winners(writes, tie).items() if w.value is not None}


@dataclass(frozen=True)
class Divergence:
    """A path a cluster holds differently from the oracle."""

    cluster: str
    path: str
    expected: bytes | None
    """None: the path must not exist"""
    found: bytes | None
    """None: the cluster does not have the path"""

    def describe(self) -> str:
        def show(value: bytes | None) -> str:
            return "absent" if value is None else repr(value.decode("utf-8", "replace")[:80])

        return f"{self.cluster} {self.path}: expected {show(self.expected)}, found {show(self.found)}"


def divergences(
    writes: Iterable[MetadataWrite], held: Mapping[str, Mapping[str, bytes]], tie: TieRule = "pip"
) -> list[Divergence]:
    """Every (cluster, path) where what ``held[cluster]`` holds differs from the oracle, over the paths written
    (paths nobody wrote are not judged). Empty: every cluster converged."""
    writes = list(writes)
    expected = converged(writes, tie)
    paths = sorted({w.path for w in writes})
    out = []
    for cluster in sorted(held):
        holding = held[cluster]
        for path in paths:
            want, found = expected.get(path), holding.get(path)
            if want != found:
                out.append(Divergence(cluster, path, want, found))
    return out
