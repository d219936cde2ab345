"""Plugin behaviour, tested with pytester: options, validation, report header, lazy imports."""

from __future__ import annotations

import pytest

PASSING = "def test_ok():\n    pass\n"


def test_help_lists_every_option_with_its_ini_name(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    out = result.stdout.str()
    names = ("clusters", "auth", "backend", "pulsar-version", "cache-dir", "heap", "startup-timeout", "seed", "image")
    for name in (*names, "toxiproxy-image"):
        assert f"--pulsar-ha-{name}" in out
    assert "pulsar_ha_clusters" in out


def test_header_shows_the_effective_settings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    result = pytester.runpytest("--pulsar-ha-clusters=east,west", "--pulsar-ha-heap=1g")
    result.stdout.fnmatch_lines(["pulsar-ha: backend=embedded clusters=east,west auth=none pulsar=4.2.4* heap=1g *"])
    assert result.ret == 0


def test_header_names_the_images_of_the_docker_backend(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    result = pytester.runpytest("--pulsar-ha-backend=docker")
    result.stdout.fnmatch_lines(["*backend=docker * image=apachepulsar/pulsar:4.2.4 toxiproxy=binary"])
    pytester.makeini("[pytest]\npulsar_ha_image = mine/pulsar:1\npulsar_ha_toxiproxy_image = mine/toxiproxy:2\n")
    result = pytester.runpytest("--pulsar-ha-backend=docker")
    result.stdout.fnmatch_lines(["*backend=docker * image=mine/pulsar:1 toxiproxy=mine/toxiproxy:2"])


def test_ini_sets_values_and_the_command_line_wins(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\npulsar_ha_clusters = 3\npulsar_ha_heap = 768m\n")
    pytester.makepyfile(PASSING)
    pytester.runpytest().stdout.fnmatch_lines(["*clusters=cluster-a,cluster-b,cluster-c*heap=768m*"])
    pytester.runpytest("--pulsar-ha-clusters=2").stdout.fnmatch_lines(["*clusters=cluster-a,cluster-b auth=none*"])
    pytester.runpytest("--pulsar-ha-auth=token").stdout.fnmatch_lines(["*auth=token pulsar*"])


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (["--pulsar-ha-clusters=0"], "", "*--pulsar-ha-clusters='0' is out of range*count from 1 to 5*"),
        (["--pulsar-ha-clusters=a,a"], "", "*--pulsar-ha-clusters='a,a' names a twice*"),
        (
            ["--pulsar-ha-backend=kubernetes"],
            "",
            "*--pulsar-ha-backend='kubernetes' is not a known backend; valid values: embedded, external, docker*",
        ),
        (
            ["--pulsar-ha-toxiproxy-image=toxiproxy:2"],
            "",
            "*toxiproxy_image='toxiproxy:2' needs backend=docker*",
        ),
        (
            ["--pulsar-ha-pulsar-version=latest"],
            "",
            "*--pulsar-ha-pulsar-version='latest' is not a Pulsar version of the form X.Y.Z*",
        ),
        (
            ["--pulsar-ha-startup-timeout=soon"],
            "",
            "*--pulsar-ha-startup-timeout='soon' is not a positive number*",
        ),
        (
            [],
            "pulsar_ha_heap = lots",
            "*ini pulsar_ha_heap='lots' is not a JVM memory size such as 512m or 1g*",
        ),
        (
            [],
            "pulsar_ha_clusters = Upper",
            "*ini pulsar_ha_clusters='Upper'*cluster name 'Upper' is not valid*",
        ),
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
    result.stdout.no_fnmatch_line("*starting cluster*")


def test_loading_the_plugin_imports_no_heavy_module(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import sys

        def test_light():
            assert "pytest_pulsar_ha.pytest.plugin" in sys.modules
            heavy = [m for m in ("pulsar", "_pulsar", "pyspark", "pyarrow", "matplotlib") if m in sys.modules]
            assert heavy == []
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)


def test_a_session_that_does_not_use_the_fixture_starts_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    result = pytester.runpytest_subprocess("--pulsar-ha-cache-dir", str(pytester.path / "empty-cache"))
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "empty-cache").exists()


def test_tests_that_need_real_clusters_are_marked_and_deselected_without_starting_any(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.fixture
        def namespace(pulsar_ha):
            return "through a fixture"

        def test_plain():
            pass

        def test_direct(pulsar_ha):
            pass

        def test_indirect(namespace):
            pass
        """
    )
    pytester.makefile(
        ".pulsar-ha.yaml",
        t="scenarios:\n  - name: s\n    workload: {duration: 5s}\n"
        "    faults: [{kind: outage, cluster: cluster-a, at: 1s, for: 1s}]\n"
        "    expect: [{no_loss: true}]\n",
    )
    selected = pytester.runpytest("--collect-only", "-q", "-m", "real_clusters")
    listed = selected.stdout.str()
    for name in ("::test_direct", "::test_indirect", "t.pulsar-ha.yaml::s"):
        assert name in listed
    assert "test_plain" not in listed
    without = pytester.runpytest("-m", "not real_clusters")
    without.assert_outcomes(passed=1, deselected=3)
    assert "starting cluster" not in without.stdout.str() + without.stderr.str()
