"""``--pulsar-ha-reuse`` (ini ``pulsar_ha_reuse = true``): the session's environment is a warm one
(:mod:`pytest_pulsar_ha.warm`): attached when one of the same description is up, else started by a keeper and
left up for the next session. Every topology the session needs is kept warm, one environment each (a scenario's
own clusters, multi-broker, metadata sync, ledger ids seeded apart): the description says everything that makes
them differ. Each pytest-xdist worker gets warm environments of its own (the worker id is part of the
description)."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

from pytest_pulsar_ha.settings import HaSettings

REUSE_KEY = pytest.StashKey[bool]()


def add_option(group: Any, parser: pytest.Parser) -> None:
    group.addoption(
        "--pulsar-ha-reuse",
        dest="pulsar_ha_reuse",
        action="store_true",
        default=None,
        help="run on a warm environment (pulsar-ha up), starting one and leaving it up when none matches "
        "[ini: pulsar_ha_reuse]",
    )
    parser.addini("pulsar_ha_reuse", "run on a warm environment (see --pulsar-ha-reuse)", type="bool", default=False)


def configure(config: pytest.Config, settings: HaSettings) -> None:
    """Validate (only the embedded backend keeps environments warm) and remember the choice."""
    wanted = bool(config.getoption("pulsar_ha_reuse") or config.getini("pulsar_ha_reuse"))
    if wanted and settings.backend != "embedded":
        source = "--pulsar-ha-reuse" if config.getoption("pulsar_ha_reuse") else "ini pulsar_ha_reuse"
        raise pytest.UsageError(
            f"{source}: warm environments run on the embedded backend only, not {settings.backend}; drop the "
            "option or use --pulsar-ha-backend embedded"
        )
    config.stash[REUSE_KEY] = wanted


def reuses(config: pytest.Config) -> bool:
    return config.stash.get(REUSE_KEY, False)


def instance() -> str:
    """This process's share of warm environments: the xdist worker id, '' otherwise."""
    return os.environ.get("PYTEST_XDIST_WORKER", "")


def header(config: pytest.Config, settings: HaSettings) -> str | None:
    if not reuses(config):
        return None
    from pytest_pulsar_ha.warm.description import EnvironmentDescription

    digest = EnvironmentDescription.of(settings, instance()).digest
    return f"pulsar-ha: reuse=on: warm environment {digest} (pulsar-ha status shows it, pulsar-ha down stops it)"


def warm_environment(settings: HaSettings) -> Any:
    """The session's environment from a warm one (attached, or started and left up)."""
    from pytest_pulsar_ha.warm.attach import attach
    from pytest_pulsar_ha.warm.state import WarmStore
    from pytest_pulsar_ha.warm.up import bring_up

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    state, started = bring_up(settings, say, instance())
    say(
        f"\n[pulsar-ha] {'started' if started else 'attached to'} the warm environment {state.digest} "
        f"({state.description.summary()})"
    )
    holder = f"pytest session {' '.join(sys.argv[1:])[:120]!r}"
    return attach(state, WarmStore(settings.cache_dir), settings.registry(), holder, say)
