"""What must hold (``expect:``): a union discriminated by each item's single key, grouped by family in the modules
of this package as :mod:`pytest_pulsar_ha.checks` groups their checkers; each kind carries its facts
(:class:`~pytest_pulsar_ha.scenario.facts.ExpectationFacts`). The rules are in
:mod:`~pytest_pulsar_ha.scenario.expectation_rules`.

A kind is its class in a family module: the union below is assembled from the family modules by iteration, in
their order and their classes' order, each member tagged with its kind."""

from __future__ import annotations

import operator
from functools import reduce
from typing import TYPE_CHECKING, Annotated, TypeAlias, get_args

from pydantic import Discriminator, Tag

from pytest_pulsar_ha.scenario.base import _members
from pytest_pulsar_ha.scenario.expectations import messages, metadata, migration, placement, timing
from pytest_pulsar_ha.scenario.expectations.base import _Expectation as _Expectation
from pytest_pulsar_ha.scenario.expectations.base import expectation_key, kinds_in
from pytest_pulsar_ha.scenario.expectations.messages import *  # noqa: F403
from pytest_pulsar_ha.scenario.expectations.metadata import *  # noqa: F403
from pytest_pulsar_ha.scenario.expectations.migration import *  # noqa: F403
from pytest_pulsar_ha.scenario.expectations.placement import *  # noqa: F403
from pytest_pulsar_ha.scenario.expectations.timing import *  # noqa: F403

EXPECTATION_FAMILIES = (timing, messages, placement, migration, metadata)
"""The family modules, in the order their kinds take in the union (and so in the schema and the reference)."""

if TYPE_CHECKING:
    Expectation: TypeAlias = _Expectation
else:
    Expectation = Annotated[
        reduce(operator.or_, [Annotated[cls, Tag(cls.kind)] for cls in kinds_in(*EXPECTATION_FAMILIES)]),
        Discriminator(expectation_key),
    ]


# The kinds, derived from the union (the one place each kind is declared), in its order.
EXPECTATION_KINDS: tuple[str, ...] = tuple(str(get_args(m)[1].tag) for m in _members(Expectation))
EXPECTATION_CLASSES: dict[str, type[_Expectation]] = {
    str(get_args(m)[1].tag): get_args(m)[0] for m in _members(Expectation)
}
"""Expectation kind (its YAML key) -> its class (and so its ``facts``)."""

__all__ = [
    "EXPECTATION_CLASSES",
    "EXPECTATION_FAMILIES",
    "EXPECTATION_KINDS",
    "Expectation",
]
__all__ += messages.__all__
__all__ += metadata.__all__
__all__ += migration.__all__
__all__ += placement.__all__
__all__ += timing.__all__
