"""An operator's calls on the admin API: a migration of the workload to another cluster (PIP-188), an unload of a
topic or a namespace, a namespace or topic policy set for a while."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import Strict

from pytest_pulsar_ha.scenario.base import Loc, TopicName
from pytest_pulsar_ha.scenario.facts import FaultFacts
from pytest_pulsar_ha.scenario.faults.base import _OnCluster, _Timed, _Window
from pytest_pulsar_ha.scenario.faults.links import _FromTo

if TYPE_CHECKING:
    from pytest_pulsar_ha.scenario.model import Scenario

__all__ = ["MIGRATION_CHECK_SETTING", "POLICIES", "MigrateFault", "PolicySpec", "SetPolicyFault", "UnloadFault"]

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

    def problems(self, scenario: Scenario) -> list[tuple[Loc, str]]:
        value = scenario.topology.broker_settings.get(self.from_, {}).get(MIGRATION_CHECK_SETTING)
        try:
            seconds = float(value) if value is not None and not isinstance(value, bool) else 0.0
        except ValueError:
            seconds = 0.0
        if seconds > 0:
            return []
        found = "not set (Pulsar's default 0 never runs the migration check)" if value is None else f"{value!r}"
        return [
            (
                ("from",),
                f"a migration from {self.from_} needs its brokers to check for it: set "
                f"topology.broker_settings.{self.from_}.{MIGRATION_CHECK_SETTING} to a number of seconds > 0 "
                f"(e.g. 1); found {found}",
            )
        ]


class UnloadFault(_Timed, _OnCluster):
    """An operator unloads a topic of the workload, or the workload's namespace (every bundle of it), on one
    cluster (Pulsar's admin REST unload): the broker closes it, and its clients reconnect and find the broker that
    loads it next. Nothing is undone."""

    kind: Literal["unload"]
    facts = FaultFacts("harness", instant=True)
    wording: ClassVar[dict[str, str]] = {
        "cluster": "The cluster the topic or namespace is unloaded on.",
        "at": "When the operator unloads, from the start of the workload.",
    }
    topic: TopicName | None = None
    """The workload topic to unload (its name in workload.topics; every partition of a partitioned one); default:
    the workload's namespace."""

    def label(self, index: int) -> str:
        return f"#{index} unload {self.cluster}" + (f"/{self.topic}" if self.topic else "")

    def problems(self, scenario: Scenario) -> list[tuple[Loc, str]]:
        names = [topic.name for topic in scenario.workload.topics]
        if self.topic is None or self.topic in names:
            return []
        return [(("topic",), f"expected a topic of workload.topics ({', '.join(names)}), found {self.topic!r}")]


PolicyName = Literal["max_message_size", "deduplication"]
Scope = Literal["namespace", "topic"]


@dataclass(frozen=True)
class PolicySpec:
    """One policy a `set_policy` fault can set: the type of its value and, per scope, the last segment of its
    admin REST path (``namespaces/{tenant}/{namespace}/<segment>`` or
    ``persistent/{tenant}/{namespace}/{topic}/<segment>``: GET reads the value set at that level, null where
    none is, POST sets it, DELETE removes it)."""

    value: type[int] | type[bool]
    paths: dict[Scope, str]
    meaning: str

    def accepts(self, value: int | bool) -> bool:
        if self.value is bool:
            return isinstance(value, bool)
        return isinstance(value, int) and not isinstance(value, bool) and value > 0


POLICIES: dict[str, PolicySpec] = {
    "max_message_size": PolicySpec(int, {"topic": "maxMessageSize"}, "a number of bytes > 0"),
    "deduplication": PolicySpec(bool, {"namespace": "deduplication", "topic": "deduplicationEnabled"}, "true or false"),
}
"""Policy name -> what a `set_policy` fault needs of it (the paths read in Pulsar 4.2.4's admin v2
``Namespaces`` and ``PersistentTopics``: ``maxMessageSize`` exists at topic level only)."""


class SetPolicyFault(_Window, _OnCluster):
    """An operator sets a namespace or topic policy on one cluster through its admin REST API (e.g. a lower
    maximum message size, deduplication on), then, at the end of the window, restores what was set at that level
    before (or removes the policy where none was). Only that cluster's brokers see it: each cluster keeps its
    own policies (no shared configuration store); topic policies are local ones."""

    kind: Literal["set_policy"]
    facts = FaultFacts("harness")
    wording: ClassVar[dict[str, str]] = {
        "cluster": "The cluster whose policy is set.",
        "at": "When the policy is set, from the start of the workload.",
        "for_": "How long it holds before it is restored.",
    }
    policy: PolicyName
    """The policy: `max_message_size` (bytes; topic scope only) or `deduplication` (true or false)."""
    value: Annotated[bool, Strict()] | Annotated[int, Strict()]
    """Its value while the fault holds."""
    scope: Scope = "namespace"
    """`namespace`: the workload's namespaces; `topic`: a topic of the workload (`topic`) or each of them."""
    topic: TopicName | None = None
    """With scope `topic`: the workload topic (its name in workload.topics); default: every workload topic."""

    def label(self, index: int) -> str:
        where = f"{self.cluster}/{self.topic}" if self.topic else f"{self.cluster} {self.scope}"
        value = str(self.value).lower() if isinstance(self.value, bool) else str(self.value)
        return f"#{index} set_policy {where} {self.policy}={value}"

    def problems(self, scenario: Scenario) -> list[tuple[Loc, str]]:
        spec = POLICIES[self.policy]
        out: list[tuple[Loc, str]] = []
        if not spec.accepts(self.value):
            out.append((("value",), f"{self.policy} takes {spec.meaning}, found {self.value!r}"))
        if self.scope not in spec.paths:
            scopes = " or ".join(spec.paths)
            out.append((("scope",), f"{self.policy} is set at {scopes} level in Pulsar, found scope {self.scope!r}"))
        names = [topic.name for topic in scenario.workload.topics]
        if self.topic is not None and self.scope != "topic":
            out.append((("topic",), f"a topic is named with scope: topic only, found scope {self.scope!r}"))
        elif self.topic is not None and self.topic not in names:
            out.append((("topic",), f"expected a topic of workload.topics ({', '.join(names)}), found {self.topic!r}"))
        return out
