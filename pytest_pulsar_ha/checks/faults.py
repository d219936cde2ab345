"""The faults of a run as its history recorded them: the label the nemesis writes on each fault's events, and
the ``fault_start`` / ``fault_end`` times read back from the history (never the nemesis' own clock)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_pulsar_ha.history import FAULT_END, FAULT_START, Event
from pytest_pulsar_ha.scenario.model import Scenario


@dataclass(frozen=True)
class RecordedFault:
    """One fault as the history recorded it: its ``fault_start`` and ``fault_end`` times (None: no such event)."""

    started_ns: int | None = None
    ended_ns: int | None = None


def recorded_faults(events: Sequence[Event], scenario: Scenario) -> dict[int, RecordedFault]:
    """Fault index -> its times, read from the history's ``fault_start``/``fault_end`` events (sorted by time).

    The nemesis writes a fault's label (its ``label``) as the ``detail`` of both its events; the first start
    counts, and the first end after it. Times the nemesis merely planned (or an end it made up for an instant
    fault) play no part: the history and the scenario are all this reads.
    """
    index_of = {fault.label(index): index for index, fault in enumerate(scenario.faults)}
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    for event in events:
        index = index_of.get(event.detail or "")
        if index is None:
            continue
        if event.type == FAULT_START:
            starts.setdefault(index, event.ts_ns)
        elif event.type == FAULT_END and index in starts and event.ts_ns >= starts[index]:
            ends.setdefault(index, event.ts_ns)
    return {index: RecordedFault(starts.get(index), ends.get(index)) for index in index_of.values()}
