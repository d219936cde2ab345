"""Shared pieces of the scenario-model tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: The inner session's conftest.py: registers the collector (plugin.py does not yet), fakes the `pulsar_ha`
#: environment (no clusters are started) and plugs a runner that records each call in calls.txt. A scenario whose
#: description starts with "fail:" fails with the rest as message; "crash:" raises a RuntimeError.
INNER_CONFTEST = """
import pytest

from pytest_pulsar_ha.scenario import ScenarioFailed
from pytest_pulsar_ha.scenario.collect import RUNNER_KEY, collect_scenario_file


def pytest_collect_file(parent, file_path):
    return collect_scenario_file(parent, file_path)


@pytest.fixture(scope="session")
def pulsar_ha():
    return "fake-environment"


def fake_runner(item, case):
    with open(item.config.rootpath / "calls.txt", "a") as calls:
        calls.write(f"{case.id} env={item.pulsar_ha} seed={case.seed}\\n")
    description = case.scenario.description
    if description.startswith("fail:"):
        raise ScenarioFailed(description[len("fail:"):].strip())
    if description.startswith("crash:"):
        raise RuntimeError(description)


def pytest_configure(config):
    config.stash[RUNNER_KEY] = fake_runner
"""

INNER_INI = """
[pytest]
markers =
    failover: failover scenarios
    slow: slow scenarios
"""


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def runner_calls(pytester: pytest.Pytester) -> list[str]:
    """The scenario ids the fake runner was called with, in order."""
    calls = pytester.path / "calls.txt"
    return [line.split(" ", 1)[0] for line in calls.read_text().splitlines()] if calls.exists() else []
