"""A timing verdict's window from its data: a window check (one with ``measured_from``) that measured a time gives
(low, high, measured) in seconds from its ``window`` and its ``seconds`` figure; the run page draws it on its
target's lane and the expectation rows as a gauge (:mod:`~pytest_pulsar_ha.report.gauges`)."""

from __future__ import annotations

from pytest_pulsar_ha.checks.result import SECONDS, CheckResult


def window_of(check: CheckResult) -> tuple[float, float, float] | None:
    """(low, high, measured) in seconds for a window verdict with a measured time; None for any other verdict."""
    measured = check.figures.get(SECONDS)
    if check.measured_from is None or check.window is None or measured is None:
        return None
    return float(check.window[0]), float(check.window[1]), float(measured)
