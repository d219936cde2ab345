"""The verdict of one expectation of a scenario."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    expected: str
    measured: str
    details: str = ""
