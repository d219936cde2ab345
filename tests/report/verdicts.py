"""Verdicts as the checks give them (their words and their data), for the report tests."""

from __future__ import annotations

from pytest_pulsar_ha.checks.result import CheckResult


def window_verdict(
    name: str, ok: bool, to: str, low: float, high: float, seconds: float, of: str = "start", details: str = ""
) -> CheckResult:
    """A switch / switch_back verdict: first ack by ``to`` at ``seconds`` after fault #0's ``of``."""
    expected = f"first ack by {to} within [{low * 1000:g}ms, {high * 1000:g}ms] of fault #0 {of}"
    figures = {"seconds": seconds, "target_acks": 10.0}
    return CheckResult(name, ok, expected, f"{seconds:.2f}s", details, figures, (low, high), measured_from=(to, 0, of))


def figures_verdict(name: str, ok: bool, expected: str, figures: dict[str, float], bound: float = 0) -> CheckResult:
    """A verdict bounded by its first figure (``lost``, ``reorders``, ``duplicates``), said as ``name=value``."""
    measured = ", ".join(f"{k}={v:g}" for k, v in figures.items())
    return CheckResult(name, ok, expected, measured, "", figures, (0, bound))
