"""Verdict and report objects: plain Python (no pyspark), so they can be built, compared and printed anywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Figure = int | float | str | None


def _format_ns(value: int) -> str:
    """A duration in nanoseconds, in the most readable unit."""
    magnitude = abs(value)
    if magnitude >= 1_000_000_000:
        return f"{value / 1e9:.3f} s"
    if magnitude >= 1_000_000:
        return f"{value / 1e6:.3f} ms"
    if magnitude >= 1_000:
        return f"{value / 1e3:.3f} us"
    return f"{value} ns"


def format_figure(name: str, value: Figure) -> str:
    """A figure for humans: durations (names containing ``_ns``) in s/ms/us, shares as percentages."""
    if value is None:
        return "-"
    if isinstance(value, int) and not isinstance(value, bool) and "_ns" in name:
        return _format_ns(value)
    if isinstance(value, float) and name.startswith("share"):
        return f"{value:.2%}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _format_row(row: Mapping[str, Any]) -> str:
    parts = []
    for name, value in row.items():
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and (name.endswith("_ns") and "ts" not in name):
            parts.append(f"{name}={_format_ns(value)}")
        else:
            parts.append(f"{name}={value}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check.

    ``counts`` holds the figures (per-subscription or per-cluster figures are keyed ``name[subscription]``);
    ``examples`` holds up to N concrete rows (as dicts) that show the anomaly, or that illustrate the figures.
    """

    name: str
    ok: bool
    counts: dict[str, Figure]
    examples: list[dict[str, Any]] = field(default_factory=list)
    summary: str = ""
    """One line: what was checked and with which parameters."""
    reason: str = ""
    """Why it failed when no figure says it: the evidence that is missing (empty otherwise)."""

    def describe(self) -> str:
        """Several lines: status, the reason, the figures, then the examples."""
        status = "ok" if self.ok else "FAILED"
        lines = [f"[{status}] {self.name}" + (f": {self.summary}" if self.summary else "")]
        if self.reason:
            lines.append(f"    why: {self.reason}")
        width = max((len(name) for name in self.counts), default=0)
        for name, value in self.counts.items():
            lines.append(f"    {name:<{width}}  {format_figure(name, value)}")
        if self.examples:
            lines.append(f"    examples ({len(self.examples)}):")
            lines.extend(f"      - {_format_row(row)}" for row in self.examples)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "summary": self.summary,
            "reason": self.reason,
            "counts": dict(self.counts),
            "examples": [dict(row) for row in self.examples],
        }

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True)
class Report:
    """Every verdict of one history; ``ok`` when all are."""

    source: str
    verdicts: tuple[Verdict, ...]
    events: int | None = None
    seconds: float | None = None
    """How long the checks took (wall clock)."""
    notes: tuple[str, ...] = ()
    """What reading the history skipped or assumed (e.g. a truncated last line)."""

    @property
    def ok(self) -> bool:
        return all(verdict.ok for verdict in self.verdicts)

    @property
    def failed(self) -> list[Verdict]:
        return [verdict for verdict in self.verdicts if not verdict.ok]

    def __getitem__(self, name: str) -> Verdict:
        for verdict in self.verdicts:
            if verdict.name == name:
                return verdict
        raise KeyError(f"no verdict named {name!r}; verdicts: {', '.join(self.names)}")

    def __iter__(self) -> Iterator[Verdict]:
        return iter(self.verdicts)

    @property
    def names(self) -> Sequence[str]:
        return [verdict.name for verdict in self.verdicts]

    def describe(self) -> str:
        head = f"history {self.source}"
        if self.events is not None:
            head += f": {self.events} events"
        if self.seconds is not None:
            head += f", checked in {self.seconds:.1f} s"
        head += "".join(f"\nnote: {note}" for note in self.notes)
        body = "\n".join(verdict.describe() for verdict in self.verdicts)
        if self.ok:
            tail = f"PASS: all {len(self.verdicts)} checks ok"
        else:
            tail = f"FAIL: {', '.join(verdict.name for verdict in self.failed)}"
        return f"{head}\n{body}\n{tail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ok": self.ok,
            "events": self.events,
            "seconds": self.seconds,
            "notes": list(self.notes),
            "verdicts": [verdict.to_dict() for verdict in self.verdicts],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def __str__(self) -> str:
        return self.describe()
