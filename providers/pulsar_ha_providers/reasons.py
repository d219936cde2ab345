"""One-line reasons for events and logs: an error's type and message, whitespace folded, length bounded."""

from __future__ import annotations

MAX_REASON = 300


def one_line(exc: BaseException) -> str:
    """``TypeName: message`` on one line (newlines folded), at most ``MAX_REASON`` characters."""
    text = " ".join(str(exc).split())
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 3] + "..."
