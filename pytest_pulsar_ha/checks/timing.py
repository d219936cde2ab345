"""The timing checks, on the history alone: switch and switch-back windows (each producer's first ack by the
target cluster after the recorded fault start or end: the slowest must make it), no_switch, and availability from
each send's intended time."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from pytest_pulsar_ha.checks.faults import RecordedFault
from pytest_pulsar_ha.checks.registry import CheckContext, checker
from pytest_pulsar_ha.checks.result import (
    FASTEST,
    PRODUCERS,
    PRODUCERS_REACHED,
    SECONDS,
    TARGET_ACKS,
    CheckResult,
    no_evidence,
)
from pytest_pulsar_ha.history import ACK, PROBE, SEND, SWITCH, Event
from pytest_pulsar_ha.scenario.expectations import (
    AvailabilityExpectation,
    NoSwitchExpectation,
    SwitchBackExpectation,
    SwitchBackSpec,
    SwitchExpectation,
    SwitchSpec,
)
from pytest_pulsar_ha.scenario.quantities import Duration


def _first_ack(events: Sequence[Event], cluster: str, after_ns: int) -> Event | None:
    return next((e for e in events if e.type == ACK and e.cluster == cluster and e.ts_ns >= after_ns), None)


def _fmt(seconds: float) -> str:
    return f"{seconds:.2f}s"


def producer_firsts(events: Sequence[Event], to: str, ref_ns: int) -> dict[str, float | None]:
    """For each producer that sent at or after ``ref_ns``: the seconds from it to that producer's first ack by
    ``to`` (None: ``to`` never acknowledged one of its sends)."""
    firsts: dict[str, float | None] = {}
    for event in events:
        if event.ts_ns < ref_ns or event.producer is None:
            continue
        if event.type == SEND:
            firsts.setdefault(event.producer, None)
        elif event.type == ACK and event.cluster == to and firsts.get(event.producer) is None:
            firsts[event.producer] = (event.ts_ns - ref_ns) / 1e9
    return firsts


def window_check(
    kind: str, to: str, within: tuple[Duration, Duration], of: str, fault_index: int, context: CheckContext
) -> CheckResult:
    """Every producer's first ack by ``to`` after the recorded start or end (``of``) of fault ``fault_index``,
    inside ``within``: the fastest not before its start, the slowest not after its end (each producer that sent
    after that moment must make it; the fleet's are each in one worker); used by every window expectation
    (switch, switch_back, producers_redirected)."""
    scenario, events, faults = context.scenario, context.events, context.faults
    what = of.removeprefix("fault_")
    lo, hi = within
    expected = f"first ack by {to} within [{lo}, {hi}] of fault #{fault_index} {what}"
    if fault_index >= len(scenario.faults):
        return no_evidence(kind, expected, f"the scenario has no fault #{fault_index}")
    fault = scenario.faults[fault_index]
    if of == "fault_end" and fault.end is None:
        return no_evidence(
            kind,
            expected,
            f"fault #{fault_index} ({fault.kind}) is instant: it has no end to measure from (use of: fault_start)",
        )
    recorded = faults.get(fault_index, RecordedFault())
    ref = recorded.started_ns if of == "fault_start" else recorded.ended_ns
    if ref is None:
        return no_evidence(kind, expected, f"no {of} event for fault #{fault_index} in the history: it never {what}ed")
    window = (lo.seconds, hi.seconds)
    anchor = (to, fault_index, what)
    acks = sum(1 for e in events if e.type == ACK and e.cluster == to and e.ts_ns >= ref)
    first = _first_ack(events, to, ref)
    if first is None:
        measured = f"no send acknowledged by {to} after it"
        return CheckResult(
            kind, False, expected, measured, figures={TARGET_ACKS: 0}, window=window, measured_from=anchor
        )
    firsts = producer_firsts(events, to, ref)
    reached = {name: took for name, took in firsts.items() if took is not None}
    if not reached:  # acks by the target without a send after the moment (sends issued before it)
        reached = {first.producer or "?": (first.ts_ns - ref) / 1e9}
    fastest, slowest = min(reached, key=reached.__getitem__), max(reached, key=reached.__getitem__)
    missing = sorted(name for name, took in firsts.items() if took is None)
    took = reached[slowest]
    figures = {SECONDS: took, TARGET_ACKS: acks, FASTEST: reached[fastest], PRODUCERS: len(firsts) or 1}
    figures[PRODUCERS_REACHED] = len(reached)
    ok = lo.seconds <= reached[fastest] and took <= hi.seconds and not missing
    several = len(firsts) > 1 or bool(missing)
    measured = _spread(reached, fastest, slowest, missing, to) if several else _fmt(took)
    details = _why_not(reached, fastest, missing, window, to) if several and not ok else ""
    if not ok:
        details = "\n".join(filter(None, [details, provider_account(events, to, ref, first.ts_ns)]))
    return CheckResult(kind, ok, expected, measured, details, figures=figures, window=window, measured_from=anchor)


def _spread(reached: dict[str, float], fastest: str, slowest: str, missing: list[str], to: str) -> str:
    text = f"{_fmt(reached[slowest])} (slowest {slowest}; fastest {fastest} at {_fmt(reached[fastest])}"
    text += f"; {len(reached)} of {len(reached) + len(missing)} producers reached {to})"
    return text


def _why_not(reached: dict[str, float], fastest: str, missing: list[str], window: tuple[float, float], to: str) -> str:
    """Which producers missed the window, and whether the fastest alone met it."""
    lo, hi = window
    late = sorted(name for name, took in reached.items() if took > hi)
    early = sorted(name for name, took in reached.items() if took < lo)
    lines = [f"{name} at {_fmt(reached[name])}: after the window" for name in late]
    lines += [f"{name} at {_fmt(reached[name])}: before the window" for name in early]
    lines += [f"{name}: no send of it acknowledged by {to} after the moment" for name in missing]
    if lo <= reached[fastest] <= hi and (late or missing):
        lines.insert(0, f"met only by the fastest ({fastest} at {_fmt(reached[fastest])}), not by every producer")
    return "\n".join(lines[:12]) + (f"\n... {len(lines) - 12} more" if len(lines) > 12 else "")


def provider_account(events: Sequence[Event], cluster: str, from_ns: int, until_ns: int) -> str:
    """What the provider saw of ``cluster`` between a window's reference moment and the first ack: its probes
    (failed ones grouped by error) and switches, so a late or early switch can be told from a slow client."""
    lines: list[str] = []
    failed: dict[str, list[float]] = {}
    passed: list[float] = []
    for event in events:
        if not from_ns <= event.ts_ns <= until_ns or event.process != "provider":
            continue
        at = (event.ts_ns - from_ns) / 1e9
        if event.type == SWITCH:
            lines.append(f"provider switched to {event.cluster} at +{at:.2f}s: {event.detail or ''}".rstrip(": "))
        elif event.type == PROBE and event.cluster == cluster:
            try:
                result = json.loads(event.detail or "{}")
            except ValueError:
                result = {}
            if not isinstance(result, dict):
                result = {}
            if result.get("ok"):
                passed.append(at)
            else:
                error = str(result.get("error") or "failed")[:160]
                failed.setdefault(error, []).append(at)
    if not lines and not failed and not passed:
        return "the provider recorded no probe or switch in between (it records none, or it is not ours)"
    for error, moments in failed.items():
        span = ", ".join(f"+{m:.2f}s" for m in moments[:8]) + (" ..." if len(moments) > 8 else "")
        lines.insert(0, f"{len(moments)} probe(s) of {cluster} failed at {span}: {error}")
    if passed:
        lines.insert(0, f"{len(passed)} probe(s) of {cluster} passed, the first at +{passed[0]:.2f}s")
    return "\n".join(lines)


@checker("switch")
@checker("switch_back")
def judge_window(expectation: SwitchExpectation | SwitchBackExpectation, context: CheckContext) -> CheckResult:
    """switch / switch_back: the first ack by the target cluster, measured from the recorded fault start or end."""
    if isinstance(expectation, SwitchExpectation):
        spec: SwitchSpec | SwitchBackSpec = expectation.switch
        of = expectation.switch.of
    else:
        spec, of = expectation.switch_back, "fault_end"
    result = window_check(expectation.kind, spec.to, spec.within, of, spec.fault, context)
    if result.ok:
        return result
    from pytest_pulsar_ha.checks.windows import DerivedWindow, derive_window

    window = derive_window(context.scenario, expectation)
    derivation = (
        f"the window its settings derive: {window.describe()}"
        if isinstance(window, DerivedWindow)
        else f"no window derived from its settings: {window}"
    )
    return dataclasses.replace(result, details="\n".join(filter(None, [result.details, derivation])))


@checker("no_switch")
def judge_no_switch(expectation: NoSwitchExpectation, context: CheckContext) -> CheckResult:
    """no_switch: every send acknowledged by the primary (and at least one acknowledged)."""
    events, primary = context.events, context.primary
    expected = f"every send acknowledged by {primary}"
    ackers = sorted({e.cluster or "unknown" for e in events if e.type == ACK})
    if not ackers:
        return no_evidence(
            "no_switch", expected, f"no send was acknowledged: no evidence that the clients stayed on {primary}"
        )
    elsewhere = sum(1 for e in events if e.type == ACK and e.cluster != primary)
    figures = {"acks_elsewhere": elsewhere, "ackers": len(ackers)}
    measured = f"acknowledged by {', '.join(ackers)}"
    return CheckResult("no_switch", ackers == [primary], expected, measured, figures=figures, window=(0, 0))


def _intended_ns(send: Event) -> int:
    """When a send was meant to be issued (the open-loop workload's ``intended_ns``), else when it was."""
    try:
        intended = json.loads(send.detail or "{}").get("intended_ns")
    except (ValueError, AttributeError):
        intended = None
    return intended if isinstance(intended, int) and not isinstance(intended, bool) else send.ts_ns


@checker("availability")
def judge_availability(expectation: AvailabilityExpectation, context: CheckContext) -> CheckResult:
    """The share of sends acknowledged within ``ack_within`` of their intended time (each send counted once)."""
    events = context.events
    spec = expectation.availability
    expected = f">= {spec.min_ratio:.0%} of sends acknowledged within {spec.ack_within} of their intended time"
    sent: dict[tuple[str | None, int | None], int] = {}
    for event in events:
        if event.type == SEND:
            sent.setdefault((event.producer, event.seq), _intended_ns(event))
    if not sent:
        return no_evidence(expectation.kind, expected, "no send event in the history: no evidence")
    within = spec.ack_within.seconds * 1e9
    on_time: set[tuple[str | None, int | None]] = set()
    orphans: set[tuple[str | None, int | None]] = set()
    for event in events:
        if event.type != ACK:
            continue
        message = (event.producer, event.seq)
        if message not in sent:
            orphans.add(message)
        elif event.ts_ns - sent[message] <= within:
            on_time.add(message)
    ratio = len(on_time) / len(sent)
    measured = f"{ratio:.1%} ({len(on_time)}/{len(sent)})"
    if orphans:
        measured += f"; {len(orphans)} ack(s) without a send event, not counted"
    figures = {"ratio": ratio, "on_time": len(on_time), "sends": len(sent), "orphan_acks": len(orphans)}
    ok = ratio >= spec.min_ratio
    return CheckResult(expectation.kind, ok, expected, measured, figures=figures, window=(spec.min_ratio, 1.0))
