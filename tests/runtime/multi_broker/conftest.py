"""Environments of their own for the multi-broker tests (one at a time, each for one module)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest

from pytest_pulsar_ha.runtime.backends import build_environment
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec

EnvironmentFactory = Callable[..., AbstractContextManager[PulsarHaEnvironment]]


@pytest.fixture(scope="module")
def start_environment(pulsar_ha_settings: HaSettings, tmp_path_factory: pytest.TempPathFactory) -> EnvironmentFactory:
    """``with start_environment(ClusterSpec(...), ...) as env:`` starts that topology with this run's settings
    (cache, heap, timeout) and stops every process at the end, printing the bring-up time."""

    @contextmanager
    def start(*specs: ClusterSpec) -> Iterator[PulsarHaEnvironment]:
        settings = dataclasses.replace(pulsar_ha_settings, clusters=specs)
        env = build_environment(settings, work_dir=tmp_path_factory.mktemp("multi-broker"))
        env.start()
        try:
            steps = {name: getattr(c.node, "start_seconds", {}) for name, c in env.clusters.items()}
            print(f"\n[multi-broker] brokers={settings.describe_brokers()} up in {env.startup_seconds:.0f}s: {steps}")
            yield env
        finally:
            began = time.monotonic()
            env.close()
            print(f"[multi-broker] stopped in {time.monotonic() - began:.0f}s")

    return start
