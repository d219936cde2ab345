"""A timing verdict's window read from its words: ``first ack by cluster-b within [2200ms, 2700ms] of fault #0
start`` measured ``2.35s`` is (2.2, 2.7, 2.35); the run page draws it on its target's lane and the expectation
rows as a gauge (:mod:`~pytest_pulsar_ha.report.gauges`)."""

from __future__ import annotations

import re

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.scenario.quantities import Duration

WITHIN = re.compile(r"within \[([^,\]]+), ([^\]]+)\]")
SECONDS = re.compile(r"^(-?\d+(?:\.\d+)?)s$")


def window_of(check: CheckResult) -> tuple[float, float, float] | None:
    """(low, high, measured) in seconds for a window verdict with a measured time; None for any other verdict."""
    window, measured = WITHIN.search(check.expected), SECONDS.match(check.measured.strip())
    if window is None or measured is None:
        return None
    try:
        low, high = Duration(window.group(1).strip()).seconds, Duration(window.group(2).strip()).seconds
    except ValueError:
        return None
    return low, high, float(measured.group(1))
