"""Shared pieces of the scenario-model tests."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

#: The inner session's conftest.py: registers the collector (plugin.py does not yet), fakes the `pulsar_ha`
#: environment (no clusters are started) and plugs a runner that records each call in calls.txt. A scenario whose
#: description starts with "fail:" fails with the rest as message; "crash:" raises a RuntimeError.
INNER_CONFTEST = """
import pytest

from pytest_pulsar_ha.scenario import ScenarioFailed
from pytest_pulsar_ha.pytest.collect import RUNNER_KEY, collect_scenario_file


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


def load_text(tmp_path: Path, text: str) -> list[Any]:
    """The scenarios of ``text`` written as ``t.pulsar-ha.yaml`` in ``tmp_path`` (problems raise ScenarioError)."""
    from pytest_pulsar_ha.scenario import load_scenarios

    path = tmp_path / "t.pulsar-ha.yaml"
    path.write_text(text)
    return [case.scenario for case in load_scenarios(path, display_path="t.pulsar-ha.yaml")]


def load_errors(tmp_path: Path, text: str) -> str:
    """The message of the ScenarioError that loading ``text`` raises (fails the test when it loads)."""
    from pytest_pulsar_ha.scenario import ScenarioError

    with pytest.raises(ScenarioError) as info:
        load_text(tmp_path, text)
    return str(info.value)
