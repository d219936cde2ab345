"""The figures an operator asks of a chaos run, computed from the history alone: per fault the RTO, the switch
and switch-back times and the stranded messages; for the run the duplicate receipts, each attributed to the
switch that caused it.

Every figure is read from observable events: acks (a send the client saw acknowledged), receives, the
provider's ``switch`` events and the nemesis' ``fault_start``/``fault_end`` events (paired by their label,
the ``detail`` of both). Nothing comes from a component's own account of what it did.

- **RTO** (recovery time, as seen by the clients): the longest stretch without an acknowledged send that
  overlaps the fault (from the last ack before it, or its start, to the next ack). None when no send was
  acknowledged after the fault began.
- **switch / switch back**: seconds from the fault's start to the first switch away from its cluster, and from
  its end to the first switch back to it. None when there was none.
- **switch back from the real end** (a fault with a quiet end, which records ``undo_start`` when its undo began
  and ``fault_end`` once the cluster settled): seconds from ``undo_start`` to the first send acknowledged by the
  fault's cluster after it (an ack, as the ``switch_back`` windows count; before the next fault starts), with
  the quiet end's length (``undo_start`` to ``fault_end``). Reported, never judged: the windows are measured
  from the recorded end, which clients could reach. None without an ``undo_start``, or when the cluster
  acknowledged nothing after it.
- **stranded**: sends acknowledged by the faulted cluster before the clients switched away that were received
  only after that switch (they waited for replication or for the cluster to come back), with the longest wait
  (first receipt minus the switch), and those never received. None when the clients did not switch.
- **migrations** (PIP-188, from each ``migration_start`` event): seconds from the start to the first send
  acknowledged by the target (producers redirected) and to the first message it delivered (consumers
  redirected, after draining blue), the sends issued in between (the move), the topics blue marked migrated
  (``migrated`` events) and when blue was done (``migration_end``).
- **duplicates**: receipts of a message (producer, seq) already received on the same subscription; each is
  attributed to the last switch before it (or to none, before any switch) and counted per delivering cluster
  (the receive's ``cluster``, read from the brokers' storage by :mod:`pytest_pulsar_ha.workload.storage_lookup`).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from pytest_pulsar_ha.history import (
    ACK,
    FAULT_END,
    FAULT_START,
    MIGRATED,
    MIGRATION_END,
    MIGRATION_START,
    RECEIVE,
    SEND,
    SWITCH,
    UNDO_START,
    Event,
)

NS = 1e9


@dataclass(frozen=True)
class FaultFigures:
    label: str
    cluster: str | None
    rto_s: float | None
    switch_s: float | None
    switch_back_s: float | None
    stranded: int | None
    stranded_max_wait_s: float | None
    stranded_never_received: int | None
    quiet_end_s: float | None = None
    """a quiet end: seconds from its ``undo_start`` to its ``fault_end`` (clients kept off); None: no quiet end"""
    switch_back_from_real_end_s: float | None = None
    """a quiet end: seconds from its ``undo_start`` to the first ack by the cluster (None: none, or no quiet end)"""

    def summary(self) -> str:
        parts = [f"{self.label}: RTO {_seconds(self.rto_s, 'no ack after it began')}"]
        if self.switch_s is not None:
            parts.append(f"switch {self.switch_s:.2f}s")
        real = self.switch_back_from_real_end_s
        if self.quiet_end_s is not None or real is not None:
            back = "none" if self.switch_back_s is None else f"{self.switch_back_s:.2f}s"
            from_real = (
                f"none from the real end: {self.cluster or 'its cluster'} acknowledged no send after the undo began"
                if real is None
                else f"{real:.2f}s from the real end"
            )
            parts.append(f"switch back {back} ({from_real})")
        elif self.switch_back_s is not None:
            parts.append(f"switch back {self.switch_back_s:.2f}s")
        if self.stranded is not None:
            text = f"stranded {self.stranded}"
            if self.stranded and self.stranded_max_wait_s is not None:
                text += f" (longest wait {self.stranded_max_wait_s:.2f}s)"
            if self.stranded_never_received:
                text += f", {self.stranded_never_received} never received"
            parts.append(text)
        return ", ".join(parts)


@dataclass(frozen=True)
class MigrationFigures:
    blue: str | None
    green: str | None
    producers_redirected_s: float | None
    """start -> first send acknowledged by green (None: never)"""
    consumers_redirected_s: float | None
    """start -> first message delivered by green (None: never)"""
    sent_during_move: int
    """sends issued between the start and the first ack by green"""
    topics_migrated: int
    done_s: float | None
    """start -> blue reported every topic done (``migration_end``; None: never)"""

    def summary(self) -> str:
        parts = [
            f"migration {self.blue}->{self.green}: producers redirected "
            + _seconds(self.producers_redirected_s, "never"),
            "consumers " + _seconds(self.consumers_redirected_s, "never"),
            f"{self.sent_during_move} sends during the move",
            f"{self.topics_migrated} topic(s) migrated",
            "done " + _seconds(self.done_s, "never"),
        ]
        return ", ".join(parts)


@dataclass(frozen=True)
class SwitchDuplicates:
    switch_at_s: float | None
    """seconds after the first event of the history; None for duplicates before any switch"""
    to_cluster: str | None
    duplicates: int


UNKNOWN = "unknown"
"""The delivering cluster of a receipt whose cluster the history does not know."""


@dataclass(frozen=True)
class RunFigures:
    receipts: int
    duplicates: int
    duplicates_by_switch: tuple[SwitchDuplicates, ...]
    faults: tuple[FaultFigures, ...]
    receipts_by_cluster: dict[str, int] = field(default_factory=dict)
    """receipts per delivering cluster (the receive events' ``cluster``; ``unknown`` when it is null)"""
    duplicates_by_cluster: dict[str, int] = field(default_factory=dict)
    migrations: tuple[MigrationFigures, ...] = ()

    @property
    def duplicate_ratio(self) -> float:
        return self.duplicates / self.receipts if self.receipts else 0.0

    def summary(self) -> str:
        lines = [f.summary() for f in self.faults] + [m.summary() for m in self.migrations]
        dup = f"duplicates {self.duplicates} of {self.receipts} receipts ({self.duplicate_ratio:.0%})"
        caused = [
            f"{d.duplicates} after the switch to {d.to_cluster} at {d.switch_at_s:.1f}s"
            if d.switch_at_s is not None
            else f"{d.duplicates} before any switch"
            for d in self.duplicates_by_switch
            if d.duplicates
        ]
        lines.append(dup + (": " + "; ".join(caused) if caused else ""))
        if self.receipts:
            lines.append(
                "delivered by "
                + ", ".join(
                    f"{cluster} {count}"
                    + (
                        f" ({self.duplicates_by_cluster[cluster]} duplicates)"
                        if self.duplicates_by_cluster.get(cluster)
                        else ""
                    )
                    for cluster, count in sorted(self.receipts_by_cluster.items())
                )
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "duplicate_ratio": round(self.duplicate_ratio, 4)}


def _seconds(value: float | None, none: str) -> str:
    return none if value is None else f"{value:.2f}s"


def _fault_windows(events: Sequence[Event]) -> list[tuple[str, str | None, int, int | None]]:
    """(label, cluster, start, end) per fault, in order of start; the first start of a label counts, and the
    first end after it."""
    starts: dict[str, tuple[str | None, int]] = {}
    ends: dict[str, int] = {}
    for e in events:
        label = e.detail or ""
        if e.type == FAULT_START:
            starts.setdefault(label, (e.cluster, e.ts_ns))
        elif e.type == FAULT_END and label in starts and e.ts_ns >= starts[label][1]:
            ends.setdefault(label, e.ts_ns)
    windows = [(label, cluster, start, ends.get(label)) for label, (cluster, start) in starts.items()]
    return sorted(windows, key=lambda w: w[2])


def _undo_starts(events: Sequence[Event], windows: Sequence[tuple[str, str | None, int, int | None]]) -> dict[str, int]:
    """Label -> its first ``undo_start`` at or after its fault's start (faults with a quiet end only)."""
    started = {label: start for label, _, start, _ in windows}
    undos: dict[str, int] = {}
    for e in events:
        label = e.detail or ""
        if e.type == UNDO_START and label in started and e.ts_ns >= started[label]:
            undos.setdefault(label, e.ts_ns)
    return undos


def _rto(ack_times: list[int], start: int, end: int) -> float | None:
    after = bisect.bisect_left(ack_times, start)
    if after == len(ack_times):
        return None
    previous = ack_times[after - 1] if after > 0 else start
    longest = ack_times[after] - previous
    i = after
    while i + 1 < len(ack_times) and ack_times[i] <= end:
        longest = max(longest, ack_times[i + 1] - ack_times[i])
        i += 1
    return longest / NS


def run_figures(events: Sequence[Event]) -> RunFigures:
    """The figures of one history (any order; sorted here)."""
    ordered = sorted(events, key=lambda e: e.ts_ns)
    origin = ordered[0].ts_ns if ordered else 0
    acks = [e for e in ordered if e.type == ACK]
    ack_times = [e.ts_ns for e in acks]
    switches = [e for e in ordered if e.type == SWITCH]
    first_receipt: dict[tuple[str | None, int | None], int] = {}
    seen: set[tuple[str | None, str | None, int | None]] = set()
    receipts = 0
    by_switch: dict[int | None, int] = {}
    by_cluster: dict[str, int] = {}
    dup_by_cluster: dict[str, int] = {}
    switch_times = [s.ts_ns for s in switches]
    for e in ordered:
        if e.type != RECEIVE:
            continue
        receipts += 1
        deliverer = e.cluster or UNKNOWN
        by_cluster[deliverer] = by_cluster.get(deliverer, 0) + 1
        first_receipt.setdefault((e.producer, e.seq), e.ts_ns)
        key = (e.subscription, e.producer, e.seq)
        if key in seen:
            last = bisect.bisect_right(switch_times, e.ts_ns) - 1
            index = last if last >= 0 else None
            by_switch[index] = by_switch.get(index, 0) + 1
            dup_by_cluster[deliverer] = dup_by_cluster.get(deliverer, 0) + 1
        seen.add(key)
    duplicates = sum(by_switch.values())
    attributed = tuple(
        SwitchDuplicates(None, None, count)
        if index is None
        else SwitchDuplicates((switches[index].ts_ns - origin) / NS, switches[index].cluster, count)
        for index, count in sorted(by_switch.items(), key=lambda kv: -1 if kv[0] is None else kv[0])
    )

    faults = []
    windows = _fault_windows(ordered)
    undos = _undo_starts(ordered, windows)
    for index, (label, cluster, start, end) in enumerate(windows):
        stop = end if end is not None else start
        # A fault's switches happen before the next fault starts: a later fault's switch is not this one's
        # (a replication cut followed by an outage would otherwise show the outage's switch as its own).
        until = windows[index + 1][2] if index + 1 < len(windows) else None
        within = [s for s in switches if until is None or s.ts_ns < until]
        away = next((s for s in within if s.ts_ns >= start and s.cluster != cluster), None)
        back = next((s for s in within if s.ts_ns >= end and s.cluster == cluster), None) if end is not None else None
        undo = undos.get(label)
        real_back = None
        if undo is not None:  # the first ack by the cluster after the undo began (before the next fault starts)
            after_undo = acks[bisect.bisect_left(ack_times, undo) :]
            back_ack = (a for a in after_undo if a.cluster == cluster and (until is None or a.ts_ns < until))
            ack_back = next(back_ack, None)
            real_back = None if ack_back is None else (ack_back.ts_ns - undo) / NS
        stranded = wait = never = None
        if away is not None:
            waits = []
            never = 0
            for ack in acks:
                if ack.cluster != cluster or ack.ts_ns >= away.ts_ns:
                    continue
                received = first_receipt.get((ack.producer, ack.seq))
                if received is None:
                    never += 1
                elif received > away.ts_ns:
                    waits.append((received - away.ts_ns) / NS)
            stranded = len(waits) + never
            wait = max(waits) if waits else None
        faults.append(
            FaultFigures(
                label=label,
                cluster=cluster,
                rto_s=_rto(ack_times, start, stop),
                switch_s=None if away is None else (away.ts_ns - start) / NS,
                switch_back_s=None if back is None or end is None else (back.ts_ns - end) / NS,
                stranded=stranded,
                stranded_max_wait_s=wait,
                stranded_never_received=never,
                quiet_end_s=None if undo is None or end is None else (end - undo) / NS,
                switch_back_from_real_end_s=real_back,
            )
        )
    return RunFigures(receipts, duplicates, attributed, tuple(faults), by_cluster, dup_by_cluster, _migrations(ordered))


def _migrations(ordered: Sequence[Event]) -> tuple[MigrationFigures, ...]:
    out = []
    for start in (e for e in ordered if e.type == MIGRATION_START):
        try:
            green = json.loads(start.detail or "{}").get("to")
        except (ValueError, AttributeError):
            green = None
        after = [e for e in ordered if e.ts_ns >= start.ts_ns]
        ack = next((e for e in after if e.type == ACK and e.cluster == green), None)
        receipt = next((e for e in after if e.type == RECEIVE and e.cluster == green), None)
        end = next((e for e in after if e.type == MIGRATION_END and e.cluster == start.cluster), None)
        moved_until = ack.ts_ns if ack is not None else None
        out.append(
            MigrationFigures(
                blue=start.cluster,
                green=green,
                producers_redirected_s=None if ack is None else (ack.ts_ns - start.ts_ns) / NS,
                consumers_redirected_s=None if receipt is None else (receipt.ts_ns - start.ts_ns) / NS,
                sent_during_move=sum(
                    1 for e in after if e.type == SEND and (moved_until is None or e.ts_ns < moved_until)
                ),
                topics_migrated=len({e.topic for e in after if e.type == MIGRATED and e.cluster == start.cluster}),
                done_s=None if end is None else (end.ts_ns - start.ts_ns) / NS,
            )
        )
    return tuple(out)
