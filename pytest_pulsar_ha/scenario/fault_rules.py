"""The rule that each fault fits its scenario: it ends before the workload does, its provider is the one it needs,
PIP-188's migrations have brokers that check for them, PIP-7's broker faults name brokers and domains that exist."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_pulsar_ha.scenario.base import _EPSILON, Loc, _seconds
from pytest_pulsar_ha.scenario.faults import (
    MIGRATION_CHECK_SETTING,
    BrokerKillFault,
    BrokerPauseFault,
    DomainOutageFault,
    MigrateFault,
)

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario


def check_faults(scenario: Scenario) -> list[tuple[Loc, str]]:
    problems: list[tuple[Loc, str]] = []
    total = scenario.workload.duration
    for index, fault in enumerate(scenario.faults):
        end = fault.end
        if end is not None and end > total.seconds + _EPSILON:
            for_ = getattr(fault, "for_", None)
            problems.append(
                (
                    ("faults", index, "for"),
                    f"the fault ends at {_seconds(end)} (at {fault.at} + for {for_}), after the end of the "
                    f"workload (workload.duration {total}); shorten the fault or lengthen the workload",
                )
            )
        elif end is None and fault.start >= total.seconds:
            problems.append(
                (
                    ("faults", index, "at"),
                    f"the fault happens at {fault.at}, not before the end of the workload (workload.duration {total})",
                )
            )
        needs = fault.facts.needs_provider
        if needs is not None and scenario.provider.kind != needs[0]:
            problems.append(
                (
                    ("faults", index, "kind"),
                    f"{fault.kind} needs provider kind {needs[0]} ({needs[1]}), found provider kind "
                    f"{scenario.provider.kind}",
                )
            )
        if isinstance(fault, BrokerKillFault | BrokerPauseFault | DomainOutageFault):
            problems += _check_broker_fault(scenario, fault, ("faults", index))
        if isinstance(fault, MigrateFault):
            problems += _check_migrate(scenario, fault, ("faults", index))
    return problems


def _check_migrate(scenario: Scenario, fault: MigrateFault, loc: Loc) -> list[tuple[Loc, str]]:
    value = scenario.topology.broker_settings.get(fault.from_, {}).get(MIGRATION_CHECK_SETTING)
    try:
        seconds = float(value) if value is not None and not isinstance(value, bool) else 0.0
    except ValueError:
        seconds = 0.0
    if seconds > 0:
        return []
    found = "not set (Pulsar's default 0 never runs the migration check)" if value is None else f"{value!r}"
    return [
        (
            (*loc, "from"),
            f"a migration from {fault.from_} needs its brokers to check for it: set "
            f"topology.broker_settings.{fault.from_}.{MIGRATION_CHECK_SETTING} to a number of seconds > 0 "
            f"(e.g. 1); found {found}",
        )
    ]


def _check_broker_fault(
    scenario: Scenario, fault: BrokerKillFault | BrokerPauseFault | DomainOutageFault, loc: Loc
) -> list[tuple[Loc, str]]:
    count = scenario.topology.brokers_of(fault.cluster)
    if count is None or count < 2:
        return [
            (
                (*loc, "cluster"),
                f"{fault.kind} needs a cluster of several brokers; set topology.brokers for {fault.cluster} "
                f"(found {count or 'the session default'})",
            )
        ]
    if isinstance(fault, DomainOutageFault):
        known = list(scenario.topology.failure_domains.get(fault.cluster, {}))
        if fault.domain not in known:
            listed = ", ".join(known) if known else "none (declare them in topology.failure_domains)"
            return [
                (
                    (*loc, "domain"),
                    f"unknown failure domain {fault.domain!r} of {fault.cluster}; declared: {listed}",
                )
            ]
        return []
    if fault.broker >= count:
        return [
            (
                (*loc, "broker"),
                f"broker index {fault.broker} is out of range: {fault.cluster} has {count} brokers "
                f"(indexes 0 to {count - 1})",
            )
        ]
    return []
