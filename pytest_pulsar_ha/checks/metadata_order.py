"""``latest_write_kept``: PIP-136 judged by the harness's clock instead of the clusters'.

``last_writer_wins`` asks whether the clusters applied their own rule (the latest *origin time* wins, as the
clusters stamped it). This check asks what a user asks: does every cluster end with the write made last? The order
is the harness's: each ``metadata_write`` is stamped by the harness when it began and ended, on one clock. Where a
cluster's clock runs ahead, the two answers part: its earlier write carries the later origin time. The measured
figure names how far each cluster's origin times ran from the harness's clock (each published event matched to the
workload's write of the same cluster, path and value), so a failure carries the skew that explains it: ``skew_s``,
the widest of them, is the figure an expected failure can name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_pulsar_ha.checks.metadata import final_holdings, missing_evidence, published_writes, workload_writes
from pytest_pulsar_ha.checks.registry import CheckContext, checker
from pytest_pulsar_ha.checks.result import CheckResult, no_evidence
from pytest_pulsar_ha.history import Event
from pytest_pulsar_ha.pips.metadata_sync.oracle import MetadataWrite
from pytest_pulsar_ha.scenario.expectations import LatestWriteKeptExpectation


@dataclass(frozen=True)
class MadeWrite:
    """A successful write the workload made, on the harness's clock."""

    cluster: str
    path: str
    value: str
    began_ns: int
    ended_ns: int


def made_writes(events: Sequence[Event]) -> list[MadeWrite]:
    out = []
    for event, d in workload_writes(events):
        if event.cluster and isinstance(d.get("path"), str):
            ended = d.get("end_ns")
            end = ended if isinstance(ended, int) else event.ts_ns
            out.append(MadeWrite(event.cluster, d["path"], str(d.get("value")), event.ts_ns, end))
    return out


def clock_offsets(made: Sequence[MadeWrite], published: Sequence[MetadataWrite]) -> dict[str, float]:
    """Cluster -> the largest distance (seconds, signed) between the origin time it stamped on one of its writes
    and the harness's clock while the write was made (0 inside the write's span); clusters none of whose writes
    was seen published are left out."""
    out: dict[str, float] = {}
    for write in made:
        for event in published:
            if (event.cluster, event.path, event.value) != (write.cluster, write.path, write.value.encode()):
                continue
            origin_ns = event.ts_ms * 1_000_000
            if origin_ns < write.began_ns:
                skew = (origin_ns - write.began_ns) / 1e9
            elif origin_ns > write.ended_ns:
                skew = (origin_ns - write.ended_ns) / 1e9
            else:
                skew = 0.0
            if write.cluster not in out or abs(skew) > abs(out[write.cluster]):
                out[write.cluster] = skew
    return out


def describe_offsets(offsets: dict[str, float]) -> str:
    if not offsets:
        return "no write of the workload was seen published, so the clusters' clocks are not known"
    shown = ", ".join(f"{cluster} {seconds:+.1f}s" for cluster, seconds in sorted(offsets.items()))
    widest = max(abs(seconds) for seconds in offsets.values())
    return f"origin times against the harness's clock: {shown} (skew_s={widest:.1f})"


@checker("latest_write_kept")
def judge_latest_write_kept(expectation: LatestWriteKeptExpectation, context: CheckContext) -> CheckResult:
    kind = expectation.kind
    expected = "every cluster ends with the write the workload made last (by the harness's clock)"
    events = context.events
    made = made_writes(events)
    held = final_holdings(events)
    lacking = missing_evidence(events, held) or (None if made else "no write names its cluster and path: no evidence")
    if lacking is not None:
        return no_evidence(kind, expected, lacking)
    t0 = min(w.began_ns for w in made)
    offsets = describe_offsets(clock_offsets(made, published_writes(events)))  # skew_s, as the figure below
    parts, ok, wrong_paths, unordered = [], True, 0, 0
    for path in sorted({w.path for w in made}):
        mine = sorted((w for w in made if w.path == path), key=lambda w: w.began_ns)
        last = mine[-1]
        overlapping = [w for w in mine[:-1] if w.ended_ns > last.began_ns]
        if overlapping:
            ok, unordered = False, unordered + 1
            other = overlapping[-1]
            parts.append(
                f"{path}: the last two writes overlapped ({other.value} by {other.cluster}, {last.value} by "
                f"{last.cluster}), so no order tells which is last: no evidence"
            )
            continue
        holders = {cluster: paths.get(path) for cluster, paths in held.items()}
        wrong = {c: v for c, v in holders.items() if v != last.value.encode()}
        when = f"{last.value} by {last.cluster} at +{(last.began_ns - t0) / 1e9:.1f}s"
        if wrong:
            ok, wrong_paths = False, wrong_paths + 1
            shown = ", ".join(f"{c} holds {'nothing' if v is None else v.decode()}" for c, v in sorted(wrong.items()))
            parts.append(f"{path}: the last write was {when}; {shown}")
        else:
            parts.append(f"{path}: every cluster holds the last write, {when}")
    figures: dict[str, float] = {"paths_not_kept": wrong_paths}
    skews = clock_offsets(made, published_writes(events))
    if skews:
        figures["skew_s"] = round(max(abs(s) for s in skews.values()), 1)
    measured = "; ".join(parts) + f"; {offsets}"
    # overlapping last writes leave no order to judge by: no evidence, unless another path failed on its own
    evidence = wrong_paths > 0 or not unordered
    return CheckResult(kind, ok, expected, measured, figures=figures, window=(0, 0), evidence=evidence)
