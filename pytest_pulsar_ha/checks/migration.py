"""The PIP-188 checks, on the history alone: producers redirected within a window (the first ack by the target
cluster after the `migrate` entry's recorded start, or after another fault's end), and consumers redirected only
once they have drained blue (every subscription received all that blue acknowledged before its first message
delivered by green; the delivering cluster of a receive is read from the brokers' storage, never guessed)."""

from __future__ import annotations

from pytest_pulsar_ha.checks.registry import CheckContext, checker
from pytest_pulsar_ha.checks.result import CheckResult, no_evidence
from pytest_pulsar_ha.checks.timing import window_check
from pytest_pulsar_ha.history import ACK, RECEIVE
from pytest_pulsar_ha.scenario.expectations import DrainedBeforeRedirectExpectation, ProducersRedirectedExpectation

MAX_EXAMPLES = 3
REDIRECTED = "subscriptions_redirected"
"""drained_before_redirect's figures: the subscriptions that received a message from green, blue's messages
received after that (late) and those never received (a subscription never redirected counts one)"""
LATE = "late"
NEVER = "never"


@checker("producers_redirected")
def judge_redirect(expectation: ProducersRedirectedExpectation, context: CheckContext) -> CheckResult:
    spec = expectation.producers_redirected
    return window_check(expectation.kind, spec.to, spec.within, spec.of, spec.fault, context)


@checker("drained_before_redirect")
def judge_drained(expectation: DrainedBeforeRedirectExpectation, context: CheckContext) -> CheckResult:
    spec = expectation.drained_before_redirect
    blue, green = spec.from_, spec.to
    kind = expectation.kind
    expected = f"every subscription receives all that {blue} acknowledged before any message delivered by {green}"
    acked_by_blue = {(e.producer, e.seq) for e in context.events if e.type == ACK and e.cluster == blue}
    first_receipt: dict[str, dict[tuple[str | None, int | None], int]] = {}
    first_green: dict[str, int] = {}
    for event in context.events:
        if event.type != RECEIVE or event.subscription is None:
            continue
        first_receipt.setdefault(event.subscription, {}).setdefault((event.producer, event.seq), event.ts_ns)
        if event.cluster == green:
            first_green.setdefault(event.subscription, event.ts_ns)
    if not acked_by_blue:
        return no_evidence(kind, expected, f"no send was acknowledged by {blue}: nothing to drain, no evidence")
    if not first_green:
        measured = f"no message was delivered by {green}: the consumers were never redirected"
        return CheckResult(kind, False, expected, measured, figures={REDIRECTED: 0, LATE: 0, NEVER: 0})
    parts, ok = [], True
    late_total, never_total = 0, 0
    for subscription in sorted(first_receipt):
        receipts = first_receipt[subscription]
        redirected = first_green.get(subscription)
        if redirected is None:
            ok, never_total = False, never_total + 1
            parts.append(f"{subscription}: never received a message from {green}")
            continue
        late = sorted(
            (receipts[m] - redirected, m) for m in acked_by_blue if m in receipts and receipts[m] > redirected
        )
        never = sorted((str(p), s or 0) for p, s in acked_by_blue if (p, s) not in receipts)
        drained = [receipts[m] for m in acked_by_blue if m in receipts and receipts[m] <= redirected]
        late_total, never_total = late_total + len(late), never_total + len(never)
        if late or never:
            ok = False
            text = f"{subscription}: {len(late)} of {blue}'s messages received after the first from {green}"
            if late:
                examples = ", ".join(f"{p}/{s} +{gap / 1e9:.2f}s" for gap, (p, s) in late[-MAX_EXAMPLES:])
                text += f" (e.g. {examples})"
            if never:
                text += f", {len(never)} never received (e.g. {', '.join(f'{p}/{s}' for p, s in never[:MAX_EXAMPLES])})"
            parts.append(text)
        else:
            gap = (redirected - max(drained)) / 1e9 if drained else 0.0
            parts.append(
                f"{subscription}: {len(drained)} from {blue}, the last {gap:.2f}s before the first from {green}"
            )
    figures = {REDIRECTED: len(first_green), LATE: late_total, NEVER: never_total}
    return CheckResult(kind, ok, expected, "; ".join(parts), figures=figures, window=(0, 0))
