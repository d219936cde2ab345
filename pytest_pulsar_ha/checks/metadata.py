"""The PIP-136 checks, on the history alone.

- **last_writer_wins**: the writes are the sync events the clusters published (``metadata_event``: origin cluster
  and origin time as Pulsar stamped them, read from the event topics), the oracle
  (:mod:`pytest_pulsar_ha.pips.metadata_sync.oracle`) says what each path must end as, and the last read
  of each cluster (``metadata_read`` with ``final``) is compared with it. A write the workload made that no event
  topic shows is missing evidence, never a pass.
- **converged**: from the reads, when every cluster last changed to the value they all end with, measured from
  the last write's end or the last fault's end, whichever is later; clusters that end apart never converged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_pulsar_ha.checks.registry import CheckContext, checker
from pytest_pulsar_ha.checks.result import CheckResult, no_evidence
from pytest_pulsar_ha.history import FAULT_END, METADATA_EVENT, METADATA_READ, METADATA_WRITE, Event
from pytest_pulsar_ha.pips.metadata_sync.oracle import PULSAR_TIE_RULES, MetadataWrite, TieRule, divergences
from pytest_pulsar_ha.scenario.expectations import ConvergedExpectation, LastWriterWinsExpectation

MAX_SHOWN = 4
DIVERGENCES = "divergences"
"""last_writer_wins's figure: the paths some cluster ends holding other than the oracle's value."""
DIVERGED_PATHS = "diverged_paths"
"""converged's figure: the paths whose clusters end holding different values (never converged)."""


@dataclass(frozen=True)
class Read:
    ts_ns: int
    cluster: str
    path: str
    value: str
    final: bool


def _detail(event: Event) -> dict[str, Any]:
    try:
        data = json.loads(event.detail or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def published_writes(events: Sequence[Event]) -> list[MetadataWrite]:
    """Every distinct sync event seen on any cluster's event topic, as the oracle's writes."""
    seen: dict[tuple[str, str, int, str | None], MetadataWrite] = {}
    for event in events:
        if event.type != METADATA_EVENT:
            continue
        d = _detail(event)
        path, source, origin = d.get("path"), d.get("source"), d.get("origin_ms")
        if not isinstance(path, str) or not isinstance(source, str) or not isinstance(origin, int):
            continue
        value = None if d.get("type") == "Deleted" else str(d.get("value"))
        key = (path, source, origin, value)
        seen.setdefault(key, MetadataWrite(path, None if value is None else value.encode(), source, origin))
    return list(seen.values())


def workload_writes(events: Sequence[Event]) -> list[tuple[Event, dict[str, Any]]]:
    return [(e, d) for e in events if e.type == METADATA_WRITE and (d := _detail(e)).get("ok")]


def reads(events: Sequence[Event]) -> list[Read]:
    out = []
    for event in events:
        if event.type == METADATA_READ and event.cluster:
            d = _detail(event)
            out.append(Read(event.ts_ns, event.cluster, str(d.get("path")), str(d.get("value")), bool(d.get("final"))))
    return out


def final_holdings(events: Sequence[Event]) -> dict[str, dict[str, bytes]]:
    """cluster -> path -> the value of its final read."""
    held: dict[str, dict[str, bytes]] = {}
    for read in reads(events):
        if read.final:
            held.setdefault(read.cluster, {})[read.path] = read.value.encode()
    return held


def unpublished(events: Sequence[Event], writes: Sequence[MetadataWrite]) -> list[str]:
    """The workload's successful writes no event topic showed (by origin cluster, path and value)."""
    published = {(w.cluster, w.path, w.value) for w in writes}
    missing = []
    for event, d in workload_writes(events):
        key = (event.cluster, d.get("path"), str(d.get("value")).encode())
        if key not in published:
            missing.append(f"{d.get('value')} on {event.cluster}")
    return missing


def propagation_seconds(events: Sequence[Event]) -> list[float]:
    """Per successful write, from its end until every cluster read its value (writes some cluster never showed,
    e.g. overwritten first, are left out). Reads are polled (every 0.25 s), so each figure is that coarse."""
    all_reads = reads(events)
    clusters = sorted({r.cluster for r in all_reads})
    out = []
    for event, d in workload_writes(events):
        end, value, path = int(d.get("end_ns") or event.ts_ns), str(d.get("value")), d.get("path")
        shown = []
        for cluster in clusters:
            first = next(
                (r.ts_ns for r in all_reads if r.cluster == cluster and r.path == path and r.value == value), None
            )
            if first is None:
                break
            shown.append(first)
        else:
            if shown:
                out.append(max(0.0, (max(shown) - end) / 1e9))
    return out


def describe_propagation(seconds: Sequence[float]) -> str:
    if not seconds:
        return "no write reached every cluster"
    ordered = sorted(seconds)
    median = ordered[len(ordered) // 2]
    return f"{len(ordered)} write(s) reached every cluster: median {median:.2f}s, worst {ordered[-1]:.2f}s"


def missing_evidence(events: Sequence[Event], held: dict[str, dict[str, bytes]]) -> str | None:
    """Why a run's final holdings cannot be judged (no successful write, or no cluster read at the end), or None."""
    if not workload_writes(events):
        return "the workload made no successful metadata write: no evidence"
    if not held:
        return "no cluster was read at the end: no evidence"
    return None


@checker("last_writer_wins")
def judge_last_writer_wins(expectation: LastWriterWinsExpectation, context: CheckContext) -> CheckResult:
    kind = expectation.kind
    expected = "every cluster ends with the last write by origin time (ties: the smaller cluster name)"
    events = context.events
    writes = published_writes(events)
    held = final_holdings(events)
    lacking = missing_evidence(events, held)
    if lacking is not None:
        return no_evidence(kind, expected, lacking)
    missing = unpublished(events, writes)
    if missing:  # the oracle cannot judge a write it never saw: missing evidence, never a pass
        shown = ", ".join(missing[:MAX_SHOWN])
        return no_evidence(kind, expected, f"{len(missing)} write(s) never appeared on an event topic (e.g. {shown})")
    found = divergences(writes, held, "pip")
    if not found:
        winners = {w.path for w in writes}
        measured = f"{len(held)} clusters hold the oracle's value of {len(winners)} path(s)"
        return CheckResult(kind, True, expected, measured, figures={DIVERGENCES: 0}, window=(0, 0))
    other: TieRule = "pulsar-4.0.8"
    coded_in = ", ".join(v for v, (rule, _) in PULSAR_TIE_RULES.items() if rule == other)
    matched = not divergences(writes, held, other)
    note = f" (they match Pulsar's tie rule, larger name wins, as coded in {coded_in})" if matched else ""
    text = "; ".join(d.describe() for d in found[:MAX_SHOWN])
    measured = f"{len(found)} divergence(s) from the oracle{note}: {text}"
    return CheckResult(kind, False, expected, measured, figures={DIVERGENCES: len(found)}, window=(0, 0))


@checker("converged")
def judge_converged(expectation: ConvergedExpectation, context: CheckContext) -> CheckResult:
    kind = expectation.kind
    within = expectation.converged.within.seconds
    expected = f"every cluster holds the same value within {within:g}s of the last write and the last fault"
    events = context.events
    writes = workload_writes(events)
    if not writes:
        return no_evidence(kind, expected, "the workload made no successful metadata write: no evidence")
    ends = [int(d.get("end_ns") or e.ts_ns) for e, d in writes]
    ends += [e.ts_ns for e in events if e.type == FAULT_END]
    reference = max(ends)
    all_reads = reads(events)
    paths = sorted({r.path for r in all_reads})
    if not paths:
        return no_evidence(kind, expected, "no cluster was read: no evidence")
    parts, ok, worst, apart = [], True, 0.0, 0
    for path in paths:
        mine = [r for r in all_reads if r.path == path]
        finals = {r.cluster: r.value for r in mine if r.final}
        if len(set(finals.values())) != 1:
            ok, apart = False, apart + 1
            parts.append(f"{path} never converged: " + ", ".join(f"{c} holds {v}" for c, v in sorted(finals.items())))
            continue
        value = next(iter(finals.values()))
        last_change = max(
            (r.ts_ns for r in mine if not r.final and r.value == value and r.ts_ns > reference), default=reference
        )
        late = [r for r in mine if r.ts_ns > reference and r.value != value]
        if late:
            last_change = max(last_change, max(r.ts_ns for r in late))
        seconds = max(0.0, (last_change - reference) / 1e9)
        worst = max(worst, seconds)
        if seconds > within:
            ok = False
        parts.append(f"{path}: every cluster holds {value} {seconds:.1f}s after the last write/fault")
    measured = "; ".join(parts) + ("" if ok else f" (worst {worst:.1f}s)")
    measured = f"{measured}; {describe_propagation(propagation_seconds(events))}"
    figures = {DIVERGED_PATHS: apart, "paths": len(paths), "worst_s": worst}
    return CheckResult(kind, ok, expected, measured, figures=figures, window=(0, within))
