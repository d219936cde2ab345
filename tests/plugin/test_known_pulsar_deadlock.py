"""A run stopped by a known Pulsar deadlock is an expected failure naming the defect and its dump; an unknown
deadlock, or a known one beside a run that passed, is not.

Real pytest collection of a scenario file, the plugin's real runner and summary; only ``execute`` (which would
need clusters) is replaced by one that returns the result a deadlocked run gives.
"""

from __future__ import annotations

import pytest

SCENARIO = """
scenarios:
  - name: moving
    topology: {clusters: [cluster-a]}
    workload: {topics: [{name: t}], rate: 10/s, duration: 2s}
    expect:
      - no_loss: true
"""

CONFTEST = """
import pytest
from pytest_pulsar_ha.checks.deadlocks import Deadlock, KNOWN_DEADLOCKS, known_deadlock
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.pytest import runner as scenario_runner

OUTCOME = {outcome!r}
KNOWN = {known!r}

@pytest.fixture(scope="session")
def pulsar_ha():
    return object()

def fake_execute(case, env, *, evidence_dir, spark, seed=None):
    evidence_dir.mkdir(parents=True, exist_ok=True)
    result = scenario_runner.ScenarioResult(case.id, OUTCOME, 7)
    block = "\\n".join(KNOWN_DEADLOCKS[0].frames) if KNOWN else "Found one Java-level deadlock: elsewhere"
    result.deadlocks.append(Deadlock("blue", ("pulsar-io-18-3(tid=133)",), block, known_deadlock(block)))
    dump = evidence_dir / "blue-deadlock.txt"
    dump.write_text(block)
    result.evidence["blue deadlock"] = dump
    if OUTCOME != "passed":
        result.checks.append(CheckResult("no_loss", False, "every send received", "lost=3"))
    return result

scenario_runner.execute = fake_execute
"""


def _run(pytester: pytest.Pytester, outcome: str, known: bool) -> pytest.RunResult:
    pytester.makeconftest(CONFTEST.format(outcome=outcome, known=known))
    (pytester.path / "moving.pulsar-ha.yaml").write_text(SCENARIO)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rxXf")


@pytest.mark.parametrize("outcome", ["failed", "deviated"])
def test_a_known_deadlock_is_an_expected_failure_with_the_defect_and_its_dump(
    pytester: pytest.Pytester, outcome: str
) -> None:
    result = _run(pytester, outcome, known=True)
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines(["*XFAIL*moving*Pulsar deadlocked on blue*apache/pulsar/pull/26111*"])
    assert "blue-deadlock.txt" in result.stdout.str()
    result.stdout.fnmatch_lines(["xfailed*moving"])


def test_an_unknown_deadlock_fails(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "deviated", known=False)
    result.assert_outcomes(failed=1)


def test_a_run_that_passed_stays_a_pass(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "passed", known=True)
    result.assert_outcomes(passed=1)
