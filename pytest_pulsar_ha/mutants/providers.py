"""Provider mutants: our AutoClusterFailover with one thing wrong in how it decides, each modelling a defect a
provider could ship with. A mutant changes a built provider in place (its decision policy or its probe); the
probe loop, the client and everything after it are the real ones.

=====================  ==========================================================================================
``late``               every switch one check interval after the shipped provider's (a delay counted from the
                       wrong probe, a timer armed one tick late)
``early``              every switch one check interval before it (delays counted as probe counts, ``N - 1``
                       intervals: apache/pulsar#25326's quantisation)
``never_back``         never switches back to the primary (a switch-back branch that is never taken)
``back_at_once``       switches back as soon as the primary answers once (``switch_back_delay`` ignored)
``last_secondary``     fails over to the last secondary instead of the first healthy one in order
``tcp_only``           probes by TCP connect only (a hung broker that accepts connections looks healthy)
=====================  ==========================================================================================

Controlled mutants: our ControlledClusterFailover with its poll's outcome changed (its ``fetch``); the HTTP
request, the validation, the switch and the client are the real ones.

=====================  ==========================================================================================
``answer_late``        applies a changed answer of the URL provider one poll late (an answer compared with the
                       previous poll's instead of the configuration in use, a switch queued for the next tick)
``answer_ignored``     never applies a changed answer (a comparison that always finds it equal)
=====================  ==========================================================================================
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pulsar_ha_providers.failover_policy import Decision, FailoverPolicy
from pytest_pulsar_ha.checks.result import Side


class DelayedPolicy:
    """A policy that hands on each decision only ``delay`` seconds after it was first made (the same target
    decided on every tick since); a tick without it starts over."""

    def __init__(self, inner: FailoverPolicy, delay: float) -> None:
        self.inner = inner
        self.delay = delay
        self._first: tuple[int, float] | None = None

    @property
    def current(self) -> int:
        return self.inner.current

    def tick(self, now: float, healthy: Mapping[int, bool]) -> Decision | None:
        decision = self.inner.tick(now, healthy)
        if decision is None:
            self._first = None
            return None
        if self._first is None or self._first[0] != decision.target:
            self._first = (decision.target, now)
        if now - self._first[1] < self.delay - self.inner.tolerance:
            return None
        return decision

    def commit(self, decision: Decision) -> None:
        self._first = None
        self.inner.commit(decision)


class FilteredPolicy:
    """A policy whose decisions pass through ``change`` (which may drop one, or send it elsewhere)."""

    def __init__(self, inner: FailoverPolicy, change: Callable[[FailoverPolicy, Decision], Decision | None]) -> None:
        self.inner = inner
        self.change = change

    @property
    def current(self) -> int:
        return self.inner.current

    def tick(self, now: float, healthy: Mapping[int, bool]) -> Decision | None:
        decision = self.inner.tick(now, healthy)
        return None if decision is None else self.change(self.inner, decision)

    def commit(self, decision: Decision) -> None:
        self.inner.commit(decision)


class WatchedPolicy:
    """Passes everything to ``inner`` and notes whether any check failed (``acted``): a provider mutant changes
    how the provider reacts to a failed check, so in a run where none failed it never acted."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.acted = False

    @property
    def current(self) -> int:
        return int(self.inner.current)

    def tick(self, now: float, healthy: Mapping[int, bool]) -> Decision | None:
        if not all(healthy.values()):
            self.acted = True
        decision: Decision | None = self.inner.tick(now, healthy)
        return decision

    def commit(self, decision: Decision) -> None:
        self.inner.commit(decision)


def _policy(provider: Any, failover_delay: float, switch_back_delay: float) -> FailoverPolicy:
    shipped: FailoverPolicy = provider.policy
    return FailoverPolicy(shipped.endpoints, failover_delay, switch_back_delay, tolerance=shipped.tolerance)


def _late(provider: Any) -> None:
    provider.policy = DelayedPolicy(provider.policy, provider.check_interval)


def _early(provider: Any) -> None:
    interval = provider.check_interval
    provider.policy = _policy(
        provider, max(0.0, provider.failover_delay - interval), max(0.0, provider.switch_back_delay - interval)
    )


def _never_back(provider: Any) -> None:
    provider.policy = FilteredPolicy(
        provider.policy, lambda policy, d: None if d.target == 0 and policy.current != 0 else d
    )


def _back_at_once(provider: Any) -> None:
    provider.policy = _policy(provider, provider.failover_delay, 0.0)


def _last_secondary(provider: Any) -> None:
    def last(policy: FailoverPolicy, decision: Decision) -> Decision:
        if policy.current == 0 and decision.target != 0:
            return Decision(policy.endpoints - 1, decision.reason + " (mutant: to the last secondary)")
        return decision

    provider.policy = FilteredPolicy(provider.policy, last)


class ShadowedProbe:
    """The mutant's probe answers; the shipped probe runs beside it (in parallel, on the same endpoint and
    timeout) and is only compared: ``disagreed`` notes the first check where the two answers differ, i.e. where
    what the mutant changed changed what the provider saw (acted)."""

    def __init__(self, answer: Any, shadow: Any) -> None:
        self.answer = answer
        self.shadow = shadow
        self.kind = answer.kind
        self.disagreed: str | None = None

    def run(self, endpoint: Any, timeout: float) -> Any:
        shadowed: list[Any] = []
        thread = threading.Thread(target=lambda: shadowed.append(self.shadow.run(endpoint, timeout)), daemon=True)
        thread.start()
        answered = self.answer.run(endpoint, timeout)
        thread.join(timeout + 1.0)
        if shadowed and shadowed[0].ok != answered.ok and self.disagreed is None:
            said = "healthy" if answered.ok else "unhealthy"
            self.disagreed = (
                f"{endpoint.name}: the {self.answer.kind} probe said {said}, the shipped {self.shadow.kind} not"
            )
        return answered


def _tcp_only(provider: Any) -> Callable[[], str | None]:
    from pulsar_ha_providers.probes import make_probe

    shadowed = ShadowedProbe(make_probe("tcp"), provider.probe)
    provider.probe = shadowed
    return lambda: None if shadowed.disagreed else "the TCP probe and the shipped probe never disagreed in this run"


def _answer_late(provider: Any, acted: threading.Event) -> None:
    fetch = provider.fetch
    seen: list[Any] = [None]

    def late() -> Any:
        config = fetch()
        if config != provider.current:
            acted.set()
        if config != provider.current and config != seen[0]:
            seen[0] = config  # first poll with this answer: not applied yet
            return provider.current
        seen[0] = None
        return config

    provider.fetch = late


def _answer_ignored(provider: Any, acted: threading.Event) -> None:
    fetch = provider.fetch

    def ignored() -> Any:
        if fetch() != provider.current:  # the request is made and validated as shipped; its answer is dropped
            acted.set()
        return provider.current

    provider.fetch = ignored


def _applies(spec: Any) -> None:
    return None


def _one_secondary(spec: Any) -> str | None:
    return "one secondary: the last one is the first" if len(spec.secondaries) < 2 else None


def _probes_by_tcp(spec: Any) -> str | None:
    return "the provider probes by TCP already" if spec.probe == "tcp" else None


@dataclass(frozen=True)
class ProviderMutant:
    """A mutant of our AutoClusterFailover: it changes the provider's decision policy (or its probe)."""

    name: str
    models: str
    change: Callable[..., Any]
    """Changes a built provider in place (a probe mutant returns what says whether it acted)."""
    seen_by: tuple[str, ...]
    """The expectation kinds able to see it: only their failure (on evidence) kills it."""
    refuses: Callable[[Any], str | None] = _applies
    """Why it cannot change a scenario's provider of its kind (given the provider's block), or None."""
    side: Side | None = None
    """The side of a window it moves a switch to: only a window missed on that side can be its doing."""
    provider_kind: ClassVar[str] = "auto"
    """The provider kind it changes."""
    changes: ClassVar[str] = "our AutoClusterFailover"
    """The provider it changes, in words."""

    def apply(self, provider: Any) -> Callable[[], str | None]:
        """Change a built provider in place; returns what says, after the run, why the mutant never acted (None
        where it did): it changes the reaction to a failed check, so a run without one ran the shipped code
        only."""
        self.change(provider)
        watched = WatchedPolicy(provider.policy)
        provider.policy = watched
        return lambda: None if watched.acted else "no check of the provider failed in this run"


@dataclass(frozen=True)
class ProbeMutant(ProviderMutant):
    """A mutant of our AutoClusterFailover's probe: it acted when its probe's answer differed from the shipped
    probe's (run beside it, :class:`ShadowedProbe`), not when its own, possibly fooled, probe failed."""

    def apply(self, provider: Any) -> Callable[[], str | None]:
        """As :meth:`ProviderMutant.apply`; ``change`` returns what says whether the probes ever disagreed."""
        acted: Callable[[], str | None] = self.change(provider)
        return acted


@dataclass(frozen=True)
class AnswerMutant(ProviderMutant):
    """A mutant of our ControlledClusterFailover: it changes what the provider does with a changed answer of the
    URL provider."""

    provider_kind: ClassVar[str] = "controlled"
    changes: ClassVar[str] = "our ControlledClusterFailover"

    def apply(self, provider: Any) -> Callable[[], str | None]:
        """As :meth:`ProviderMutant.apply`; it changes the reaction to a changed answer."""
        changed = threading.Event()
        self.change(provider, changed)
        return lambda: None if changed.is_set() else "the URL provider's answer never changed in this run"


PROVIDER_MUTANTS: dict[str, ProviderMutant] = {
    m.name: m
    for m in (
        ProviderMutant("late", "every switch one check interval late", _late, ("switch", "switch_back"), side="late"),
        ProviderMutant(
            "early", "every switch one check interval early", _early, ("switch", "switch_back"), side="early"
        ),
        ProviderMutant("never_back", "never switches back to the primary", _never_back, ("switch_back",), side="late"),
        ProviderMutant(
            "back_at_once",
            "switches back as soon as the primary answers once",
            _back_at_once,
            ("switch_back",),
            side="early",
        ),
        ProviderMutant(
            "last_secondary",
            "fails over to the last secondary, not the first",
            _last_secondary,
            ("switch",),
            _one_secondary,
        ),
        ProbeMutant("tcp_only", "probes by TCP connect only", _tcp_only, ("switch",), _probes_by_tcp),
        AnswerMutant(
            "answer_late",
            "applies the URL provider's changed answer one poll late",
            _answer_late,
            ("switch", "switch_back"),
            side="late",
        ),
        AnswerMutant(
            "answer_ignored",
            "never applies the URL provider's changed answer",
            _answer_ignored,
            ("switch", "switch_back"),
            side="late",
        ),
    )
}
