"""One PIP-188 blue-green migration, step by step, for operators (no pytest needed)::

    migration = ClusterMigration(blue, green, ["orders/eu"])
    for problem in migration.preflight():
        print(problem.describe())
    migration.prepare()          # tenants, namespaces, partitioned topics, subscriptions on green
    migration.start()            # refuses while preflight finds problems (force=True to override)
    migration.wait(timeout=600, progress=lambda s: print(sum(t.done for t in s), "of", len(s)))
    migration.rollback()         # see below: what it undoes and what it cannot

**Rollback in Pulsar 4.0.8** (:meth:`ClusterMigration.rollback`) clears the switch: the namespaces' migration flag
(or the cluster's ``migrated``), so blue stops migrating topics and serves new topics again. It cannot undo what
the check already did to a topic: ``asyncMigrate`` terminated its ledger and stored the managed-ledger property
``migrated=true``, and rollback changes neither. Seen on real clusters (two standalones, namespace-level
migration, ``tests/pips/migration/test_migration_real.py``):

* the migrated topic stays ``state: Terminated`` with properties ``{'migrated': 'true'}``;
* a **new producer** on blue for that topic is refused with ``TopicMigratedException: Topic was already
  migrated`` (the Python/C++ client sees ``UnknownError`` and retries until its operation timeout, then
  ``Timeout``); it is *not* redirected any more, since the flags are off;
* producers and consumers that were already redirected stay on green (the client keeps the redirect);
* a new subscription of the migrated topic on blue is accepted (it gets nothing new: the topic is terminated);
* a topic of the namespace that never migrated (or a new one) works on blue as before;
* the only way to produce to that topic on blue again is to delete it there
  (``pulsar-admin topics delete TOPIC --force``; its messages on blue are gone) and let it be recreated.

So rollback is for topics that have not migrated yet; a migrated topic lives on green.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pytest_pulsar_ha.pips.migration.endpoints import ClusterEndpoint
from pytest_pulsar_ha.pips.migration.inventory import scope_namespaces
from pytest_pulsar_ha.pips.migration.preflight import PreflightProblem, preflight
from pytest_pulsar_ha.pips.migration.prepare import prepare
from pytest_pulsar_ha.pips.migration.status import TopicStatus, namespace_status
from pytest_pulsar_ha.pips.migration.switch import (
    AdminCall,
    MigrationError,
    rollback_migration,
    start_calls,
    start_migration,
)

Progress = Callable[[list[TopicStatus]], None]


class MigrationNotDone(MigrationError):
    """:meth:`ClusterMigration.wait` ran out of time; ``left`` is the status of every topic not done."""

    def __init__(self, message: str, left: list[TopicStatus]) -> None:
        super().__init__(message)
        self.left = left


class PreflightFailed(MigrationError):
    """:meth:`ClusterMigration.start` refused: ``problems`` is what preflight found."""

    def __init__(self, problems: list[PreflightProblem]) -> None:
        lines = "\n".join(p.describe() for p in problems)
        super().__init__(
            f"not started: preflight found {len(problems)} problem(s) (fix them, or prepare; force=True starts "
            f"anyway):\n{lines}"
        )
        self.problems = problems


class ClusterMigration:
    """Blue to green, for ``namespaces`` (``tenant/ns``) or, with None, the whole of blue (Pulsar's own namespaces
    left out). ``client_token``: the token clients present (default ``blue.token``; the redirect hands it to
    green)."""

    def __init__(
        self,
        blue: ClusterEndpoint,
        green: ClusterEndpoint,
        namespaces: Sequence[str] | None = None,
        *,
        client_token: str | None = None,
    ) -> None:
        if blue.name == green.name:
            raise MigrationError(f"blue and green are both named {blue.name!r}: a migration needs two clusters")
        self.blue = blue
        self.green = green
        self.namespaces = None if namespaces is None else list(namespaces)
        self.client_token = client_token

    def scope(self) -> list[str]:
        """The namespaces migrated (for the whole cluster: every namespace blue has now, but Pulsar's own)."""
        try:
            return scope_namespaces(self.blue.admin(), self.namespaces)
        except ValueError as exc:
            raise MigrationError(str(exc)) from None

    def preflight(self) -> list[PreflightProblem]:
        return preflight(self.blue, self.green, self.namespaces, client_token=self.client_token)

    def prepare(self, problems: Sequence[PreflightProblem] | None = None) -> list[str]:
        """Create on green what preflight finds missing (``problems``: a preflight's result, else run one now)."""
        found = self.preflight() if problems is None else problems
        return prepare(self.blue, self.green, self.namespaces, found)

    def start_calls(self) -> list[AdminCall]:
        """The admin calls :meth:`start` makes on blue (what a dry run prints)."""
        return start_calls(self.blue, self.green, self.namespaces)

    def start(self, *, force: bool = False) -> list[PreflightProblem]:
        """Turn the switch on. Runs preflight first and raises :class:`PreflightFailed` when it finds problems,
        unless ``force``; returns the problems it started despite (empty without ``force``)."""
        problems = self.preflight()
        if problems and not force:
            raise PreflightFailed(problems)
        start_migration(self.blue, self.green, self.namespaces)
        return problems

    def status(self) -> list[TopicStatus]:
        """Every topic of the scope on blue (reading it loads it, so blue's check looks at it too)."""
        return namespace_status(self.blue.admin(), self.scope())

    def wait(self, timeout: float, poll: float = 1.0, progress: Progress | None = None) -> list[TopicStatus]:
        """Until every topic of the scope is ``done`` (migrated, nothing left on blue); returns the last status.

        Raises :class:`MigrationNotDone` with the topics left after ``timeout`` seconds. ``progress`` gets every
        status read. A subscription whose consumers left blue with a backlog keeps its topic from ever being done
        (its messages are stranded on blue): the error names it.
        """
        deadline = time.monotonic() + timeout
        while True:
            statuses = self.status()
            if progress is not None:
                progress(statuses)
            left = [s for s in statuses if not s.done]
            if not left:
                return statuses
            if time.monotonic() >= deadline:
                lines = "\n".join("  " + s.describe() for s in left)
                raise MigrationNotDone(
                    f"{len(left)} of {len(statuses)} topic(s) not done after {timeout:g}s:\n{lines}", left
                )
            time.sleep(max(0.0, min(poll, deadline - time.monotonic())))

    def rollback(self) -> None:
        """Clear the migration flags (the namespaces', or the cluster's). Topics already migrated stay terminated
        with ``migrated=true`` and keep refusing new producers on blue: see the module."""
        rollback_migration(self.blue, self.namespaces)
