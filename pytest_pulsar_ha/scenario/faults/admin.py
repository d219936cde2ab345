"""An operator's calls on the admin API: a migration of the workload to another cluster (PIP-188)."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Strict

from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _Timed
from pytest_pulsar_ha.scenario.faults.links import _FromTo

__all__ = ["MIGRATION_CHECK_SETTING", "MigrateFault"]

#: The broker setting blue needs for a migration (Pulsar's default, 0, never runs the migration check).
MIGRATION_CHECK_SETTING = "clusterMigrationCheckDurationSeconds"


class _Migration(_FromTo):
    scope: Literal["namespaces", "cluster"] = "namespaces"
    """`namespaces`: the workload's namespaces only; `cluster`: every namespace of `from` (other tests' too)."""


class MigrateFault(_Timed, _Migration):
    """An operator migrates the workload from one cluster to another (PIP-188 blue-green): blue closes the
    workload's topics to writes, redirects their producers to `to`, and their consumers once they have drained
    blue's backlog. The migration is not undone at a set time: it is rolled back when the scenario ends."""

    kind: Literal["migrate"]
    facts = FaultFacts("harness", instant=True, proposal="PIP-188")
    wording: ClassVar[dict[str, str]] = {
        "from_": 'The cluster clients leave ("blue"); it needs `clusterMigrationCheckDurationSeconds` > 0 in\n'
        "topology.broker_settings.",
        "to": 'The cluster clients are redirected to ("green").',
        "at": "When the operator starts the migration, from the start of the workload.",
    }
    prepare: Annotated[bool, Strict()] = True
    """Create the workload's subscriptions on `to` before the workload starts (at its earliest position), as
    `pulsar-ha migrate prepare` does; false shows what happens when an operator skips it."""
