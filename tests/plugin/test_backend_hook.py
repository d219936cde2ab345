"""A user's own backend through the ``pytest_pulsar_ha_backend`` hook (pytester; no cluster starts): its entry
builds the session's environment and says what it cannot do; a wrong answer is a usage error naming the hook."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.runtime.backends import BACKENDS
from pytest_pulsar_ha.settings import BACKEND_NAMES

CONFTEST = """
from pytest_pulsar_ha.runtime.backends import BackendEntry
from pytest_pulsar_ha.runtime.capabilities import Capabilities


def build(settings, work_dir, registry, progress):
    raise RuntimeError(f"my backend was asked for {','.join(s.name for s in settings.clusters)}")


def pytest_pulsar_ha_backend(settings):
    return BackendEntry("mine", build, lambda settings: None)
"""


def test_the_hook_chooses_the_backend_that_builds_the_environment(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile("def test_uses_clusters(pulsar_ha):\n    pass\n")
    result = pytester.runpytest("--pulsar-ha-clusters=east,west", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*RuntimeError: my backend was asked for east,west*"])
    assert result.ret != 0


def test_an_answer_that_is_no_backend_entry_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("def pytest_pulsar_ha_backend(settings):\n    return 'docker'\n")
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stderr.fnmatch_lines(["*pytest_pulsar_ha_backend returned 'docker'; return a *BackendEntry*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_the_settings_names_are_the_tables() -> None:
    assert tuple(BACKENDS) == BACKEND_NAMES
