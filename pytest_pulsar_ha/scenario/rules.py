"""The cross-field rules of a scenario, in the order they run: each reads several parts of a
:class:`~pytest_pulsar_ha.scenario.model.Scenario` and lives beside the types it reads. A new feature adds its rule
to its own module and one line here; the scenario's validator runs them all and reports every problem at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pytest_pulsar_ha.scenario.base import Loc
from pytest_pulsar_ha.scenario.expectation_rules import check_expectations, check_metadata
from pytest_pulsar_ha.scenario.fault_rules import check_faults
from pytest_pulsar_ha.scenario.generate import check_generate
from pytest_pulsar_ha.scenario.modes import check_expect_failure, check_soak
from pytest_pulsar_ha.scenario.providers import check_client, check_processes
from pytest_pulsar_ha.scenario.topology import check_clusters

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario

Rule = Callable[["Scenario"], list[tuple[Loc, str]]]

RULES: tuple[Rule, ...] = (
    check_clusters,
    check_faults,
    check_expectations,
    check_metadata,
    check_generate,
    check_client,
    check_processes,
    check_soak,
    check_expect_failure,
)
"""Every rule, in the order their problems are reported."""
