"""An intermittent expected failure counts its XFAIL and XPASS runs across nights, and the trend flags one that
has not shown in UNSEEN_AFTER runs: its evidence is going stale.

The first part runs the plugin for real (pytester; only ``execute`` is faked, returning a verdict that shows the
failure or not) and reads the verdicts it wrote with the nightly runner's reader."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.nightly.records import CaseRecord, RoundRecord, collect_round
from pytest_pulsar_ha.nightly.trend import UNSEEN_AFTER, build_trend

SCENARIO = """
scenarios:
  - name: racy
    topology: {clusters: [cluster-a]}
    workload: {topics: [{name: t}], rate: 10/s, duration: 2s}
    expect:
      - ordering: {per: producer}
    expect_failure:
      expectation: ordering
      figure: {reorders: [1, 3]}
      intermittent: true
      reason: a race
      versions: [4.2.4]
"""

CONFTEST = """
import pytest
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.pytest import runner as scenario_runner

SHOWS = {shows!r}

class Brokers:
    def broker_versions(self):
        return {{"cluster-a": "4.2.4"}}

@pytest.fixture(scope="session")
def pulsar_ha():
    return Brokers()

def fake_execute(case, env, *, evidence_dir, spark, seed=None, judge=None):
    result = scenario_runner.ScenarioResult(case.id, "failed" if SHOWS else "passed", 7)
    result.facts["pulsar"] = "brokers answer 4.2.4"
    reorders = 1 if SHOWS else 0
    result.checks.append(
        CheckResult("ordering", not SHOWS, "no reorder", f"reorders={{reorders}}", figures={{"reorders": reorders}})
    )
    return result

scenario_runner.execute = fake_execute
"""


@pytest.mark.parametrize(("shows", "outcome"), [(True, "xfailed"), (False, "xpassed")])
def test_the_verdict_tells_an_xpass_of_an_intermittent_failure_from_a_pass(
    pytester: pytest.Pytester, shows: bool, outcome: str
) -> None:
    pytester.makeconftest(CONFTEST.format(shows=shows))
    (pytester.path / "racy.pulsar-ha.yaml").write_text(SCENARIO)
    evidence = pytester.path / "evidence"
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--pulsar-ha-pulsar-version=4.2.4", f"--pulsar-ha-evidence-dir={evidence}"
    )
    result.assert_outcomes(**{outcome: 1})
    ((test, found),) = [(t.test, t.outcome) for t in collect_round(pytester.path, "n", 1, 1, "t", 1.0, 0).tests]
    assert (test, found) == ("racy.pulsar-ha.yaml::racy", outcome)


def _rounds(outcomes: list[str]) -> list[RoundRecord]:
    return [
        RoundRecord("night-1", i, i, "t", 1.0, 0, [CaseRecord("s.pulsar-ha.yaml::racy", outcome, seed=i)])
        for i, outcome in enumerate(outcomes)
    ]


def test_one_never_seen_in_enough_runs_is_flagged() -> None:
    trend = build_trend(_rounds(["xpassed"] * UNSEEN_AFTER))
    (case,) = trend.tests
    assert (case.xpassed, case.expected_failures, case.passed, case.failed) == (UNSEEN_AFTER, 0, 0, 0)
    assert len(trend.unseen) == 1 and f"did not show in {UNSEEN_AFTER} runs" in trend.unseen[0]


def test_one_seen_once_or_not_run_enough_is_not_flagged() -> None:
    assert build_trend(_rounds(["xpassed"] * UNSEEN_AFTER + ["xfailed"])).unseen == []
    assert build_trend(_rounds(["xpassed"] * (UNSEEN_AFTER - 1))).unseen == []
