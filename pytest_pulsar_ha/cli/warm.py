"""``pulsar-ha up``, ``status`` and ``down``: warm environments (:mod:`pytest_pulsar_ha.warm`)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import time
from typing import Any

from pytest_pulsar_ha.errors import PulsarHaError
from pytest_pulsar_ha.process.pid_registry import live_start_ticks
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION, default_cache_dir
from pytest_pulsar_ha.settings import HaSettings, check_heap, check_version, parse_substitutions
from pytest_pulsar_ha.settings.clusters import parse_brokers, parse_clusters
from pytest_pulsar_ha.warm.lock import holder
from pytest_pulsar_ha.warm.state import FAILED_FILE, WarmState, WarmStore
from pytest_pulsar_ha.warm.up import bring_up

AUTH_CHOICES = ("none", "token")


def _say(message: str) -> None:
    print(message, flush=True)


def up_settings(args: argparse.Namespace) -> HaSettings:
    brokers = parse_brokers(args.brokers, "--brokers")
    auth = None if args.auth == "none" else args.auth
    specs = parse_clusters(args.clusters, "--clusters")
    return HaSettings(
        clusters=tuple(dataclasses.replace(spec, brokers=brokers, auth=auth) for spec in specs),
        pulsar_version=check_version(args.pulsar_version, "--pulsar-version"),
        pulsar_substitutions=parse_substitutions(args.pulsar_substitute, "--pulsar-substitute"),
        heap=check_heap(args.heap, "--heap"),
        cache_dir=default_cache_dir(),
        startup_timeout=float(args.startup_timeout),
    )


def remove_stale(store: WarmStore) -> list[str]:
    """Remove every warm environment whose keeper is gone (their processes are the reaper's, as any dead run's);
    the digests removed."""
    removed = []
    for digest in store.digests():
        state = store.read(digest)
        if isinstance(state, str) or (isinstance(state, WarmState) and state.why_stale() is not None):
            store.remove(digest)
            removed.append(digest)
    return removed


def cmd_up(args: argparse.Namespace) -> int:
    settings = up_settings(args)
    state, started = bring_up(settings, _say)
    if not started:
        _say(f"already up: {state.digest} ({state.description.summary()}), keeper pid {state.keeper_pid}")
        return 0
    _describe(state)
    _say(f"use it: pytest --pulsar-ha-reuse ...; stop it: pulsar-ha down {state.digest}")
    return 0


def _describe(state: WarmState) -> None:
    _say(f"{state.digest}: {state.description.summary()}")
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(state.created_at))
    _say(f"  keeper pid {state.keeper_pid}, up since {since}")
    for name, c in state.clusters.items():
        _say(f"  {name}: service {c.service_url}  admin {c.admin_url}")


def statuses(store: WarmStore) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for digest in store.digests():
        state = store.read(digest)
        folder = store.directory(digest)
        if state is None:
            failed = folder / FAILED_FILE
            why = failed.read_text().strip() if failed.exists() else "starting, or its keeper died while starting"
            out.append({"digest": digest, "status": "not up", "why": why})
        elif isinstance(state, str):
            out.append({"digest": digest, "status": "stale", "why": state})
        else:
            stale = state.why_stale()
            entry: dict[str, Any] = {
                "digest": digest,
                "status": "stale" if stale else "up",
                "description": state.description.summary(),
                "keeper_pid": state.keeper_pid,
                "created_at": state.created_at,
                "clusters": {n: c.service_url for n, c in state.clusters.items()},
            }
            if stale:
                entry["why"] = stale
            else:
                entry["in_use_by"] = holder(folder)
            out.append(entry)
    return out


def cmd_status(args: argparse.Namespace) -> int:
    found = statuses(WarmStore(default_cache_dir()))
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    if not found:
        _say("no warm environment (pulsar-ha up starts one)")
    for entry in found:
        line = f"{entry['digest']}  {entry['status']}"
        if "description" in entry:
            line += f"  {entry['description']}"
        _say(line)
        if entry.get("why"):
            _say(f"  {entry['why']} (pulsar-ha down {entry['digest']} removes it)")
        if entry["status"] == "up":
            _say(f"  keeper pid {entry['keeper_pid']}, in use by {entry.get('in_use_by') or 'nobody'}")
            for name, url in entry["clusters"].items():
                _say(f"  {name}: {url}")
    return 0


def stop_keeper(state: WarmState, grace: float = 90.0) -> bool:
    """SIGTERM the keeper (only if it is still the same process) and wait for it to stop its environment; True when
    it did, False when it had to be killed."""
    if state.why_stale() is not None:
        return True
    os.kill(state.keeper_pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if live_start_ticks(state.keeper_pid) != state.keeper_start_ticks:
            return True
        time.sleep(0.2)
    os.kill(state.keeper_pid, signal.SIGKILL)
    return False


def cmd_down(args: argparse.Namespace) -> int:
    store = WarmStore(default_cache_dir())
    settings = HaSettings(cache_dir=default_cache_dir())
    digests = store.digests()
    if args.all:
        chosen = digests
    elif args.digest:
        if args.digest not in digests:
            raise PulsarHaError(f"no warm environment {args.digest!r}; pulsar-ha status lists them")
        chosen = [args.digest]
    elif len(digests) <= 1:
        chosen = digests
    else:
        raise PulsarHaError(f"{len(digests)} warm environments ({', '.join(digests)}): name one, or --all")
    for digest in chosen:
        state = store.read(digest)
        if isinstance(state, WarmState) and state.why_stale() is None:
            clean = stop_keeper(state)
            _say(f"stopped {digest}" + ("" if clean else " (its keeper did not stop in time: killed)"))
        for record in settings.registry().reap_orphans():
            _say(f"  killed leftover {record.name} (pgid {record.pgid})")
        store.remove(digest)
    if not chosen:
        _say("no warm environment to stop")
    return 0


def add_warm_parsers(sub: Any) -> None:
    up = sub.add_parser("up", help="start an environment and leave it running (pytest --pulsar-ha-reuse uses it)")
    up.add_argument("--clusters", default="2", help="count or comma list of names")
    up.add_argument("--brokers", default="1", help="brokers per cluster")
    up.add_argument("--pulsar-version", default=DEFAULT_PULSAR_VERSION)
    up.add_argument("--pulsar-substitute", default="")
    up.add_argument("--heap", default="512m")
    up.add_argument("--auth", choices=AUTH_CHOICES, default="none")
    up.add_argument("--startup-timeout", default="180", type=float)
    up.set_defaults(func=cmd_up)
    status = sub.add_parser("status", help="the warm environments: what each is, up or stale, who uses it")
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=cmd_status)
    down = sub.add_parser("down", help="stop a warm environment (the only one, or the one named) and remove it")
    down.add_argument("digest", nargs="?", help="the environment (pulsar-ha status lists them)")
    down.add_argument("--all", action="store_true", help="every warm environment")
    down.set_defaults(func=cmd_down)
