"""A cluster's wall clock, which a fault can move: every process of the cluster, and the harness's components
that run beside it (the reference synchronizer), read the time through it. It is a capability of the cluster
handle (:attr:`pytest_pulsar_ha.runtime.cluster.Cluster.clock`): a fault moves it there, and heals it there.

On the embedded and docker backends each Java process of a cluster starts with libfaketime preloaded
(``LD_PRELOAD``, Debian's ``libfaketime``) and reads its offset from the cluster's ``clock-offset`` file
(``+0`` until a fault rewrites it; re-read at most once a second). Only the wall clock moves:
``System.currentTimeMillis()``, the brokers' log stamps, Jetty's ``Date`` header and PIP-136's origin times; the
monotonic clock (``System.nanoTime()``, timeouts, sleeps) is the host's. Measured here on Pulsar's JVM:
``Thread.sleep(1000)`` takes 1.000 s under the preload, ``currentTimeMillis`` 54 ns against 23 ns without it.

Where the library is missing (a machine without ``libfaketime``), processes start without it and
:meth:`ClusterClock.why_not_controlled` says why; a fault that moves the clock then refuses to run.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

FAKETIME_LIBRARIES = (
    Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
    Path("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
    Path("/usr/lib/faketime/libfaketime.so.1"),
    Path("/usr/local/lib/faketime/libfaketime.so.1"),
)
"""Where Debian (amd64, arm64) and a source build put libfaketime; the first that exists is preloaded."""
LIBRARY_ENV = "PULSAR_HA_FAKETIME_LIB"
"""Names the library where it lies elsewhere."""
OFFSET_FILE = "clock-offset"


def faketime_library() -> Path | None:
    """The libfaketime to preload: ``$PULSAR_HA_FAKETIME_LIB``, else the first of :data:`FAKETIME_LIBRARIES`, else
    the ``libfaketime`` wheel's (``pulsar-ha provision`` installs it where the system has none)."""
    named = os.environ.get(LIBRARY_ENV)
    if named:
        return Path(named) if Path(named).is_file() else None
    system = next((p for p in FAKETIME_LIBRARIES if p.is_file()), None)
    if system is not None:
        return system
    from pytest_pulsar_ha.provisioning.pip_tools import pip_libfaketime

    return pip_libfaketime(lambda _: None, install=False)  # the libfaketime wheel's, where provisioning installed it


def offset_text(seconds: float) -> str:
    """libfaketime's relative offset, e.g. ``+30.000000`` or ``-1.500000``."""
    return f"{seconds:+.6f}"


def parse_offset(text: str) -> float:
    """Seconds from an offset file's text (``+30``, ``-1.5``, ``+30.000000``); 0 for an empty file."""
    text = text.strip()
    if not text:
        return 0.0
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"a clock offset is a signed number of seconds (e.g. +30), found {text!r}") from None


class ClusterClock:
    """The wall clock of the cluster whose work directory is ``cluster_dir``."""

    def __init__(self, cluster_dir: Path) -> None:
        self.file = cluster_dir / OFFSET_FILE
        self.library = faketime_library()

    @property
    def controlled(self) -> bool:
        """Whether the cluster's processes read their time through :attr:`file` (libfaketime is preloaded)."""
        return self.library is not None

    def why_not_controlled(self) -> str:
        return (
            f"libfaketime was not found ({', '.join(str(p) for p in FAKETIME_LIBRARIES[:2])}, or ${LIBRARY_ENV}), "
            "so the cluster's processes run on the host's clock: apt-get install libfaketime (make setup and "
            ".ci/run do), then start the clusters again"
        )

    def offset_s(self) -> float:
        """The offset the cluster's clock runs at now (0 when no fault moved it)."""
        try:
            return parse_offset(self.file.read_text())
        except FileNotFoundError:
            return 0.0

    def set_offset(self, seconds: float) -> None:
        """Move the cluster's clock to ``seconds`` from the host's (its processes follow within a second)."""
        self.file.parent.mkdir(parents=True, exist_ok=True)
        partial = self.file.with_suffix(".partial")
        partial.write_text(offset_text(seconds) + "\n")
        partial.replace(self.file)  # a process never reads half a file

    def heal(self) -> None:
        """Back on the host's time (the offset file is rewritten only where a fault moved it)."""
        if self.offset_s() != 0.0:
            self.set_offset(0.0)

    def now_ms(self) -> int:
        """The cluster's wall clock in milliseconds since the epoch (what its brokers' currentTimeMillis says)."""
        return time.time_ns() // 1_000_000 + round(self.offset_s() * 1000)

    def env(self) -> dict[str, str]:
        """The variables that make a process read this clock (none where libfaketime is missing)."""
        if self.library is None:
            return {}
        if not self.file.exists():
            self.set_offset(0.0)
        return {
            "LD_PRELOAD": str(self.library),
            "FAKETIME_TIMESTAMP_FILE": str(self.file),
            "FAKETIME_CACHE_DURATION": "1",
            # Only the wall clock moves: timeouts, sleeps and the JVM's nanoTime keep the host's pace. Without the
            # second variable libfaketime's pthread_cond_timedwait fix made Thread.sleep(1000) last 1.24-1.32 s.
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "FAKETIME_FORCE_MONOTONIC_FIX": "0",
        }


def served_offset_s(web_url: str, timeout: float = 5.0) -> float:
    """How far ahead of the host a broker's wall clock runs, read from the ``Date`` header of its HTTP answer
    (Jetty stamps it from ``currentTimeMillis``): an observable effect of the clock, to the second. Any answer
    does (401 on a cluster with auth too)."""
    import email.utils
    import urllib.error
    import urllib.request

    before = time.time()
    try:
        with urllib.request.urlopen(f"{web_url}/admin/v2/brokers/health", timeout=timeout) as answer:
            date = answer.headers.get("Date")
    except urllib.error.HTTPError as refused:
        date = refused.headers.get("Date")
    after = time.time()
    if not date:
        raise ValueError(f"{web_url} answered without a Date header")
    served = email.utils.parsedate_to_datetime(date).timestamp()
    return served + 0.5 - (before + after) / 2  # the header drops the fraction of its second: take its middle
