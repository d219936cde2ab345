"""The rule that each fault fits its scenario: it ends before the workload does, its provider is the one it needs,
and what its own kind checks (``problems``: PIP-188's migrations have brokers that check for them, PIP-7's broker
faults name brokers and domains that exist, an unload names a topic of the workload)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_pulsar_ha.scenario.base import _EPSILON, Loc, _seconds

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
        problems += [(("faults", index, *loc), message) for loc, message in fault.problems(scenario)]
    return problems
