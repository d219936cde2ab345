"""``pulsar-ha migrate``: a PIP-188 blue-green migration from the command line, step by step.

    pulsar-ha migrate {preflight,prepare,start,status,wait,rollback} --blue NAME=ADMIN_URL --green NAME=ADMIN_URL
        [--green-broker-url pulsar://host:port] [--namespace tenant/ns ...] [--json]

``start --dry-run`` is preflight only: it prints the plan (scope, every topic, the exact REST calls start would
make, every preflight problem with its fix) and changes nothing. Tokens: ``--blue-token``, ``--green-token``
(this tool's own) and ``--client-token`` (what the clients present; default blue's), or the environment
variables ``PULSAR_HA_BLUE_TOKEN``, ``PULSAR_HA_GREEN_TOKEN``, ``PULSAR_HA_CLIENT_TOKEN`` (kept out of ``ps``).

Exit codes: 0 done / nothing found; 1 problems found, migration not done, or a step refused or failed;
2 usage error (bad arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from pytest_pulsar_ha.errors import ConfigurationError, PulsarHaError
from pytest_pulsar_ha.pips.migration.endpoints import ClusterEndpoint
from pytest_pulsar_ha.pips.migration.migration import ClusterMigration, MigrationNotDone, PreflightFailed
from pytest_pulsar_ha.pips.migration.preflight import PreflightProblem
from pytest_pulsar_ha.pips.migration.prepare import FIXED_BY_PREPARE
from pytest_pulsar_ha.pips.migration.status import TopicStatus

STEPS = ("preflight", "prepare", "start", "status", "wait", "rollback")
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
TOKEN_VARIABLES = {
    "blue_token": "PULSAR_HA_BLUE_TOKEN",
    "green_token": "PULSAR_HA_GREEN_TOKEN",
    "client_token": "PULSAR_HA_CLIENT_TOKEN",
}


def add_migrate_parser(sub: Any) -> None:
    """Register ``migrate`` on the ``pulsar-ha`` subcommands."""
    parser = sub.add_parser(
        "migrate",
        help="PIP-188 blue-green migration: preflight, prepare, start (--dry-run), status, wait, rollback",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("step", choices=STEPS)
    parser.add_argument("--blue", required=True, metavar="NAME=ADMIN_URL", help="the cluster migrated from")
    parser.add_argument("--green", required=True, metavar="NAME=ADMIN_URL", help="the cluster migrated to")
    parser.add_argument(
        "--green-broker-url", metavar="pulsar://HOST:PORT", help="green's broker URL as clients reach it (the redirect)"
    )
    parser.add_argument(
        "--namespace",
        action="append",
        metavar="TENANT/NS",
        help="migrate this namespace (repeat); without it: the whole of blue, Pulsar's own namespaces left out",
    )
    for name, variable in TOKEN_VARIABLES.items():
        flag = "--" + name.replace("_", "-")
        parser.add_argument(flag, dest=name, help=f"token (default: ${variable})")
    parser.add_argument("--json", action="store_true", help="machine output (one JSON document on stdout)")
    parser.add_argument("--dry-run", action="store_true", help="start: preflight only, print the plan")
    parser.add_argument("--force", action="store_true", help="start: despite preflight problems")
    parser.add_argument("--timeout", type=float, default=300.0, help="wait: seconds (default 300)")
    parser.add_argument("--poll", type=float, default=1.0, help="wait: seconds between readings (default 1)")
    parser.set_defaults(func=cmd_migrate)


def parse_cluster(value: str, flag: str) -> tuple[str, str]:
    """``NAME=http://host:port`` -> (name, url); ConfigurationError naming the flag otherwise."""
    name, sep, url = value.partition("=")
    if not sep or not name.strip() or not url.startswith(("http://", "https://")):
        raise ConfigurationError(f"{flag} {value!r}: expected NAME=ADMIN_URL, e.g. {flag} blue=http://blue:8080")
    return name.strip(), url.strip()


def migration_from_args(args: argparse.Namespace) -> ClusterMigration:
    tokens = {name: getattr(args, name, None) or os.environ.get(var) or None for name, var in TOKEN_VARIABLES.items()}
    blue_name, blue_url = parse_cluster(args.blue, "--blue")
    green_name, green_url = parse_cluster(args.green, "--green")
    if blue_name == green_name:
        raise ConfigurationError(f"--blue and --green both name {blue_name!r}: a migration needs two clusters")
    if args.timeout <= 0 or args.poll <= 0:
        raise ConfigurationError("--timeout and --poll take a positive number of seconds")
    if (args.dry_run or args.force) and args.step != "start":
        raise ConfigurationError("--dry-run and --force belong to the start step")
    blue = ClusterEndpoint(blue_name, blue_url, token=tokens["blue_token"])
    green = ClusterEndpoint(
        green_name, green_url, broker_service_url=args.green_broker_url, token=tokens["green_token"]
    )
    return ClusterMigration(blue, green, args.namespace, client_token=tokens["client_token"])


class _Output:
    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.document: dict[str, Any] = {}

    def say(self, line: str = "") -> None:
        if not self.as_json:
            print(line, flush=True)

    def put(self, **fields: Any) -> None:
        self.document.update(fields)

    def finish(self, code: int) -> int:
        if self.as_json:
            print(json.dumps({**self.document, "exit_code": code}, indent=2))
        return code


def _problems(out: _Output, problems: list[PreflightProblem]) -> None:
    out.put(problems=[p.as_dict() for p in problems])
    if not problems:
        out.say("preflight: no problem found")
        return
    out.say(f"preflight: {len(problems)} problem(s)")
    for problem in problems:
        out.say("  " + problem.describe().replace("\n", "\n  "))


def _statuses(out: _Output, statuses: list[TopicStatus]) -> bool:
    done = all(s.done for s in statuses)
    out.put(topics=[s.as_dict() for s in statuses], done=done)
    for s in statuses:
        out.say(f"  {'done   ' if s.done else 'not yet'}  {s.describe()}")
    out.say(f"{sum(s.done for s in statuses)} of {len(statuses)} topic(s) done")
    return done


def _plan(out: _Output, migration: ClusterMigration) -> int:
    blue, green = migration.blue, migration.green
    out.say("PIP-188 migration plan (dry run: nothing was changed)")
    out.say(f"  blue:  {blue.name} (admin {blue.admin_url})")
    out.say(f"  green: {green.name} (admin {green.admin_url}); clients redirected to {green.broker_service_url}")
    problems = migration.preflight()
    try:
        scope = migration.scope()
        statuses = migration.status()
    except (PulsarHaError, OSError) as exc:
        scope, statuses = [], []
        out.say(f"  scope: unknown ({exc})")
    whole = "the whole cluster" if migration.namespaces is None else "the namespaces named"
    out.put(dry_run=True, scope=scope, topics=[s.as_dict() for s in statuses])
    out.say(f"  scope: {whole}: {', '.join(scope) or 'no namespace'} ({len(statuses)} topic(s))")
    for s in statuses:
        subscriptions = f" (subscriptions: {', '.join(s.subscription_backlogs)})" if s.subscription_backlogs else ""
        out.say(f"    {s.describe()}{subscriptions}")
    try:
        calls = migration.start_calls()
    except PulsarHaError as exc:
        calls = []
        out.say(f"  start would make no call: {exc}")
    out.put(calls=[c.as_dict() for c in calls])
    if calls:
        out.say("  start would call, on blue:")
        for call in calls:
            out.say(f"    {call.describe(blue.admin_url)}")
        out.say(
            "  then blue's brokers migrate each loaded topic at their next check (clusterMigrationCheckDurationSeconds)"
            "; producers move once no replicator has backlog, consumers once their subscription is drained"
        )
    _problems(out, problems)
    if problems:
        fixable = sum(p.code in FIXED_BY_PREPARE for p in problems)
        out.say(f"start would refuse: {len(problems)} problem(s); `pulsar-ha migrate prepare` fixes {fixable} of them")
    else:
        out.say("start would go ahead")
    return EXIT_PROBLEMS if problems or not calls else EXIT_OK


def _run_step(out: _Output, migration: ClusterMigration, args: argparse.Namespace) -> int:
    step = args.step
    if step == "preflight":
        problems = migration.preflight()
        _problems(out, problems)
        if not any(p.code == "blue-unreachable" for p in problems):
            out.put(scope=migration.scope())
        return EXIT_PROBLEMS if problems else EXIT_OK
    if step == "prepare":
        actions = migration.prepare()
        out.put(actions=actions)
        for action in actions:
            out.say(f"  {action}")
        left = migration.preflight()
        out.say("after prepare:")
        _problems(out, left)
        return EXIT_PROBLEMS if left else EXIT_OK
    if step == "start":
        if args.dry_run:
            return _plan(out, migration)
        calls = migration.start_calls()
        try:
            ignored = migration.start(force=args.force)
        except PreflightFailed as exc:
            out.put(started=False)
            _problems(out, exc.problems)
            out.say("not started (fix the problems, run prepare, or --force)")
            return EXIT_PROBLEMS
        out.put(started=True, calls=[c.as_dict() for c in calls], problems=[p.as_dict() for p in ignored])
        for call in calls:
            out.say(f"  {call.describe(migration.blue.admin_url)}")
        out.say(f"started{f' despite {len(ignored)} problem(s)' if ignored else ''}")
        return EXIT_OK
    if step == "status":
        return EXIT_OK if _statuses(out, migration.status()) else EXIT_PROBLEMS
    if step == "wait":

        def progress(statuses: list[TopicStatus]) -> None:
            out.say(f"  {sum(t.done for t in statuses)} of {len(statuses)} topic(s) done")

        try:
            statuses = migration.wait(args.timeout, poll=args.poll, progress=progress)
        except MigrationNotDone as exc:
            out.say(str(exc))
            out.put(done=False, topics=[s.as_dict() for s in exc.left])
            return EXIT_PROBLEMS
        return EXIT_OK if _statuses(out, statuses) else EXIT_PROBLEMS
    migration.rollback()
    scope = "the cluster" if migration.namespaces is None else ", ".join(migration.namespaces)
    out.put(rolled_back=scope)
    out.say(f"rolled back {scope}: the flags are off; topics already migrated stay terminated (README, PIP-188)")
    return EXIT_OK


def cmd_migrate(args: argparse.Namespace) -> int:
    out = _Output(args.json)
    try:
        migration = migration_from_args(args)
    except (ConfigurationError, PulsarHaError) as exc:
        print(f"pulsar-ha migrate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        code = _run_step(out, migration, args)
    except (PulsarHaError, OSError) as exc:
        print(f"pulsar-ha migrate {args.step}: {exc}", file=sys.stderr)
        out.put(error=str(exc))
        code = EXIT_PROBLEMS
    return out.finish(code)
