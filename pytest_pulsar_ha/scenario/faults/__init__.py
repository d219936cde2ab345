"""What goes wrong, and when (``faults:``): the fault kinds, a union discriminated by ``kind``, grouped by family
in the modules of this package, and the rule that each fault fits its scenario
(:mod:`~pytest_pulsar_ha.scenario.fault_rules`).

A kind is its class in a family module (what it shares with other kinds comes from the bases in
:mod:`~pytest_pulsar_ha.scenario.faults.base`) and its primitive in the nemesis: the union below is assembled from
the family modules by iteration, in their order and their classes' order; nothing else lists the kinds."""

from __future__ import annotations

import operator
from functools import reduce
from typing import TYPE_CHECKING, Annotated, TypeAlias

from pydantic import Field

from pytest_pulsar_ha.scenario.base import _kind_of, _members
from pytest_pulsar_ha.scenario.faults import admin, brokers, clock, cluster, links, provider
from pytest_pulsar_ha.scenario.faults.admin import *  # noqa: F403
from pytest_pulsar_ha.scenario.faults.base import _Fault as _Fault
from pytest_pulsar_ha.scenario.faults.base import kinds_in
from pytest_pulsar_ha.scenario.faults.brokers import *  # noqa: F403
from pytest_pulsar_ha.scenario.faults.clock import *  # noqa: F403
from pytest_pulsar_ha.scenario.faults.cluster import *  # noqa: F403
from pytest_pulsar_ha.scenario.faults.links import *  # noqa: F403
from pytest_pulsar_ha.scenario.faults.provider import *  # noqa: F403

FAULT_FAMILIES = (cluster, links, provider, brokers, clock, admin)
"""The family modules, in the order their kinds take in the union (and so in the schema and the reference)."""

if TYPE_CHECKING:
    Fault: TypeAlias = _Fault
else:
    Fault = Annotated[reduce(operator.or_, kinds_in(*FAULT_FAMILIES)), Field(discriminator="kind")]

# The kinds, derived from the union (the one place each kind is declared), in its order.
FAULT_KINDS: tuple[str, ...] = tuple(_kind_of(m) for m in _members(Fault))
FAULT_CLASSES: dict[str, type[_Fault]] = {_kind_of(m): m for m in _members(Fault)}
"""Fault kind (the YAML name) -> its class (and so its ``facts``)."""

__all__ = ["FAULT_CLASSES", "FAULT_FAMILIES", "FAULT_KINDS", "Fault"]
__all__ += admin.__all__
__all__ += brokers.__all__
__all__ += clock.__all__
__all__ += cluster.__all__
__all__ += links.__all__
__all__ += provider.__all__
