"""The figures that put a scenario's variants side by side (ours, the native provider, Java's, on the same
faults): for the scenario's first fault, the switch and switch-back times as the clients saw them (the first
send acknowledged by another cluster after the fault began, and by the fault's cluster again after it ended;
measured the same way whatever the provider, so the native provider without switch events compares too), the
provider's own switch events, the RTO; for the run the sends, failed sends, lost messages and duplicates.
Read from the history alone, like :mod:`pytest_pulsar_ha.checks.figures`.

A scenario's variants are one family (``name`` and ``name[variant]``); the index page shows a family with
more than one member as one table (:func:`family_tables`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_pulsar_ha.checks.figures import RunFigures
from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, RECEIVE, SEND, SEND_ERROR, SWITCH, Event
from pytest_pulsar_ha.scenario.providers import CLIENT_CLASSES, Provider

NS = 1e9
COLUMNS = (
    "case",
    "client and provider",
    "switch",
    "switch back",
    "provider switched",
    "RTO",
    "sends",
    "failed",
    "lost",
    "duplicates",
)


@dataclass(frozen=True)
class SideBySide:
    case_id: str
    client: str
    """the client and its provider, e.g. ``python: ours (auto, lookup probe)``, ``java: Java's AutoClusterFailover``"""
    fault: str | None
    switch_s: float | None
    """first ack by another cluster than the fault's, from the fault's start"""
    switch_back_s: float | None
    """first ack by the fault's cluster after its end (only after a switch away), from the fault's end"""
    provider_switches: tuple[str, ...]
    """the provider's switch events after the fault began: ``+2.41s to cluster-b (down for 2000 ms)``"""
    rto_s: float | None
    sends: int
    sends_failed: int
    lost: int
    duplicates: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def cells(self) -> tuple[str, ...]:
        return (
            self.case_id,
            self.client,
            _s(self.switch_s, "none"),
            _s(self.switch_back_s, "none" if self.switch_s is not None else ""),
            "; ".join(self.provider_switches) or "(no switch events)",
            _s(self.rto_s, "none"),
            str(self.sends),
            str(self.sends_failed),
            str(self.lost),
            str(self.duplicates),
        )


def _s(value: float | None, none: str) -> str:
    return none if value is None else f"{value:.2f}s"


def client_label(client: str, provider: Provider) -> str:
    """What ran the workload: the client (its kind) and its provider, in words (the provider's facts say both:
    Java's own class where a driver runs it, else its label)."""
    if CLIENT_CLASSES[client].facts.driver:
        return f"{client}: {provider.facts.java or 'plain service URL'}"
    return f"{client}: {provider.facts.label.format_map(dict(provider))}"


def _decision(detail: str | None) -> str:
    """Java's logged decision in a switch event's detail (``down for 2000 ms``), else empty."""
    try:
        data = json.loads(detail or "")
        decision = json.loads(data.get("decision") or "{}") if isinstance(data, dict) else {}
    except (ValueError, TypeError):
        return ""
    text = decision.get("java_log") if isinstance(decision, dict) else None
    return f" ({text})" if isinstance(text, str) else ""


def side_by_side(case_id: str, client: str, events: Sequence[Event], figures: RunFigures | None) -> SideBySide:
    """The row of one run (its history's events, any order)."""
    ordered = sorted(events, key=lambda e: e.ts_ns)
    start = next((e for e in ordered if e.type == FAULT_START), None)
    end = None
    if start is not None:
        end = next((e for e in ordered if e.type == FAULT_END and e.detail == start.detail), None)
    switch = back = None
    switches: list[str] = []
    if start is not None:
        moves_to = "->" in (start.detail or "")  # an operator's switch names the cluster it moves clients to
        away = next(
            (
                e
                for e in ordered
                if e.type == ACK and e.ts_ns >= start.ts_ns and (e.cluster == start.cluster) == moves_to
            ),
            None,
        )
        if away is not None and away.cluster is not None:
            switch = (away.ts_ns - start.ts_ns) / NS
            if end is not None and not moves_to:
                returned = next(
                    (e for e in ordered if e.type == ACK and e.ts_ns >= end.ts_ns and e.cluster == start.cluster), None
                )
                back = None if returned is None else (returned.ts_ns - end.ts_ns) / NS
        switches = [
            f"+{(e.ts_ns - start.ts_ns) / NS:.2f}s to {e.cluster}{_decision(e.detail)}"
            for e in ordered
            if e.type == SWITCH and e.ts_ns >= start.ts_ns
        ]
    acked = {(e.producer, e.seq) for e in events if e.type == ACK}
    received: dict[str | None, set[tuple[str | None, int | None]]] = {}
    for e in events:
        if e.type == RECEIVE:
            received.setdefault(e.subscription, set()).add((e.producer, e.seq))
    lost = len({key for key in acked for got in received.values() if key not in got}) if received else len(acked)
    fault = figures.faults[0] if figures is not None and figures.faults else None
    return SideBySide(
        case_id=case_id,
        client=client,
        fault=None if start is None else start.detail,
        switch_s=switch,
        switch_back_s=back,
        provider_switches=tuple(switches),
        rto_s=None if fault is None else fault.rto_s,
        sends=sum(1 for e in events if e.type == SEND),
        sends_failed=sum(1 for e in events if e.type == SEND_ERROR),
        lost=lost,
        duplicates=0 if figures is None else figures.duplicates,
    )


def family(case_id: str) -> str:
    """``primary-outage[java]`` -> ``primary-outage``."""
    return case_id.split("[", 1)[0]


def family_tables(rows: Sequence[SideBySide]) -> dict[str, list[SideBySide]]:
    """The rows grouped by scenario family and first fault (``primary-outage (#0 outage cluster-a)``): the
    variants that ran the same fault; only groups of several rows."""
    groups: dict[str, list[SideBySide]] = {}
    for row in rows:
        if row.fault is not None:
            groups.setdefault(f"{family(row.case_id)} ({row.fault})", []).append(row)
    return {name: members for name, members in groups.items() if len(members) > 1}


def text_table(rows: Sequence[SideBySide]) -> list[str]:
    """The rows as aligned text lines (the terminal summary)."""
    cells = [COLUMNS, *(row.cells() for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in cells]
