"""Where the plugin keeps its state in ``config.stash``: the effective settings, the session's environments, and
what the failure reports read back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_pulsar_ha.settings import HaSettings

if TYPE_CHECKING:
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment  # noqa: F401 (the string keys below)
    from pytest_pulsar_ha.runtime.environment_pool import EnvironmentPool  # noqa: F401

SETTINGS_KEY = pytest.StashKey[HaSettings]()
ENV_KEY = pytest.StashKey["PulsarHaEnvironment"]()
POOL_KEY = pytest.StashKey["EnvironmentPool"]()
SETUP_START_KEY = pytest.StashKey[float]()
FAILURE_LOGS_KEY = pytest.StashKey[list[tuple[str, list[str]]]]()
MARKED_ENV_KEY = pytest.StashKey["PulsarHaEnvironment"]()
