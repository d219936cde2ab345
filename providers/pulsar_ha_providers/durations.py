"""Durations as seconds: accepts numbers (seconds), ``timedelta`` and strings such as ``500ms``, ``3s``, ``1m``."""

from __future__ import annotations

import re
from datetime import timedelta

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$")

Duration = float | int | timedelta | str


def seconds(value: Duration, name: str = "duration") -> float:
    if isinstance(value, timedelta):
        result = value.total_seconds()
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        result = float(value)
    elif isinstance(value, str) and (match := _PATTERN.match(value)):
        result = float(match.group(1)) * _UNITS[match.group(2)]
    else:
        raise ValueError(f"{name}={value!r} is not a duration: use seconds, a timedelta, or '500ms', '3s', '1m'")
    if result < 0:
        raise ValueError(f"{name}={value!r} must not be negative")
    return result
