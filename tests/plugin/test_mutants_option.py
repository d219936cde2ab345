"""``--pulsar-ha-mutants``: each case once unmutated (the baseline, first), then once per mutant; a kill passes
(noting the expectation), a survivor fails, a mutant that cannot apply is skipped with its reason, a run that
proves nothing (the baseline failed) is not judged, and the kill matrix ends the session.

Real pytest collection of a scenario file, the plugin's real runner and summary; only ``execute`` (which would
need clusters) is replaced by one whose run fails the switch window exactly when the mutant is ``late``.
"""

from __future__ import annotations

import pytest

from tests.plugin.fake_runs import fake_run_conftest

SCENARIO = """
scenarios:
  - name: outage
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 500ms,
               failover_delay: 2s, switch_back_delay: 4s}
    workload: {topics: [{name: t}], rate: 10/s, duration: 20s}
    faults:
      - {kind: outage, cluster: cluster-a, at: 5s, for: 8s}
    expect:
      - switch: {to: cluster-b, within: [2200ms, 2700ms], of: fault_start}
      - no_loss: true
    variants:
      - id: native
        provider: {kind: native}
"""

EXECUTE = """
def fake_execute(case, env, *, evidence_dir, spark, seed=None, mutant=None):
    late = mutant == "late" or (mutant is None and FLAKY)
    result = scenario_runner.ScenarioResult(case.id, "failed" if late else "passed", 7)
    took = 3.25 if late else 2.35
    figures = {"seconds": took, "target_acks": 10}
    result.checks.append(
        CheckResult("switch", not late, "first ack within [2.2s, 2.7s]", f"{took}s", figures=figures, window=(2.2, 2.7))
    )
    result.checks.append(CheckResult("no_loss", True, "every send received", "lost=0"))
    if mutant == "swap_two":  # as the run's mutation part reports a mutant whose trigger never came
        result.facts["mutant_never_acted"] = "the provider never switched in this run"
    return result
"""
CONFTEST = fake_run_conftest(EXECUTE, FLAKY=False)


def _run(pytester: pytest.Pytester, mutants: str) -> pytest.RunResult:
    pytester.makeconftest(CONFTEST)
    (pytester.path / "outage.pulsar-ha.yaml").write_text(SCENARIO)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs", f"--pulsar-ha-mutants={mutants}")


def test_a_killed_mutant_passes_a_survivor_fails_and_the_matrix_says_which(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "late,drop_one")
    result.assert_outcomes(passed=2, failed=1, skipped=3)  # the baseline of outage[native]: no mutant applies
    result.stdout.fnmatch_lines(
        [
            "mutant drop_one survived: no_loss: held, measured lost=0 (expected every send received)",
            "*pulsar-ha kill matrix*",
            "outage  *late  *killed  *switch: measured 3.25s, expected first ack within ?2.2s, 2.7s?",
            "outage  *drop_one  *survived  *no_loss: held, measured lost=0 (expected every send received)",
            "outage?native?  *late  *not applicable  *mutant late cannot apply: it changes our AutoClusterFailover*",
            "outage?native?  *drop_one  *not applicable  *it acts after our provider's first switch; this provider*",
            "mutation score: 1 of 2 applicable mutants killed (50%); 0 not judged",
            "*pulsar-ha scenarios*",
            "passed * outage  (* s)",
            "killed * outage@late  (* s)",
            "survived * outage@drop_one  (* s)",
        ]
    )


def test_a_seeded_flaky_case_kills_no_mutant(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(fake_run_conftest(EXECUTE, FLAKY=True))  # the unmutated run fails its switch window
    (pytester.path / "outage.pulsar-ha.yaml").write_text(SCENARIO)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--pulsar-ha-mutants=late")
    result.assert_outcomes(failed=2, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "*pulsar-ha kill matrix*",
            "outage  *late  *not judged  *the unmutated case failed in this session (switch: measured 3.25s*",
            "mutation score: 0 of 0 applicable mutants killed (-); 1 not judged",
        ]
    )


def test_a_mutant_that_never_acted_is_not_applicable_not_a_survivor(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "swap_two")
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines(
        [
            "outage  *swap_two  *not applicable  *the mutant never acted: the provider never switched in this run; "
            "the run was the shipped code's",
            "mutation score: 0 of 0 applicable mutants killed (-); 0 not judged",
        ]
    )


def test_an_unknown_mutant_is_a_usage_error_that_names_the_valid_ones(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "later")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pulsar-ha-mutants: unknown mutant 'later'; valid: all, late, early*"])


def test_without_the_option_each_case_runs_once_unmutated(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    (pytester.path / "outage.pulsar-ha.yaml").write_text(SCENARIO)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert "kill matrix" not in result.stdout.str()


def test_pulsar_ha_mutate_writes_the_matrix_and_fails_under_its_bar(pytester: pytest.Pytester) -> None:
    import json
    import sys

    pytester.makeconftest(CONFTEST)
    (pytester.path / "outage.pulsar-ha.yaml").write_text(SCENARIO)
    command = [sys.executable, "-m", "pytest_pulsar_ha", "mutate", "--mutants", "late,drop_one", "--out", "mx"]
    result = pytester.run(*command, "--fail-under", "60", "--", "-p", "no:cacheprovider")
    assert result.ret == 1  # 1 of 2 killed: 50% < 60%
    result.stdout.fnmatch_lines(
        [
            "survived: outage @ drop_one: a consumer that loses one message after the switch",
            "mutation score: 1 of 2 applicable mutants killed (50%); 0 not judged; mx/kill-matrix.html",
        ]
    )
    matrix = json.loads((pytester.path / "mx" / "kill-matrix.json").read_text())
    assert [(row["case"], row["mutant"], row["verdict"]) for row in matrix] == [
        ("outage", "late", "killed"),
        ("outage", "drop_one", "survived"),
        ("outage[native]", "late", "not applicable"),
        ("outage[native]", "drop_one", "not applicable"),
    ]
    assert matrix[0]["why"].startswith("switch: measured 3.25s")
    assert "changes our AutoClusterFailover" in matrix[2]["why"]
    assert "<td>survived</td>" in (pytester.path / "mx" / "kill-matrix.html").read_text()
    passing = pytester.run(*command, "--fail-under", "50", "--", "-p", "no:cacheprovider")
    assert passing.ret == 0
