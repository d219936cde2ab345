"""Every mutant by name, which expectations can see it, and whether it can apply to a scenario (said before any
cluster starts)."""

from __future__ import annotations

from pytest_pulsar_ha.checks.outcome import NEVER_ACTED_FACT
from pytest_pulsar_ha.checks.result import Side
from pytest_pulsar_ha.mutants.clients import CLIENT_MUTANTS
from pytest_pulsar_ha.mutants.providers import PROVIDER_MUTANTS
from pytest_pulsar_ha.scenario.expectations import SwitchBackExpectation, SwitchExpectation
from pytest_pulsar_ha.scenario.model import Scenario

__all__ = ["FIGURE", "MUTANTS", "NEVER_ACTED_FACT", "SEEN_BY", "SIDE", "cannot_apply", "parse_mutants"]
from pytest_pulsar_ha.workload.process_count import choose_processes

MUTANTS: dict[str, str] = {
    **{name: m.models for name, m in PROVIDER_MUTANTS.items()},
    **{name: m.models for name, m in CLIENT_MUTANTS.items()},
}
"""Each mutant's name and what it models."""

SEEN_BY: dict[str, tuple[str, ...]] = {
    **{name: m.seen_by for name, m in PROVIDER_MUTANTS.items()},
    **{name: m.seen_by for name, m in CLIENT_MUTANTS.items()},
}
"""Each mutant's name and the expectation kinds able to see it: a kill counts only when one of them fails."""

FIGURE: dict[str, str] = {name: m.figure for name, m in CLIENT_MUTANTS.items()}
"""Each client mutant's name and the figure each of its acts adds one to at most: a failure that would remain
without its acts (more lost than it dropped: a flaky loss) is not its doing."""

SIDE: dict[str, Side | None] = {name: m.side for name, m in PROVIDER_MUTANTS.items()}
"""Each timing mutant's name and the side of a window it moves a switch to: a window missed only on the other
side is not its doing (a flaky early switch kills no ``late``)."""


def parse_mutants(text: str) -> list[str]:
    """``late,early`` or ``all`` as mutant names; a ValueError naming the valid ones for an unknown name."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return list(MUTANTS)
    unknown = [n for n in names if n not in MUTANTS]
    if unknown or not names:
        raise ValueError(
            f"unknown mutant {', '.join(map(repr, unknown)) or '(none given)'}; valid: all, {', '.join(MUTANTS)}"
        )
    return names


def cannot_apply(scenario: Scenario, name: str) -> str | None:
    """Why mutant ``name`` cannot apply to ``scenario`` (a reason to show), or None where it can."""
    if name not in MUTANTS:
        raise ValueError(f"unknown mutant {name!r}; valid: {', '.join(MUTANTS)}")
    if scenario.client.facts.driver:
        return "the Java client runs in the Java driver; mutants change the Python client and our providers"
    if scenario.failures_to_show:
        return "the scenario expects a failure: a mutant's kill could not be told from it"
    if "hunt" in scenario.marks:
        return "a hunt scenario is a lead about Pulsar (make hunt): its failure is a finding, not a mutant's kill"
    if scenario.soak is not None:
        return "a soak is judged on its whole history only; mutate a scenario of its kind instead"
    if any(isinstance(e, SwitchBackExpectation) and e.switch_back.cold for e in scenario.expect):
        return (
            "a cold switch-back judges Pulsar's recovery in a window written wide for it; mutants run on the same "
            "case with a quiet end, whose windows are derived"
        )
    provider = scenario.provider
    if name in PROVIDER_MUTANTS:
        mutant = PROVIDER_MUTANTS[name]
        if provider.kind != mutant.provider_kind:
            return (
                f"it changes {mutant.changes} (provider kind {mutant.provider_kind}); this provider is {provider.kind}"
            )
        return mutant.refuses(provider)
    processes = choose_processes(scenario).count
    if processes > 1:
        return (
            f"it wraps the runner's producers and consumers; this workload runs in {processes} "
            "worker processes of their own"
        )
    if not provider.facts.ours:
        return f"it acts after our provider's first switch; this provider ({provider.kind}) reports none"
    if not any(isinstance(e, SwitchExpectation | SwitchBackExpectation) for e in scenario.expect):
        return "it acts after the provider's first switch, and the scenario expects none"
    if CLIENT_MUTANTS[name].wraps == "consumer" and scenario.workload.consumers == 0:
        return "the workload has no consumer"
    return None
