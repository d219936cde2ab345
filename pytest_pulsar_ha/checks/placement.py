"""The PIP-7 expectations, judged on the history only: ``placement`` and ``reassigned``.

Both read the ``probe`` events of :mod:`~pytest_pulsar_ha.pips.placement_watch` (owners and placements read from
Pulsar while the scenario ran) and the ``fault_start`` / ``fault_end`` events of the nemesis.

* ``placement``: the reading taken last before the faults, and the reading taken last while the fault was in
  force with none of the brokers it hit listed as active (after the bundles moved; a killed broker that is
  started again comes back empty and Pulsar does not move bundles back at once, so a reading after a restart says
  nothing about PIP-7; the fault's recorded end comes only once every hit broker is healthy again) must both
  follow the rule of :meth:`~pytest_pulsar_ha.pips.failure_domains.GroupPlacement.spread_problems`.
* ``reassigned``: for every topic of the workload, the first ack after the fault's start that a broker the
  fault did not hit acknowledged, within ``within``. The broker of an ack is the topic's owner according to the
  owner readings just before and just after the ack (they must agree; otherwise the ack is not attributed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_pulsar_ha.checks.faults import RecordedFault
from pytest_pulsar_ha.checks.registry import CheckContext, checker
from pytest_pulsar_ha.checks.result import CheckResult, no_evidence
from pytest_pulsar_ha.history import ACK, PROBE, Event
from pytest_pulsar_ha.pips.failure_domains import GroupPlacement, gap
from pytest_pulsar_ha.pips.placement_watch import (
    OWNER_PROBE,
    PLACEMENT_PROBE,
    WATCH_PROCESS,
    placement_from_detail,
)
from pytest_pulsar_ha.scenario.expectations import (
    PlacementExpectation,
    PlacementSpec,
    ReassignedExpectation,
    ReassignedSpec,
)


@dataclass(frozen=True)
class FaultWindow:
    """A fault as recorded in the history, and the brokers (load-manager ids) it hit."""

    started_ns: int | None
    ended_ns: int | None
    brokers: tuple[str, ...] = ()


def _detail(event: Event) -> dict[str, object]:
    try:
        data = json.loads(event.detail or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _short(topic: str) -> str:
    return topic.split("://", 1)[-1]


# -- owners and acks ---------------------------------------------------------------------------------------


def owner_readings(events: Sequence[Event]) -> dict[str, list[tuple[int, str | None]]]:
    """``{topic: [(ts_ns, owner broker id or None for a failed reading), ...]}`` in time order."""
    out: dict[str, list[tuple[int, str | None]]] = {}
    for event in sorted(events, key=lambda e: e.ts_ns):
        if event.type != PROBE or event.process != WATCH_PROCESS or event.topic is None:
            continue
        data = _detail(event)
        if data.get("probe") != OWNER_PROBE:
            continue
        broker = data.get("broker") if data.get("ok") else None
        out.setdefault(_short(event.topic), []).append((event.ts_ns, str(broker) if broker else None))
    return out


def ack_topic(ack: Event) -> str:
    """The concrete topic of an ack (``tenant/ns/name``, ``-partition-N`` added for a partitioned topic)."""
    topic = _short(ack.topic or "")
    parts = (ack.message_id or "").split(":")
    if len(parts) == 3 and parts[2].lstrip("-").isdigit() and int(parts[2]) >= 0:
        topic = f"{topic}-partition-{int(parts[2])}"
    return topic


def ack_broker(readings: Sequence[tuple[int, str | None]], ts_ns: int) -> str | None:
    """The broker that acknowledged at ``ts_ns``: the owner the readings just before and just after agree on."""
    before = [broker for ts, broker in readings if ts <= ts_ns]
    after = [broker for ts, broker in readings if ts >= ts_ns]
    if not before or not after or before[-1] is None or before[-1] != after[0]:
        return None
    return before[-1]


def judge_reassigned(spec: ReassignedSpec, events: Sequence[Event], fault: FaultWindow) -> CheckResult:
    expected = f"every topic acknowledged by a surviving broker within {spec.within} of fault #{spec.fault} start"
    if fault.started_ns is None:
        return no_evidence("reassigned", expected, f"no fault_start event for fault #{spec.fault}")
    readings = owner_readings(events)
    acks = sorted((e for e in events if e.type == ACK), key=lambda e: e.ts_ns)
    topics = sorted(set(readings) | {ack_topic(a) for a in acks})
    if not topics:
        return no_evidence("reassigned", expected, "no ack and no owner reading in the history: no evidence")
    hit = set(fault.brokers)
    lines, slowest, missing = [], 0.0, []
    for topic in topics:
        first = next(
            (
                (a, broker)
                for a in acks
                if a.ts_ns >= fault.started_ns
                and ack_topic(a) == topic
                and (broker := ack_broker(readings.get(topic, []), a.ts_ns)) is not None
                and broker not in hit
            ),
            None,
        )
        if first is None:
            missing.append(topic)
            lines.append(f"{topic}: no ack attributed to a surviving broker after the fault start")
            continue
        ack, broker = first
        took = (ack.ts_ns - fault.started_ns) / 1e9
        slowest = max(slowest, took)
        lines.append(f"{topic}: first ack by surviving broker {broker} after {took:.2f}s")
    ok = not missing and slowest <= spec.within.seconds
    measured = f"slowest topic {slowest:.2f}s over {len(topics)} topics (fault hit {', '.join(sorted(hit)) or '-'})"
    if missing:
        measured = f"{len(missing)} of {len(topics)} topics never served by a surviving broker: {', '.join(missing)}"
    figures = {"slowest_s": slowest, "topics": len(topics), "topics_never_served": len(missing)}
    window = (0.0, spec.within.seconds)
    return CheckResult("reassigned", ok, expected, measured, "\n".join(lines), figures=figures, window=window)


# -- placement ---------------------------------------------------------------------------------------------


DOMAIN_SPREAD = "domain_spread"
"""placement's figure: the most namespaces on one live domain less the fewest on another (0 or 1 when even)."""


def domain_spread(placement: GroupPlacement) -> int:
    """The most namespaces of the group on one live domain less the fewest on another."""
    return gap(placement.per_live_domain())


BROKER_SPREAD = "broker_spread"
"""placement's figure: inside one live domain, the most namespaces on one live broker less the fewest on another."""


def broker_spread(placement: GroupPlacement) -> int:
    """The widest gap, over the live domains, between the namespaces of the group on two live brokers of it."""
    return max((gap(placement.per_broker(brokers)) for brokers in placement.live_domains().values()), default=0)


def placement_readings(events: Sequence[Event], cluster: str, group: str) -> list[tuple[int, GroupPlacement]]:
    out = []
    for event in sorted(events, key=lambda e: e.ts_ns):
        if event.type != PROBE or event.process != WATCH_PROCESS or event.cluster != cluster:
            continue
        data = _detail(event)
        if data.get("probe") != PLACEMENT_PROBE or not data.get("ok") or data.get("group") != group:
            continue
        out.append((event.ts_ns, placement_from_detail(event.detail or "")))
    return out


def _summary(placement: GroupPlacement) -> str:
    by_domain = placement.namespaces_by_domain()
    return "; ".join(f"{d}: {len(ns)}" for d, ns in sorted(by_domain.items())) or "no domain"


def judge_placement(
    spec: PlacementSpec, cluster: str, events: Sequence[Event], fault: FaultWindow | None
) -> CheckResult:
    """The last reading before ``fault`` and the last one while it held (no fault: the last reading)."""
    expected = f"group {spec.group} spread over the live domains of {cluster}, evenly over their brokers"
    readings = placement_readings(events, cluster, spec.group)
    if not readings:
        return no_evidence("placement", expected, f"no placement reading of {spec.group} in the history")
    phases: list[tuple[str, tuple[int, GroupPlacement] | None]] = []
    if fault is None or fault.started_ns is None:
        phases.append(("during the workload", readings[-1]))
    else:
        start, end = fault.started_ns, fault.ended_ns
        phases.append(("before the faults", next((r for r in reversed(readings) if r[0] < start), None)))
        hit = set(fault.brokers)
        held = [r for r in readings if r[0] >= start and (end is None or r[0] < end) and not (hit & set(r[1].active))]
        phases.append(("while the fault held", held[-1] if held else None))
    measured, details, ok = [], [], True
    broken, spread, by_broker, unread = 0, 0, 0, 0
    for phase, reading in phases:
        if reading is None:
            ok, unread = False, unread + 1
            measured.append(f"{phase}: no reading")
            continue
        placement = reading[1]
        problems = placement.spread_problems()
        broken, spread = broken + len(problems), max(spread, domain_spread(placement))
        by_broker = max(by_broker, broker_spread(placement))
        ok = ok and not problems
        measured.append(f"{phase}: {_summary(placement)}" + (f" ({'; '.join(problems)})" if problems else ""))
        details.append(f"{phase}:\n{placement.describe()}")
    figures = {"rule_breaks": broken, DOMAIN_SPREAD: spread, BROKER_SPREAD: by_broker}
    evidence = ok or broken > 0  # a phase without a reading, and nothing else wrong, is missing evidence
    text = " | ".join(measured)
    return CheckResult("placement", ok, expected, text, "\n".join(details), figures=figures, evidence=evidence)


def fault_windows(
    recorded: Mapping[int, tuple[int | None, int | None]], brokers: Mapping[int, tuple[str, ...]]
) -> dict[int, FaultWindow]:
    """Fault index -> its recorded times and the brokers it hit."""
    return {i: FaultWindow(start, end, tuple(brokers.get(i, ()))) for i, (start, end) in recorded.items()}


def _window(context: CheckContext, index: int) -> FaultWindow:
    recorded = context.faults.get(index, RecordedFault())
    return FaultWindow(recorded.started_ns, recorded.ended_ns, tuple(context.hit.get(index, ())))


@checker("reassigned")
def check_reassigned(expectation: ReassignedExpectation, context: CheckContext) -> CheckResult:
    """reassigned: the workload's topics served by a broker the fault did not hit, within the window."""
    spec = expectation.reassigned
    return judge_reassigned(spec, context.events, _window(context, spec.fault))


@checker("placement")
def check_placement(expectation: PlacementExpectation, context: CheckContext) -> CheckResult:
    """placement: the anti-affinity group spread over the failure domains, before and during the first broker
    fault (the first fault of any kind when there is no broker fault)."""
    scenario = context.scenario
    spec = expectation.placement
    cluster = scenario.placement_cluster(spec) or ""
    broker_faults = [i for i, f in enumerate(scenario.faults) if f.facts.on_brokers]
    first = broker_faults[0] if broker_faults else (0 if scenario.faults else None)
    return judge_placement(spec, cluster, context.events, None if first is None else _window(context, first))
