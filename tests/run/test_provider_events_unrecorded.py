"""A provider event the history could not take is a problem in the verdict, not a log line only (#26)."""

from __future__ import annotations

from pulsar_ha_providers import EventHub, SwitchEvent
from pytest_pulsar_ha.history import EventLog
from pytest_pulsar_ha.run.parts.clients import ProviderPart
from pytest_pulsar_ha.run.provider import ProviderSetup, record_provider_events


class BrokenLog(EventLog):
    def add(self, event: object) -> None:  # type: ignore[override]
        raise OSError("disk full")


class Problems:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def problem(self, source: str, message: str) -> None:
        self.seen.append((source, message))


def test_an_event_that_cannot_be_written_is_reported_with_what_it_was() -> None:
    hub, errors = EventHub(), []
    unsubscribe = record_provider_events(
        ProviderSetup(target=None, events=hub, primary="a"), BrokenLog(), errors.append
    )
    hub.publish(SwitchEvent("a", "b", "primary down for 2.5s", ts=10.5))
    unsubscribe()
    assert errors == ["SwitchEvent at 10.5: OSError: disk full"]


def test_the_provider_part_turns_them_into_problems_of_the_run() -> None:
    part, ctx = ProviderPart(), Problems()
    part.unrecorded.append("SwitchEvent at 10.5: OSError: disk full")
    part.close(ctx)  # type: ignore[arg-type]
    assert ctx.seen == [
        ("provider", "a provider event could not be written to the history: SwitchEvent at 10.5: OSError: disk full")
    ]


def test_events_that_are_written_report_nothing() -> None:
    hub, errors, log = EventHub(), [], EventLog()
    unsubscribe = record_provider_events(ProviderSetup(target=None, events=hub, primary="a"), log, errors.append)
    hub.publish(SwitchEvent("a", "b", "primary down", ts=1.0))
    unsubscribe()
    assert errors == [] and log.count == 1
