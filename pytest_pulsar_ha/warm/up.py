"""Bring a warm environment up (or find it up): what ``pulsar-ha up`` and ``--pulsar-ha-reuse`` both do."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import PulsarHaError
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.warm.description import EnvironmentDescription
from pytest_pulsar_ha.warm.keeper import write_settings
from pytest_pulsar_ha.warm.state import FAILED_FILE, KEEPER_LOG, STATE_FILE, WarmState, WarmStore

Say = Callable[[str], None]


def clean_stale(store: WarmStore, settings: HaSettings, digest: str, why: str, say: Say) -> None:
    """Remove a dead environment: its processes' leftovers (the reaper: their owner, the keeper, is gone) and
    its folder."""
    for record in settings.registry().reap_orphans():
        say(f"  killed leftover {record.name} (pgid {record.pgid})")
    store.remove(digest)
    say(f"removed the stale environment {digest}: {why}")


def running(settings: HaSettings, say: Say, instance: str = "") -> WarmState | None:
    """The live warm environment of ``settings``' description, if one is up (a stale one is removed)."""
    description = EnvironmentDescription.of(settings, instance)
    store = WarmStore(settings.cache_dir)
    found = store.read(description.digest)
    if isinstance(found, WarmState):
        why = found.why_stale()
        if why is None:
            return found
        clean_stale(store, settings, description.digest, why, say)
    elif isinstance(found, str):
        clean_stale(store, settings, description.digest, found, say)
    return None


def bring_up(settings: HaSettings, say: Say, instance: str = "") -> tuple[WarmState, bool]:
    """The warm environment of ``settings``: the one up, else a new one, started by a keeper of its own and left
    running. (its state, whether it was started now)"""
    state = running(settings, say, instance)
    if state is not None:
        return state, False
    description = EnvironmentDescription.of(settings, instance)
    store = WarmStore(settings.cache_dir)
    folder = store.directory(description.digest)
    if folder.exists() and not (folder / STATE_FILE).exists():
        store.remove(description.digest)  # a keeper that died while starting left it
    write_settings(folder, description, settings)
    say(f"starting {description.summary()} as {description.digest} (log: {folder / KEEPER_LOG})")
    with (folder / KEEPER_LOG).open("ab") as log:
        keeper = subprocess.Popen(
            [sys.executable, "-m", "pytest_pulsar_ha.warm.keeper", str(folder)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives its starter; it owns the environment's processes
        )
    return _wait_until_up(store, description.digest, folder, keeper, settings.startup_timeout * 2 + 60, say), True


def _wait_until_up(store: WarmStore, digest: str, folder: Path, keeper: Any, timeout: float, say: Say) -> WarmState:
    log = folder / KEEPER_LOG
    shown = 0
    deadline = time.monotonic() + timeout
    while True:
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        for line in lines[shown:]:
            say(f"  {line}")
        shown = len(lines)
        state = store.read(digest)
        if isinstance(state, WarmState):
            return state
        if keeper.poll() is not None:
            reason = (folder / FAILED_FILE).read_text().strip() if (folder / FAILED_FILE).exists() else ""
            raise PulsarHaError(
                f"the warm environment did not start: {reason or f'its keeper exited with {keeper.returncode}'} "
                f"(log: {log}); nothing of it is left running"
            )
        if time.monotonic() > deadline:
            keeper.terminate()
            keeper.wait(120)
            raise PulsarHaError(f"the warm environment was not up within {timeout:.0f}s (log: {log}); stopped it")
        time.sleep(0.5)
