"""`expect_failure`: a scenario written to fail reports XFAIL when exactly its announced failure shows, and a pass
fails the run (the outcome's XPASS strict) unless the entry is intermittent (then XPASS); any other failure stays
a failure. The plugin's real collection and runner (the outcome decided from the verdicts, never from marks); only
``execute`` is a fake. Also: scenarios needing their own topology run last."""

from __future__ import annotations

import pytest

from tests.plugin.fake_runs import fake_run_conftest

from .helpers import dedent

CONFTEST = dedent(
    """
    import pytest

    from pytest_pulsar_ha.pytest.collect import RUNNER_KEY, collect_scenario_file


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


    def pytest_configure(config):
        config.stash[RUNNER_KEY] = fake_runner
    """
)

TOPOLOGIES = dedent(
    """
    scenarios:
      - name: four-brokers
        topology: {clusters: [cluster-a], brokers: {cluster-a: 4}}
        workload: {duration: 1s}
        expect: [{no_loss: true}]
      - name: plain
        workload: {duration: 1s}
        expect: [{no_loss: true}]
    """
)

FILE = dedent(
    """
    scenarios:
      - name: caught
        description: lost
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, figure: {lost: [1, 9]}, reason: domains are off, issue: "10"}
      - name: passes-unexpectedly
        description: all good
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, figure: {lost: [1, 9]}, reason: domains are off}
      - name: sometimes-passes
        description: all good
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, figure: {lost: [1, 9]}, reason: a race, intermittent: true}
      - name: sometimes-fails
        description: lost
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, figure: {lost: [1, 9]}, reason: a race, intermittent: true}
      - name: broken-environment
        description: deviated
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, figure: {lost: [1, 9]}, reason: domains are off}
      - name: no-evidence
        description: unusable
        workload: {duration: 1s}
        expect: [{no_loss: true}]
        expect_failure: {expectation: no_loss, figure: {lost: [1, 9]}, reason: a race, intermittent: true}
    """
)

EXECUTE = """
def fake_execute(case, env, *, evidence_dir, spark, seed=None):
    how = case.scenario.description
    result = scenario_runner.ScenarioResult(case.id, "not decided", 7)
    if how == "unusable":
        result.checks.append(CheckResult("no_loss", False, "all", "the history is not usable", evidence=False))
    else:
        lost = 3 if how in ("lost", "deviated") else 0
        result.checks.append(CheckResult("no_loss", not lost, "all", f"lost={lost}", figures={"lost": lost}))
    if how == "deviated":
        result.problems.append("steady state after the faults: cluster-a is not healthy")
    return result
"""


@pytest.fixture
def run(pytester: pytest.Pytester) -> pytest.RunResult:
    pytester.makeconftest(fake_run_conftest(EXECUTE))
    pytester.makefile(".pulsar-ha.yaml", t=FILE)
    return pytester.runpytest_subprocess("-rxXf", "-p", "no:randomly", "-p", "no:cacheprovider")


def test_an_expected_failure_is_xfail_with_its_reason(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["XFAIL t.pulsar-ha.yaml::caught - expected failure: domains are off: no_loss*lost=3*"])


def test_an_unexpected_pass_fails_the_run(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["FAILED t.pulsar-ha.yaml::passes-unexpectedly - failed: the expected failure d*"])
    run.stdout.fnmatch_lines(["failed: the expected failure did not show, every expectation held: no_loss*"])


def test_any_other_failure_stays_a_failure(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["failed: the run had problems, so it shows no expected failure: steady state after*"])
    run.assert_outcomes(failed=3, xfailed=2, xpassed=1)


def test_an_intermittent_one_may_pass_and_when_it_fails_it_is_xfail(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["XPASS t.pulsar-ha.yaml::sometimes-passes - the intermittent expected failure did not*"])
    run.stdout.fnmatch_lines(["XFAIL t.pulsar-ha.yaml::sometimes-fails - expected failure: a race*"])


def test_a_failure_on_no_evidence_never_shows_an_expected_failure(run: pytest.RunResult) -> None:
    run.stdout.fnmatch_lines(["failed: not the announced failure: *no_loss failed on no evidence*shows nothing"])


def test_a_scenario_of_another_topology_runs_last_on_its_own_environment(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\npulsar_ha_clusters = 2\n")
    pytester.makefile(".pulsar-ha.yaml", t=TOPOLOGIES)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)
    calls = (pytester.path / "calls.txt").read_text().splitlines()
    assert calls[-1] == "four-brokers env=own:cluster-a:4"
    assert "plain env=fake-environment" in calls
