"""A scenario's `migrate` entries (PIP-188) on the environment: subscriptions prepared on the target before the
workload starts, the switch when the nemesis reaches the entry (with a ``migration_start`` event and a
:class:`~pytest_pulsar_ha.pips.migration.watch.MigrationWatch` recording what blue does), and the flags
rolled back when the scenario ends, so the environment serves the next scenario as before."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable, Sequence

from pytest_pulsar_ha.history import MIGRATION_START, Event, now_ns
from pytest_pulsar_ha.pips.migration import ClusterEndpoint, rollback_migration, start_migration
from pytest_pulsar_ha.pips.migration.status import topic_path
from pytest_pulsar_ha.pips.migration.watch import WATCH_PROCESS, MigrationWatch
from pytest_pulsar_ha.run.context import RunContext, expand_partitions
from pytest_pulsar_ha.run.parts.base import Part
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.faults import MigrateFault
from pytest_pulsar_ha.scenario.model import Scenario

EARLIEST = {"ledgerId": -1, "entryId": -1, "partitionIndex": -1}
"""A MessageId body for ``PUT .../subscription/{name}``: the earliest position."""


def endpoint(env: PulsarHaEnvironment, name: str) -> ClusterEndpoint:
    """A cluster of the environment as a migration side: admin straight to its broker (the harness' own calls
    are not part of the faults); clients redirected to its client proxy (as its own clients reach it)."""
    cluster = env.cluster(name)
    return ClusterEndpoint(
        name,
        admin_url=cluster.direct_admin_url,
        broker_service_url=cluster.service_url,
        service_url=cluster.direct_admin_url,
        token=cluster.token,
    )


def migrating_pairs(scenario: Scenario) -> set[frozenset[str]]:
    """The {from, to} pairs of the scenario's migrations: their namespaces must not replicate between them."""
    return {frozenset((f.from_, f.to)) for f in scenario.faults if isinstance(f, MigrateFault)}


class ScenarioMigrations:
    """The migrations of one scenario run."""

    def __init__(
        self,
        env: PulsarHaEnvironment,
        scenario: Scenario,
        namespaces: Sequence[str],
        topics: Sequence[str],
        subscriptions: Sequence[str],
        record: Callable[[Event], object],
    ) -> None:
        self.env = env
        self.namespaces = list(namespaces)
        self.topics = list(topics)
        self.subscriptions = sorted(set(subscriptions))
        self.record = record
        self.faults = [f for f in scenario.faults if isinstance(f, MigrateFault)]
        self.started: list[MigrateFault] = []
        self.watches: list[MigrationWatch] = []
        self.errors: list[str] = []

    def prepare(self) -> list[str]:
        """Create the workload's subscriptions on each target that asks for it (earliest position)."""
        done = []
        for fault in self.faults:
            if not fault.prepare:
                continue
            admin = endpoint(self.env, fault.to).admin()
            for topic in self.topics:
                for name in self.subscriptions:
                    quoted = urllib.parse.quote(name, safe="")
                    admin.put(f"{topic_path(topic)}/subscription/{quoted}?replicated=false", EARLIEST)
                    done.append(f"{fault.to}: {topic} subscription {name} at earliest")
        return done

    def start(self, fault: MigrateFault) -> None:
        """Start one migration now (the nemesis calls this when it reaches the entry)."""
        blue, green = endpoint(self.env, fault.from_), endpoint(self.env, fault.to)
        namespaces = None if fault.scope == "cluster" else self.namespaces
        self.started.append(fault)
        start_migration(blue, green, namespaces)
        detail = {"to": fault.to, "scope": fault.scope, "namespaces": self.namespaces}  # the flags are in place
        self.record(Event(now_ns(), MIGRATION_START, WATCH_PROCESS, fault.from_, detail=json.dumps(detail)))
        watch = MigrationWatch(fault.from_, fault.to, blue.admin(), self.topics, self.record)
        self.watches.append(watch)
        watch.start()

    def stop_watching(self) -> None:
        for watch in self.watches:
            watch.stop()

    def rollback(self) -> None:
        """Clear every flag this run set (topics already migrated stay terminated: they are this run's own)."""
        self.stop_watching()
        for fault in self.started:
            namespaces = None if fault.scope == "cluster" else self.namespaces
            try:
                rollback_migration(endpoint(self.env, fault.from_), namespaces)
            except Exception as exc:
                self.errors.append(f"could not roll back the migration {fault.from_}->{fault.to}: {exc}")


class Migrations(Part):
    """PIP-188: the scenario's ``migrate`` entries prepared before the workload, rolled back once it stopped (a
    scenario without one prepares and rolls back nothing; the nemesis reaches its entries through ``ctx``)."""

    def __init__(self) -> None:
        self.migrations: ScenarioMigrations | None = None

    @classmethod
    def of(cls, ctx: RunContext) -> Migrations:
        return cls()

    def prepare(self, ctx: RunContext) -> None:
        if ctx.spaces is None:
            raise RuntimeError("no namespaces: the Namespaces part must run before this one")
        topics = expand_partitions(ctx.scenario, ctx.topics)
        subscriptions = ctx.needs_plan().subscription_names()
        self.migrations = ScenarioMigrations(
            ctx.env, ctx.scenario, ctx.spaces.namespaces, topics, subscriptions, ctx.log.add
        )
        ctx.migrations = self.migrations
        self.migrations.prepare()

    def close(self, ctx: RunContext) -> None:
        if self.migrations is not None:
            self.migrations.rollback()  # last: after the clients stopped
            ctx.problems.setdefault("migrations", []).extend(self.migrations.errors)
