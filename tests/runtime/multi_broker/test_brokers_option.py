"""``--pulsar-ha-brokers`` / ini ``pulsar_ha_brokers``: validated like the other options, shown in the header."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha import ClusterSpec, ConfigurationError, HaSettings
from pytest_pulsar_ha.settings.clusters import MAX_BROKERS, parse_brokers

PASSING = "def test_ok():\n    pass\n"


def test_help_lists_the_option_with_its_ini_name(pytester: pytest.Pytester) -> None:
    out = pytester.runpytest("--help").stdout.str()
    assert "--pulsar-ha-brokers" in out
    assert "pulsar_ha_brokers" in out


def test_header_shows_one_broker_by_default_and_the_value_given(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    pytester.runpytest().stdout.fnmatch_lines(["pulsar-ha: backend=embedded clusters=cluster-a,cluster-b *brokers=1 *"])
    result = pytester.runpytest("--pulsar-ha-brokers=3")
    result.stdout.fnmatch_lines(["pulsar-ha: *heap=512m brokers=3 startup-timeout=*"])
    assert result.ret == 0


def test_ini_sets_the_count_and_the_command_line_wins(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\npulsar_ha_brokers = 4\n")
    pytester.makepyfile(PASSING)
    pytester.runpytest().stdout.fnmatch_lines(["*brokers=4 *"])
    pytester.runpytest("--pulsar-ha-brokers=2").stdout.fnmatch_lines(["*brokers=2 *"])


def test_every_cluster_gets_the_count(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_specs(pulsar_ha_settings):
            assert [(s.name, s.brokers) for s in pulsar_ha_settings.clusters] == [("east", 2), ("west", 2)]
        """
    )
    pytester.runpytest("--pulsar-ha-clusters=east,west", "--pulsar-ha-brokers=2").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (["--pulsar-ha-brokers=0"], "", "*--pulsar-ha-brokers='0' is not a broker count*from 1*to 8*"),
        (["--pulsar-ha-brokers=9"], "", "*--pulsar-ha-brokers='9' is not a broker count*"),
        (["--pulsar-ha-brokers=two"], "", "*--pulsar-ha-brokers='two' is not a broker count*"),
        ([], "pulsar_ha_brokers = -1", "*ini pulsar_ha_brokers='-1' is not a broker count*"),
    ],
)
def test_bad_values_are_usage_errors_naming_the_option(
    pytester: pytest.Pytester, args: list[str], ini: str, message: str
) -> None:
    if ini:
        pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(PASSING)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize("value", ["1", " 2 ", str(MAX_BROKERS)])
def test_parse_brokers_accepts_whole_numbers_in_range(value: str) -> None:
    assert parse_brokers(value) == int(value)


def test_spec_rejects_more_brokers_than_the_machine_can_hold() -> None:
    with pytest.raises(ConfigurationError, match=f"more than {MAX_BROKERS}"):
        ClusterSpec("a", brokers=MAX_BROKERS + 1)


def test_header_names_per_cluster_counts_when_they_differ() -> None:
    settings = HaSettings(clusters=(ClusterSpec("a", brokers=2), ClusterSpec("b")))
    assert "brokers=a:2,b:1 " in settings.describe()
