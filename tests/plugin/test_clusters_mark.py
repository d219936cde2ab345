"""The ``pulsar_ha_clusters`` mark, with pytester and a fake pool (no cluster starts): marked tests get
``environment_specs``, run after the others grouped by topology, are marked ``real_clusters``, and
``pulsar_ha_marked_environment`` is the pool's environment of their specs."""

from __future__ import annotations

import pytest

FAKE_POOL = """
import pytest
from pytest_pulsar_ha.runtime.environment_pool import topology_key

class FakeEnv:
    def __init__(self, specs):
        self.specs = specs
        self.healed = 0

    def heal(self):
        self.healed += 1

class FakePool:
    def __init__(self):
        self.envs = {}
        self.asked = []

    def get(self, specs):
        self.asked.append(tuple(s.name for s in specs))
        return self.envs.setdefault(topology_key(specs), FakeEnv(specs))

POOL = FakePool()

@pytest.fixture(scope="session")
def pulsar_ha_environments():
    return POOL
"""

TESTS = """
import pytest
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from conftest import POOL
from pytest_pulsar_ha.runtime.environment_pool import topology_key

BLUE = ClusterSpec("blue", broker_settings={"clusterMigrationCheckDurationSeconds": "1"})
PAIR = (BLUE, ClusterSpec("green"))
ORDER = []

@pytest.mark.pulsar_ha_clusters(*PAIR)
def test_marked_first(request, pulsar_ha_marked_environment):
    ORDER.append("marked_first")
    assert request.node.environment_specs == PAIR
    assert pulsar_ha_marked_environment.specs == PAIR
    assert request.node.get_closest_marker("real_clusters") is not None

@pytest.mark.pulsar_ha_clusters(ClusterSpec("solo", auth="token"))
def test_other_topology(pulsar_ha_marked_environment):
    ORDER.append("other")
    assert [s.name for s in pulsar_ha_marked_environment.specs] == ["solo"]

def test_plain():
    ORDER.append("plain")

@pytest.mark.pulsar_ha_clusters(*PAIR)
def test_marked_second(pulsar_ha_marked_environment):
    ORDER.append("marked_second")
    assert pulsar_ha_marked_environment is POOL.envs[topology_key(PAIR)]

def test_zz_plain_too():
    ORDER.append("zz")
"""


def test_marked_tests_run_grouped_by_topology_after_the_others(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        FAKE_POOL
        + """
def pytest_sessionfinish(session):
    import test_marked
    print("\\nORDER=" + ",".join(test_marked.ORDER))
    print("ASKED=" + ";".join(",".join(a) for a in POOL.asked))
    print("HEALED=" + ",".join(str(e.healed) for e in POOL.envs.values()))
"""
    )
    pytester.makepyfile(test_marked=TESTS)
    result = pytester.runpytest("-p", "no:randomly", "-s")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(
        ["ORDER=plain,zz,marked_first,marked_second,other", "ASKED=blue,green;blue,green;solo", "HEALED=2,1"]
    )


def test_marked_tests_are_real_clusters_and_deselected_by_the_unit_selection(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FAKE_POOL)
    pytester.makepyfile(test_marked=TESTS)
    result = pytester.runpytest("-p", "no:randomly", "-m", "not real_clusters")
    result.assert_outcomes(passed=2, deselected=3)


@pytest.mark.parametrize(
    "mark",
    ['"blue"', "", 'ClusterSpec("blue"), ClusterSpec("blue")', 'ClusterSpec("blue"), brokers=2'],
)
def test_bad_mark_arguments_are_usage_errors(pytester: pytest.Pytester, mark: str) -> None:
    pytester.makeconftest(FAKE_POOL)
    pytester.makepyfile(
        f"""
        import pytest
        from pytest_pulsar_ha.settings.clusters import ClusterSpec

        @pytest.mark.pulsar_ha_clusters({mark})
        def test_x(pulsar_ha_marked_environment):
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pulsar_ha_clusters*"])


def test_the_fixture_without_the_mark_fails_the_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FAKE_POOL)
    pytester.makepyfile("def test_x(pulsar_ha_marked_environment):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*pulsar_ha_marked_environment needs @pytest.mark.pulsar_ha_clusters*"])


def test_the_mark_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.pulsar_ha_clusters(*cluster_specs):*"])
