"""``--pulsar-ha-reuse`` / ini ``pulsar_ha_reuse`` without clusters: the header names the warm environment the
session will use (its digest), and a backend that cannot keep environments warm is a usage error."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.warm.description import EnvironmentDescription

PASSING = "def test_ok():\n    pass\n"


def test_the_header_names_the_warm_environment(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    digest = EnvironmentDescription.of(HaSettings(clusters=(ClusterSpec("east"), ClusterSpec("west")))).digest
    result = pytester.runpytest("--pulsar-ha-reuse", "--pulsar-ha-clusters=east,west")
    result.stdout.fnmatch_lines([f"pulsar-ha: reuse=on: warm environment {digest} (pulsar-ha status shows it*"])
    assert result.ret == 0
    pytester.makeini("[pytest]\npulsar_ha_reuse = true\n")
    pytester.runpytest("--pulsar-ha-clusters=east,west").stdout.fnmatch_lines([f"*warm environment {digest}*"])


def test_without_it_no_warm_environment_is_named(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    pytester.runpytest().stdout.no_fnmatch_line("*reuse=on*")


@pytest.mark.parametrize("args", [["--pulsar-ha-reuse"], []])
def test_another_backend_is_a_usage_error(pytester: pytest.Pytester, args: list[str]) -> None:
    if not args:
        pytester.makeini("[pytest]\npulsar_ha_reuse = true\n")
    pytester.makepyfile(PASSING)
    result = pytester.runpytest(*args, "--pulsar-ha-backend", "docker")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    source = "--pulsar-ha-reuse" if args else "ini pulsar_ha_reuse"
    result.stderr.fnmatch_lines([f"*{source}: warm environments run on the embedded backend only, not docker*"])
