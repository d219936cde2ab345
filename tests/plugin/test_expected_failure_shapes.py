"""A list of expected failures: each names the versions it was seen on; a run on one of them is XFAIL when it shows
one of the failures that apply there, exactly; anything else fails and says how the run differs from each.

Real pytest collection of a scenario file, the plugin's real runner and summary; only ``execute`` (which would
need clusters) is replaced by one returning a run's verdicts, and the environment by one whose brokers answer a
given version.
"""

from __future__ import annotations

import pytest

from tests.plugin.fake_runs import fake_run_conftest

SCENARIO = """
scenarios:
  - name: shapes
    topology: {clusters: [cluster-a]}
    workload: {topics: [{name: t}], rate: 10/s, duration: 2s}
    expect:
      - no_loss: true
      - ordering: {per: producer}
    expect_failure:
      - expectation: [no_loss, ordering]
        figure: {lost: [10, 100]}
        reason: both break
        versions: [4.0.8, 4.2.4]
      - expectation: no_loss
        figure: {lost: [1, 9]}
        reason: a few are lost
        versions: [4.2.4]
"""

EXECUTE = """
def fake_execute(case, env, *, evidence_dir, spark, seed=None):
    result = scenario_runner.ScenarioResult(case.id, "failed" if LOST or REORDERS else "passed", 7)
    result.facts["pulsar"] = "brokers answer " + ANSWER
    lost = {"lost": LOST}
    result.checks.append(CheckResult("no_loss", not LOST, "every send received", f"lost={LOST}", figures=lost))
    reorders = {"reorders": REORDERS}
    result.checks.append(CheckResult("ordering", not REORDERS, "no reorder", f"reorders={REORDERS}", figures=reorders))
    return result
"""


def _run(pytester: pytest.Pytester, *, version: str, lost: int, reorders: int) -> pytest.RunResult:
    pytester.makeconftest(fake_run_conftest(EXECUTE, version, LOST=lost, REORDERS=reorders))
    (pytester.path / "shapes.pulsar-ha.yaml").write_text(SCENARIO)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rxXf", f"--pulsar-ha-pulsar-version={version}")


@pytest.mark.parametrize(("lost", "reorders"), [(40, 2), (3, 0)])
def test_on_424_either_failure_seen_there_is_xfail(pytester: pytest.Pytester, lost: int, reorders: int) -> None:
    result = _run(pytester, version="4.2.4", lost=lost, reorders=reorders)
    result.assert_outcomes(xfailed=1)


def test_on_408_the_failure_seen_only_on_424_fails(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.0.8", lost=3, reorders=0)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*not the announced failure: expect_failure[[]0[]] names no_loss, ordering: ordering was expected to fail*"]
    )


def test_on_408_the_failure_seen_there_is_xfail(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.0.8", lost=40, reorders=2)
    result.assert_outcomes(xfailed=1)


def test_a_figure_outside_every_shape_fails_naming_each(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.2.4", lost=30, reorders=0)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*not the announced failure: expect_failure[[]0[]] names no_loss, ordering: ordering was expected to "
            "fail and held (measured reorders=0) | expect_failure[[]1[]] names no_loss: no_loss failed with "
            "lost=30, outside the expected range [[]1, 9[]]*"
        ]
    )


def test_where_one_applies_a_pass_is_a_strict_xpass(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.2.4", lost=0, reorders=0)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["failed: the expected failure did not show, every expectation held:*"])


def test_on_a_version_none_was_seen_on_every_expectation_must_hold(pytester: pytest.Pytester) -> None:
    failed = _run(pytester, version="4.2.5", lost=40, reorders=2)
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*expect_failure applies to Pulsar 4.0.8, 4.2.4 only; this run is on*"])
    passed = _run(pytester, version="4.2.5", lost=0, reorders=0)
    passed.assert_outcomes(passed=1)
