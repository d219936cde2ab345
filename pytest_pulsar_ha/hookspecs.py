"""The plugin's own hooks (registered with ``pytest_addhooks``); implement them in a conftest.py or a plugin."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_pulsar_ha_run_scenario(item: Any, case: Any) -> object | None:
    """Run the scenario ``case`` (a :class:`~pytest_pulsar_ha.spec.loader.ScenarioCase`) collected as
    ``item``; raise to fail the test. Return something other than None once handled: the first implementation
    that does ends the call. The plugin's own implementation (it runs last) is the scenario runner on the
    session's real clusters; a conftest.py can run scenarios some other way, e.g. against a fake.
    """
