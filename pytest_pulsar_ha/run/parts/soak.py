"""A scenario run as a soak (``soak:``): the history streamed to a directory of Parquet files in bounded memory,
and the process's memory sampled throughout as evidence that it stays bounded."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_pulsar_ha.history import FAULT_END, FAULT_START, SWITCH, SWITCH_FAILED, UNDO_START, Event, EventLog
from pytest_pulsar_ha.history.segments import ParquetSegments
from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.scenario.modes import Soak

STEERING_TYPES = frozenset({FAULT_START, UNDO_START, FAULT_END, SWITCH, SWITCH_FAILED})
"""The events a soak keeps in memory: what its fault windows and timeline are drawn from (a few per fault)."""

HISTORY_DIR = "history"


def soak_log(evidence_dir: Path, soak: Soak) -> tuple[EventLog, ParquetSegments]:
    """A log that streams every event to ``evidence_dir/history/`` and keeps only the steering events."""
    target = evidence_dir / HISTORY_DIR
    if target.exists():  # this test's own evidence from an earlier run: a history is never appended to another
        shutil.rmtree(target)
    segments = ParquetSegments(target, rows_per_file=soak.row_group_rows)
    return EventLog(journal=segments, retain=retained), segments


def retained(event: Event) -> bool:
    return event.type in STEERING_TYPES


def resident_mib() -> float:
    """This process's resident memory (Linux ``/proc/self/status``), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")  # pragma: no cover - Linux only


@dataclass
class MemorySampler:
    """Samples the resident memory every ``every_s`` (one sample per interval: a few hundred over hours)."""

    every_s: float = 30.0
    read: Callable[[], float] = resident_mib
    samples: list[tuple[float, float]] = field(default_factory=list)
    """(seconds since start, MiB)"""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        origin = time.monotonic()

        def loop() -> None:
            while True:
                self.samples.append((time.monotonic() - origin, self.read()))
                if self._stop.wait(self.every_s):
                    return

        self._thread = threading.Thread(target=loop, name="soak-memory", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def summary(self) -> str:
        """First, peak and last sample, and the growth from the first minute's peak to the last minute's."""
        if not self.samples:
            return "no sample"
        values = [mib for _, mib in self.samples]
        first, last = self.samples[0], self.samples[-1]
        return (
            f"resident memory {first[1]:.0f} MiB at {first[0]:.0f}s, peak {max(values):.0f} MiB, "
            f"{last[1]:.0f} MiB at {last[0]:.0f}s ({len(values)} samples every {self.every_s:g}s)"
        )


def soak_facts(log: EventLog, segments: ParquetSegments, sampler: MemorySampler, drain_held: int) -> dict[str, str]:
    return {
        "soak history": (
            f"{log.count} events streamed to {segments.files} Parquet files "
            f"(at most {segments.rows_per_file} in memory; {len(log.events)} steering events kept)"
        ),
        "soak memory": sampler.summary(),
        "soak drain": f"{drain_held} sequence numbers held at the end (acknowledged sends in flight)",
    }


class SoakSampler(Part):
    """A soak's evidence that memory stays bounded: the resident memory sampled throughout."""

    def __init__(self) -> None:
        self.sampler = MemorySampler()

    @classmethod
    def of(cls, ctx: RunContext) -> SoakSampler | None:
        return cls() if ctx.scenario.soak is not None else None

    def prepare(self, ctx: RunContext) -> None:
        ctx.sampler = self.sampler
        self.sampler.start()

    def close(self, ctx: RunContext) -> None:
        self.sampler.stop()
