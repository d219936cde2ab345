"""A deadlock is a finding, not an excuse: a run is XFAIL for one only where the scenario declares that known
deadlock for the Pulsar version it ran on and nothing failed that the deadlock does not explain. Anything else
fails and names the deadlock (its dump, threads, version, upstream lead); a deadlock before the faults is an error
of the environment.

Real pytest collection of a scenario file, the plugin's real runner and summary; only ``execute`` (which would
need clusters) is replaced by one returning the result a deadlocked run gives, and the environment by one whose
brokers answer a given version.
"""

from __future__ import annotations

import pytest

DECLARED = """
    expect_failure:
      deadlock: topic-migrated-single-active-consumer
      expectation: [no_loss]
      reason: the migration deadlocks blue
      issue: apache/pulsar#26111 (lead)
      versions: [4.0.8]
"""

SCENARIO = """
scenarios:
  - name: moving
    topology: {{clusters: [blue]}}
    workload: {{topics: [{{name: t}}], rate: 10/s, duration: 2s}}
    expect:
      - no_loss: true
      - ordering: {{per: producer}}
{declared}"""

CONFTEST = """
import pytest
from pytest_pulsar_ha.checks.deadlocks import Deadlock, KNOWN_DEADLOCKS, known_deadlock
from pytest_pulsar_ha.checks.expected_failure import DEADLOCK_PROBLEM_PREFIX
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.pytest import runner as scenario_runner

DEADLOCK = {deadlock!r}   # None, "known", "unknown", "before"
LOST = {lost!r}
REORDERS = {reorders!r}
PROBLEM = {problem!r}
ANSWER = {answer!r}

class Brokers:
    def broker_versions(self):
        return {{"blue": ANSWER}}

@pytest.fixture(scope="session")
def pulsar_ha():
    return Brokers()

def fake_execute(case, env, *, evidence_dir, spark, seed=None, judge=None):
    evidence_dir.mkdir(parents=True, exist_ok=True)
    failing = DEADLOCK is not None or LOST or REORDERS or PROBLEM
    result = scenario_runner.ScenarioResult(case.id, "deviated" if DEADLOCK else "failed" if failing else "passed", 7)
    result.facts["pulsar"] = "brokers answer " + ANSWER
    if DEADLOCK is not None:
        block = "\\n".join(KNOWN_DEADLOCKS[0].frames) if DEADLOCK != "unknown" else "elsewhere"
        deadlock = Deadlock("blue", ("pulsar-io-18-3(tid=133)",), block, known_deadlock(block), DEADLOCK == "before")
        result.deadlocks.append(deadlock)
        dump = evidence_dir / "blue-deadlock.txt"
        dump.write_text(block)
        result.evidence["blue deadlock"] = dump
        result.problems.append(DEADLOCK_PROBLEM_PREFIX + deadlock.describe())
        if DEADLOCK == "before":
            return result
    if PROBLEM:
        result.problems.append(PROBLEM)
    result.checks.append(CheckResult("no_loss", not LOST, "every send received", f"lost={{LOST}}"))
    result.checks.append(CheckResult("ordering", not REORDERS, "no reorder", f"reorders={{REORDERS}}"))
    return result

scenario_runner.execute = fake_execute
"""


def _run(
    pytester: pytest.Pytester,
    *,
    deadlock: str | None = "known",
    lost: int = 3,
    reorders: int = 0,
    problem: str = "",
    declared: bool = True,
    version: str = "4.0.8",
) -> pytest.RunResult:
    pytester.makeconftest(
        CONFTEST.format(deadlock=deadlock, lost=lost, reorders=reorders, problem=problem, answer=version)
    )
    (pytester.path / "moving.pulsar-ha.yaml").write_text(SCENARIO.format(declared=DECLARED if declared else ""))
    return pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-rxXf",
        f"--pulsar-ha-pulsar-version={version}",
        "--pulsar-ha-clusters=blue",  # the scenario's topology: the faked session environment serves it
    )


def test_a_declared_deadlock_on_its_version_that_explains_the_failure_is_xfail(pytester: pytest.Pytester) -> None:
    result = _run(pytester)
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines(["*XFAIL*moving*the migration deadlocks blue*"])
    assert "blue-deadlock.txt" in result.stdout.str() and "apache/pulsar/pull/26111" in result.stdout.str()


def test_a_known_deadlock_the_scenario_does_not_declare_fails_as_a_finding(pytester: pytest.Pytester) -> None:
    result = _run(pytester, declared=False)  # the lost=3 run of issue #26: no longer an excuse
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*Pulsar deadlocked during the run: Pulsar deadlocked on blue*26111*", "  blue deadlock: *blue-deadlock.txt"]
    )
    assert "no expected failure of this scenario declares a deadlock" in result.stdout.str()


def test_a_declared_deadlock_on_another_version_fails(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.2.4")
    result.assert_outcomes(failed=1)
    assert "declares a deadlock on this Pulsar version" in result.stdout.str()


def test_a_failure_the_deadlock_does_not_explain_fails(pytester: pytest.Pytester) -> None:
    result = _run(pytester, reorders=2)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ordering (expect item 1) failed (reorders=2), which the deadlock does not explain*"])


def test_a_problem_the_deadlock_does_not_explain_fails(pytester: pytest.Pytester) -> None:
    result = _run(pytester, problem="fault #0 (kill blue) could not be applied: boom")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*a problem the deadlock does not explain: fault #0 (kill blue) could not be*"])


def test_an_unknown_deadlock_fails(pytester: pytest.Pytester) -> None:
    result = _run(pytester, deadlock="unknown")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*a deadlock this harness does not know*not topic-migrated-single-active-consumer*"])


def test_a_deadlock_before_the_faults_is_an_error_of_the_environment(pytester: pytest.Pytester) -> None:
    result = _run(pytester, deadlock="before")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*deadlocked before the faults started: an error of the environment*"])


def test_without_a_deadlock_the_declared_one_excuses_nothing(pytester: pytest.Pytester) -> None:
    failed = _run(pytester, deadlock=None)
    failed.assert_outcomes(failed=1)
    passed = _run(pytester, deadlock=None, lost=0)
    passed.assert_outcomes(passed=1)
