"""When clients switch and come back (PIP-121), and how many sends are acknowledged in time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, ClassVar

from pydantic import Field, Strict, model_validator

from pytest_pulsar_ha.scenario.base import (
    ClusterName,
    Count,
    Loc,
    PositiveDuration,
    TrueFlag,
    Window,
    _check_window,
    _Model,
    _raise_problems,
)
from pytest_pulsar_ha.scenario.expectations.base import _Expectation, _WindowSpec
from pytest_pulsar_ha.scenario.facts import ExpectationFacts

__all__ = [
    "AvailabilityExpectation",
    "AvailabilitySpec",
    "NoSwitchExpectation",
    "SwitchBackExpectation",
    "SwitchBackSpec",
    "SwitchExpectation",
    "SwitchSpec",
]


class SwitchSpec(_WindowSpec):
    """Clients switch to a cluster within a time window, measured from a fault's start or end."""


class SwitchBackSpec(_Model):
    """Clients come back to a cluster within a time window, measured from a fault's end."""

    to: ClusterName
    """The cluster the clients must come back to (normally the primary)."""
    within: Window
    """`[earliest, latest]` after the fault's end."""
    fault: Count = 0
    """Index of the fault in `faults` (default: the first)."""
    cold: Annotated[bool, Strict()] = False
    """Clients meet the cold cluster: the end of a fault that leaves its cluster recovering (a kill, a pause, a
    hang) is not quiet (clients are not kept off it while it restarts or thaws), and the window counts from the
    moment the fault is undone. Pulsar's recovery time is then in the window, which is written, not derived."""

    @model_validator(mode="after")
    def _check(self) -> SwitchBackSpec:
        _raise_problems(_check_window(self.within))
        return self


class AvailabilitySpec(_Model):
    """Enough sends are acknowledged in time, over the whole workload."""

    min_ratio: Annotated[float, Strict(), Field(ge=0, le=1)]
    """The smallest acceptable share of sends acknowledged within `ack_within` (0 to 1)."""
    ack_within: PositiveDuration
    """A send counts as available when it is acknowledged within this time."""


class SwitchExpectation(_Expectation):
    """Clients switch to a cluster in time."""

    kind: ClassVar[str] = "switch"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-121", needs_provider=True, window=True)
    switch: SwitchSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("switch", "to"), self.switch.to


class SwitchBackExpectation(_Expectation):
    """Clients come back in time after the fault's end."""

    kind: ClassVar[str] = "switch_back"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-121", needs_provider=True, window=True)
    switch_back: SwitchBackSpec

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        yield ("switch_back", "to"), self.switch_back.to


class NoSwitchExpectation(_Expectation):
    """Clients never leave the cluster they started on."""

    kind: ClassVar[str] = "no_switch"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts("PIP-121", needs_provider=True)
    no_switch: TrueFlag


class AvailabilityExpectation(_Expectation):
    """Enough sends are acknowledged in time."""

    kind: ClassVar[str] = "availability"
    facts: ClassVar[ExpectationFacts] = ExpectationFacts(None)
    availability: AvailabilitySpec
