"""`expect_failure`: a scenario written to fail reports XFAIL when its expectations fail, and a pass fails the run
(XPASS strict); any other failure stays a failure. Also: scenarios needing their own topology run last."""

from __future__ import annotations

import pytest

from .helpers import dedent

CONFTEST = dedent(
    """
    import pytest

    from pytest_pulsar_ha.pytest.collect import RUNNER_KEY, collect_scenario_file
    from pytest_pulsar_ha.scenario.errors import ExpectedScenarioFailure, ScenarioFailed


    def pytest_collect_file(parent, file_path):
        return collect_scenario_file(parent, file_path)


    @pytest.fixture(scope="session")
    def pulsar_ha():
        return "fake-environment"


    @pytest.fixture(scope="session")
    def pulsar_ha_environments():
        class Pool:
            def get(self, specs):
                return "own:" + ",".join(f"{s.name}:{s.brokers}" for s in specs)
        return Pool()


    def fake_runner(item, case):
        with open(item.config.rootpath / "calls.txt", "a") as calls:
            calls.write(f"{case.id} env={item.pulsar_ha}\\n")
        description = case.scenario.description
        if description.startswith("checks-failed"):
            raise ExpectedScenarioFailure("placement: namespaces per live domain are uneven")
        if description.startswith("deviated"):
            raise ScenarioFailed("steady state after the faults: cluster-a is not healthy")


    def pytest_configure(config):
        config.stash[RUNNER_KEY] = fake_runner
    """
)

FILE = dedent(
    """
    scenarios:
      - name: caught
        description: checks-failed
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, reason: domains are off, issue: "10"}
      - name: passes-unexpectedly
        description: all good
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, reason: domains are off}
      - name: sometimes-passes
        description: all good
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, reason: a race, intermittent: true}
      - name: sometimes-fails
        description: checks-failed
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, reason: a race, intermittent: true}
      - name: broken-environment
        description: deviated
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, reason: domains are off}
      - name: four-brokers
        topology: {clusters: [cluster-a], brokers: {cluster-a: 4}}
        workload: {duration: 1s}
        expect: [{no_loss: true}]
      - name: plain
        workload: {duration: 1s}
        expect: [{no_loss: true}]
    """
)


@pytest.fixture
def run(pytester: pytest.Pytester) -> pytest.RunResult:
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\npulsar_ha_clusters = 2\n")
    pytester.makefile(".pulsar-ha.yaml", t=FILE)
    return pytester.runpytest("-rxXf", "-p", "no:randomly")


def test_an_expected_failure_is_xfail_with_its_reason(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["XFAIL t.pulsar-ha.yaml::caught - domains are off (10)"])


def test_an_unexpected_pass_fails_the_run(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["FAILED t.pulsar-ha.yaml::passes-unexpectedly*XPASS(strict)*"])


def test_any_other_failure_stays_a_failure(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["FAILED t.pulsar-ha.yaml::broken-environment - steady state after the faults*"])
    run.assert_outcomes(passed=2, failed=2, xfailed=2, xpassed=1)


def test_an_intermittent_one_may_pass_and_when_it_fails_it_is_xfail(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["XPASS t.pulsar-ha.yaml::sometimes-passes - a race"])
    run.stdout.fnmatch_lines(["XFAIL t.pulsar-ha.yaml::sometimes-fails - a race"])


def test_a_scenario_of_another_topology_runs_last_on_its_own_environment(
    run: pytest.RunResult, pytester: pytest.Pytester
) -> None:
    calls = (pytester.path / "calls.txt").read_text().splitlines()
    assert calls[-1] == "four-brokers env=own:cluster-a:4"
    assert "plain env=fake-environment" in calls
