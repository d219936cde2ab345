"""What every expectation kind shares: its YAML key (``kind``), its facts, the clusters it names; and
:func:`kinds_in`, which finds the kinds a family module declares, and :func:`expectation_key`, the union's
discriminator."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any, ClassVar, Literal

from pydantic import model_validator

from pytest_pulsar_ha.scenario.base import ClusterName, Count, Loc, Window, _check_window, _Model, _raise_problems
from pytest_pulsar_ha.scenario.facts import ExpectationFacts


class _WindowSpec(_Model):
    """The first send acknowledged by a cluster within a time window, measured from a fault's start or end."""

    to: ClusterName
    """The cluster whose first acknowledged send is measured."""
    within: Window
    """`[earliest, latest]`: when the first send acknowledged by `to` must happen."""
    of: Literal["fault_start", "fault_end"] = "fault_start"
    """What the window is measured from."""
    fault: Count = 0
    """Index of the fault in `faults` (default: the first)."""

    @model_validator(mode="after")
    def _check(self) -> _WindowSpec:
        _raise_problems(_check_window(self.within))
        return self


class _Expectation(_Model):
    kind: ClassVar[str]
    facts: ClassVar[ExpectationFacts]
    """What the harness needs to know of the kind (:mod:`~pytest_pulsar_ha.scenario.facts`)."""

    def cluster_refs(self) -> Iterator[tuple[Loc, str]]:
        """Every cluster this expectation names, with where (below its item in ``expect``)."""
        yield from ()


def expectation_key(value: Any) -> str | None:
    """The discriminator of an expectation: its single key (None when it has none or several)."""
    if isinstance(value, dict):
        return next(iter(value)) if len(value) == 1 else None
    if isinstance(value, _Expectation):
        return value.kind
    return None


def kinds_in(*families: ModuleType) -> tuple[type[_Expectation], ...]:
    """The expectation kinds each family module declares, in the order of the modules and of their classes."""
    return tuple(
        cls
        for family in families
        for cls in vars(family).values()
        if isinstance(cls, type)
        and issubclass(cls, _Expectation)
        and cls.__module__ == family.__name__
        and "kind" in vars(cls)
    )
