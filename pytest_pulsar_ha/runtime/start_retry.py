"""One more try for an environment whose start failed on a port another program took.

Ports are chosen free and handed out once (:mod:`pytest_pulsar_ha.process.ports`), but between the choice and
the broker's bind another program on the machine may still take one. That is the machine, not Pulsar: the
environment is stopped (its ``start`` cleans up after itself), started again on new ports, and the retry is
said on stderr. Any other start-up failure is reported at once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

from pytest_pulsar_ha.errors import StartupError

T = TypeVar("T")

PORT_CLASH = "Address already in use"


def is_port_clash(error: StartupError) -> bool:
    return PORT_CLASH in str(error)


def start_with_retry(start: Callable[[], T], *, attempts: int = 2, say: Callable[[str], None] | None = None) -> T:
    """``start()``, again (up to ``attempts`` in all) only when it failed on a port clash."""
    say = say or (lambda message: print(f"[pulsar-ha] {message}", file=sys.stderr, flush=True))
    for attempt in range(1, attempts + 1):
        try:
            return start()
        except StartupError as error:
            if attempt == attempts or not is_port_clash(error):
                raise
            first = next((line for line in str(error).splitlines() if PORT_CLASH in line), PORT_CLASH)
            say(f"start-up hit a port another program took ({first.strip()}); starting again on new ports")
    raise AssertionError("unreachable")  # pragma: no cover
