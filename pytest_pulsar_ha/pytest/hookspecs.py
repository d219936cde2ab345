"""The plugin's own hooks (registered with ``pytest_addhooks``); implement them in a conftest.py or a plugin."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_pulsar_ha_run_scenario(item: Any, case: Any) -> object | None:
    """Run the scenario ``case`` (a :class:`~pytest_pulsar_ha.scenario.loader.ScenarioCase`) collected as
    ``item``; raise to fail the test. Return something other than None once handled: the first implementation
    that does ends the call. The plugin's own implementation (it runs last) is the scenario runner on the
    session's real clusters; a conftest.py can run scenarios some other way, e.g. against a fake.
    """


@pytest.hookspec(firstresult=True)
def pytest_pulsar_ha_backend(settings: Any) -> object | None:
    """The backend that runs the session's clusters for ``settings`` (a :class:`~pytest_pulsar_ha.settings.HaSettings`):
    a :class:`~pytest_pulsar_ha.runtime.backends.BackendEntry` (a name, how to build an environment, what faults it
    can give). The first implementation that returns one ends the call; the plugin's own (it runs last) returns the
    built-in backend named by ``--pulsar-ha-backend``. Return your own entry to run the clusters some other way.
    """
