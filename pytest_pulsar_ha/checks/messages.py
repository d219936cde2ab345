"""The message-level checks (no_loss, ordering, max_duplicates): decided by the Spark job over the history file
(:mod:`spark_checks`), loaded once per run and shared by the three; here only their verdicts are put in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_pulsar_ha.checks.registry import CheckContext, checker
from pytest_pulsar_ha.checks.result import CheckResult, no_evidence
from pytest_pulsar_ha.scenario.expectations import MaxDuplicatesExpectation, NoLossExpectation, OrderingExpectation


def numbers(counts: Mapping[str, Any]) -> dict[str, float]:
    """The numeric figures of a Spark verdict's counts (a text or a missing figure is left out)."""
    return {k: v for k, v in counts.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def _result(
    kind: str, expected: str, context: CheckContext, run: Any, window: tuple[float, float] | None = None
) -> CheckResult:
    history = context.spark_history()
    if isinstance(history, str):  # no usable history: no evidence
        return no_evidence(kind, expected, history)
    verdict = run(history)
    figures = ", ".join(f"{k}={v}" for k, v in verdict.counts.items())
    measured = f"{verdict.reason}; {figures}" if verdict.reason else figures
    return CheckResult(
        kind,
        verdict.ok,
        expected,
        measured,
        verdict.describe(),
        figures=numbers(verdict.counts),
        window=window,
        evidence=not verdict.reason,  # the Spark job's reason is the evidence that is missing
    )


@checker("no_loss")
def judge_no_loss(expectation: NoLossExpectation, context: CheckContext) -> CheckResult:
    """Every acknowledged send received on every subscription."""
    from spark_checks.checks import check_lost

    expected = "every acknowledged send received on every subscription"
    return _result(expectation.kind, expected, context, check_lost, (0, 0))


@checker("ordering")
def judge_ordering(expectation: OrderingExpectation, context: CheckContext) -> CheckResult:
    """No reorder in the chosen scope among messages acknowledged by one cluster."""
    from spark_checks.checks import check_ordering

    per = expectation.ordering.per
    expected = f"no reorder per {per} among messages acked by one cluster"
    return _result(expectation.kind, expected, context, lambda h: check_ordering(h, scopes=(per,)), (0, 0))


@checker("max_duplicates")
def judge_max_duplicates(expectation: MaxDuplicatesExpectation, context: CheckContext) -> CheckResult:
    """At most the bound of duplicate deliveries."""
    from spark_checks.checks import check_duplicates

    bound = expectation.max_duplicates
    expected = f"at most {bound} duplicate deliveries"
    judge = lambda h: check_duplicates(h, max_duplicates=bound)  # noqa: E731
    return _result(expectation.kind, expected, context, judge, (0, bound))
