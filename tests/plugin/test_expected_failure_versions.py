"""An expected failure applies to the Pulsar versions it was seen on: there it is XFAIL; on any other version the
scenario is judged like any other (a pass passes, the same failure fails and says why).

Real pytest collection of a scenario file, the plugin's real runner and summary; only ``execute`` (which would
need clusters) is replaced by one returning a run's result, and the environment by one whose brokers answer a
given version.
"""

from __future__ import annotations

import pytest

from tests.plugin.fake_runs import fake_run_conftest

SCENARIO = """
scenarios:
  - name: synced
    topology: {clusters: [cluster-a]}
    workload: {topics: [{name: t}], rate: 10/s, duration: 2s}
    expect:
      - no_loss: true
    expect_failure:
      expectation: no_loss
      figure: {lost: [3, 3]}
      reason: a defect of one release
      issue: apache/pulsar#1
      versions: [4.0.8]
"""

EXECUTE = """
def fake_execute(case, env, *, evidence_dir, spark, seed=None):
    result = scenario_runner.ScenarioResult(case.id, "failed" if FAILS else "passed", 7)
    result.facts["pulsar"] = "brokers answer " + ANSWER
    lost = 3 if FAILS else 0
    figures = {"lost": lost}
    result.checks.append(CheckResult("no_loss", not FAILS, "every send received", f"lost={lost}", figures=figures))
    return result
"""


def _run(
    pytester: pytest.Pytester, *, version: str, fails: bool, backend: str = "embedded", answer: str | None = None
) -> pytest.RunResult:
    pytester.makeconftest(fake_run_conftest(EXECUTE, answer or version, FAILS=fails))
    (pytester.path / "synced.pulsar-ha.yaml").write_text(SCENARIO)
    args = ["-p", "no:cacheprovider", "-rxXf", f"--pulsar-ha-pulsar-version={version}"]
    if backend == "external":
        clusters = pytester.path / "clusters.yaml"
        clusters.write_text(
            "clusters:\n  - {name: cluster-a, service_url: 'pulsar://127.0.0.1:6650', admin_url: 'http://127.0.0.1:8080'}\n"
        )
        args += ["--pulsar-ha-backend=external", f"--pulsar-ha-clusters-file={clusters}"]
    return pytester.runpytest_subprocess(*args)


def test_on_a_version_it_was_seen_on_the_announced_failure_is_xfail(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.0.8", fails=True)
    result.assert_outcomes(xfailed=1)


@pytest.mark.parametrize("backend", ["embedded", "external"])
def test_on_a_version_it_was_seen_on_a_pass_is_a_strict_xpass_on_every_backend(
    pytester: pytest.Pytester, backend: str
) -> None:
    result = _run(pytester, version="4.0.8", fails=False, backend=backend)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["failed: the expected failure did not show, every expectation held:*"])


def test_on_another_version_every_expectation_must_hold_and_then_it_passes(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.2.4", fails=False)
    result.assert_outcomes(passed=1)


def test_on_another_version_the_same_failure_fails_and_says_why(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.2.4", fails=True)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*expect_failure applies to Pulsar 4.0.8 only; this run is on 4.2.4, where every*"])


def test_on_external_clusters_the_brokers_answer_decides(pytester: pytest.Pytester) -> None:
    failed = _run(pytester, version="4.2.4", fails=True, backend="external")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*expect_failure applies to Pulsar 4.0.8 only*"])


def test_brokers_that_cannot_answer_leave_the_sessions_version_to_decide(pytester: pytest.Pytester) -> None:
    result = _run(pytester, version="4.0.8", fails=True, answer="unknown (HTTP 500)")
    result.assert_outcomes(xfailed=1)


@pytest.mark.parametrize(
    ("versions", "message"),
    [("[]", "name at least one Pulsar version"), ("[4.2]", "versions"), ("4.0.8", "versions")],
)
def test_bad_versions_are_refused_at_collection_with_file_and_line(
    pytester: pytest.Pytester, versions: str, message: str
) -> None:
    (pytester.path / "synced.pulsar-ha.yaml").write_text(SCENARIO.replace("versions: [4.0.8]", f"versions: {versions}"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*synced.pulsar-ha.yaml:*"])
    assert message in result.stdout.str()
