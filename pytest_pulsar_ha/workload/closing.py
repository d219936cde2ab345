"""Closing client handles without hanging the run: the Pulsar client's ``close()`` can block forever (seen with
pulsar-client 3.13 after a PIP-188 redirect was refused: the consumer never reconnected and its ``close()`` never
returned). Each close runs in a daemon thread and is abandoned after a timeout; what hung is reported."""

from __future__ import annotations

import threading
from collections.abc import Callable

CLOSE_TIMEOUT_S = 15.0


def close_within(close: Callable[[], object], what: str, timeout_s: float = CLOSE_TIMEOUT_S) -> str | None:
    """Call ``close`` and wait at most ``timeout_s``; None when it returned (errors it raised are ignored: the
    handle is gone either way), else a sentence saying ``what`` hung."""
    done = threading.Event()

    def run() -> None:
        try:
            close()
        except Exception:  # a close that fails has still released what it could
            pass
        finally:
            done.set()

    threading.Thread(target=run, name=f"close {what}", daemon=True).start()
    if done.wait(timeout_s):
        return None
    return f"{what}: close() did not return within {timeout_s:g}s (abandoned; the client is stuck)"
