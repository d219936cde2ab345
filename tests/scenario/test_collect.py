"""pytest collection of scenario files (pytester, with a fake `pulsar_ha` and a fake runner: no clusters)."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.pytest.collect import SCENARIO_FIXTURES, ScenarioItem
from pytest_pulsar_ha.scenario import ScenarioCase

from .helpers import dedent, runner_calls

TWO_SCENARIOS = dedent(
    """
    scenarios:
      - name: primary-outage
        marks: [failover]
        seed: 7
        provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s, switch_back_delay: 4s}
        workload: {duration: 30s}
        faults:
          - {kind: outage, cluster: cluster-a, at: 5s, for: 12s}
        expect:
          - {switch: {to: cluster-b, within: [2s, 8s]}}
        variants:
          - {id: tcp-probe, provider: {probe: tcp}}
          - {id: slow, marks: [failover, slow]}
      - name: steady
        workload: {duration: 10s}
        expect: [{no_loss: true}]
    """
)

ONE_SCENARIO = "scenarios:\n  - {name: one, workload: {duration: 1s}, expect: [{no_loss: true}]}\n"

BROKEN = dedent(
    """
    scenarios:
      - name: broken
        provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_dealy: 2s, switch_back_delay: 4s}
        workload: {duration: 30s}
        faults:
          - {kind: outage, cluster: cluster-a, at: 5s, for: 10 seconds}
        expect: [{no_loss: true}]
    """
)


def test_scenarios_and_variants_are_collected_with_ids_and_marks(scenario_dir: pytest.Pytester) -> None:
    scenario_dir.makefile(".pulsar-ha.yaml", failover=TWO_SCENARIOS)
    items, _ = scenario_dir.inline_genitems()
    assert [item.nodeid for item in items] == [
        "failover.pulsar-ha.yaml::primary-outage",
        "failover.pulsar-ha.yaml::primary-outage[tcp-probe]",
        "failover.pulsar-ha.yaml::primary-outage[slow]",
        "failover.pulsar-ha.yaml::steady",
    ]
    assert all(isinstance(item, ScenarioItem) for item in items)
    marks = {item.name: sorted(m.name for m in item.iter_markers()) for item in items}
    assert marks == {
        "primary-outage": ["failover", "pulsar_ha_scenario", "real_clusters"],
        "primary-outage[tcp-probe]": ["failover", "pulsar_ha_scenario", "real_clusters"],
        "primary-outage[slow]": ["failover", "pulsar_ha_scenario", "real_clusters", "slow"],
        "steady": ["pulsar_ha_scenario", "real_clusters"],
    }
    first = items[0]
    assert isinstance(first, ScenarioItem)
    assert isinstance(first.case, ScenarioCase)
    assert first.reportinfo() == (first.path, 1, "scenario: primary-outage")
    assert first.location == ("failover.pulsar-ha.yaml", 1, "scenario: primary-outage")
    assert items[1].reportinfo()[1:] == (11, "scenario: primary-outage[tcp-probe]")
    assert first.seed == 7
    assert first.fixturenames[: len(SCENARIO_FIXTURES)] == list(SCENARIO_FIXTURES)
    assert ("scenario_seed", 7) in first.user_properties


def test_the_runner_gets_each_case_with_the_environment(scenario_dir: pytest.Pytester) -> None:
    scenario_dir.makefile(".pulsar-ha.yaml", failover=TWO_SCENARIOS)
    result = scenario_dir.runpytest("-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*failover.pulsar-ha.yaml::primary-outage[[]tcp-probe[]] PASSED*"])
    calls = (scenario_dir.path / "calls.txt").read_text().splitlines()
    assert calls[0] == "primary-outage env=fake-environment seed=7"
    assert runner_calls(scenario_dir) == [
        "primary-outage",
        "primary-outage[tcp-probe]",
        "primary-outage[slow]",
        "steady",
    ]


@pytest.mark.parametrize(
    ("args", "selected"),
    [
        (["-k", "tcp-probe"], ["primary-outage[tcp-probe]"]),
        (["-k", "primary-outage and not slow"], ["primary-outage", "primary-outage[tcp-probe]"]),
        (["-k", "steady"], ["steady"]),
        (["-m", "slow"], ["primary-outage[slow]"]),
        (["-m", "failover"], ["primary-outage", "primary-outage[tcp-probe]", "primary-outage[slow]"]),
        (["failover.pulsar-ha.yaml::primary-outage[slow]"], ["primary-outage[slow]"]),
    ],
)
def test_selection(scenario_dir: pytest.Pytester, args: list[str], selected: list[str]) -> None:
    scenario_dir.makefile(".pulsar-ha.yaml", failover=TWO_SCENARIOS)
    scenario_dir.runpytest(*args).assert_outcomes(passed=len(selected))
    assert runner_calls(scenario_dir) == selected


def test_other_files_are_ignored(scenario_dir: pytest.Pytester) -> None:
    for name in ("failover.yaml", "failover.pulsar-ha.yml", "notes.pulsar-ha.yaml.orig"):
        (scenario_dir.path / name).write_text(BROKEN)
    result = scenario_dir.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert runner_calls(scenario_dir) == []


def test_an_invalid_file_is_a_collection_error_with_every_problem_and_nothing_runs(
    scenario_dir: pytest.Pytester,
) -> None:
    scenario_dir.makefile(".pulsar-ha.yaml", good=TWO_SCENARIOS, broken=BROKEN)
    result = scenario_dir.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting broken.pulsar-ha.yaml*",
            "invalid scenario file:",
            "broken.pulsar-ha.yaml:3: scenarios[0].provider: missing required key 'failover_delay'",
            "broken.pulsar-ha.yaml:3: scenarios[0].provider: unknown key 'failover_dealy'; "
            "did you mean 'failover_delay'?",
            "broken.pulsar-ha.yaml:6: scenarios[0].faults[0].for: expected a duration like 500ms, 3s or 1m, "
            "found '10 seconds'",
            "*short test summary info*",
            "ERROR broken.pulsar-ha.yaml",
            "*Interrupted: 1 error during collection*",
        ]
    )
    out = result.stdout.str()
    assert "Traceback" not in out and "ScenarioError" not in out and "loader.py" not in out
    assert "Input should be" not in out
    assert runner_calls(scenario_dir) == []


def test_file_paths_in_messages_are_relative_to_the_invocation_directory(scenario_dir: pytest.Pytester) -> None:
    scenario_dir.mkdir("scenarios")
    scenario_dir.makefile(".pulsar-ha.yaml", **{"scenarios/broken": BROKEN})
    result = scenario_dir.runpytest("scenarios")
    result.stdout.fnmatch_lines(["scenarios/broken.pulsar-ha.yaml:6: scenarios[[]0[]].faults[[]0[]].for: *"])


def test_a_failed_expectation_shows_its_plain_message(scenario_dir: pytest.Pytester) -> None:
    scenario_dir.makefile(
        ".pulsar-ha.yaml",
        failing=dedent(
            """
            scenarios:
              - name: late-switch
                description: "fail: switch to cluster-b: expected within [2s, 8s] of the fault's start, observed 11.2s"
                workload: {duration: 10s}
                expect: [{no_loss: true}]
              - name: crashing
                description: "crash: boom"
                workload: {duration: 10s}
                expect: [{no_loss: true}]
            """
        ),
    )
    result = scenario_dir.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ scenario: late-switch _*",
            "switch to cluster-b: expected within [[]2s, 8s[]] of the fault's start, observed 11.2s",
            "*_ scenario: crashing _*",
        ]
    )
    out = result.stdout.str()
    failure = out[out.index("scenario: late-switch _") : out.index("scenario: crashing _")]
    assert "Traceback" not in failure and "raise" not in failure and "ScenarioFailed" not in failure
    assert "RuntimeError: crash: boom" in out  # anything else keeps its traceback
    result.stdout.fnmatch_lines(["FAILED failing.pulsar-ha.yaml::late-switch - switch to cluster-b*"])


def test_fixtures_of_every_scope_work_for_scenarios(scenario_dir: pytest.Pytester) -> None:
    scenario_dir.makefile(".pulsar-ha.yaml", a=TWO_SCENARIOS, b=TWO_SCENARIOS)
    scenario_dir.makeconftest(
        (scenario_dir.path / "conftest.py").read_text()
        + "\n\n"
        + dedent(
            """
            EVENTS = []

            @pytest.fixture(scope="session")
            def pulsar_ha():
                EVENTS.append("session-setup")
                yield "fake-environment"
                EVENTS.append("session-teardown")

            @pytest.fixture(scope="module", autouse=True)
            def per_file(request):
                EVENTS.append(f"module-setup {request.module.__name__}")
                yield
                EVENTS.append("module-teardown")

            @pytest.fixture(autouse=True)
            def per_test(request):
                EVENTS.append(f"test {request.node.name} {request.node.pulsar_ha}")
                yield

            @pytest.fixture
            def extra():
                return 42

            def fake_runner(item, case):
                EVENTS.append(f"run {case.id} extra={item.getfixturevalue('extra')}")

            def pytest_sessionfinish(session):
                (session.config.rootpath / "events.txt").write_text("\\n".join(EVENTS))
            """
        )
    )
    scenario_dir.runpytest("-k", "steady or tcp").assert_outcomes(passed=4)
    assert (scenario_dir.path / "events.txt").read_text().splitlines() == [
        "session-setup",
        "module-setup pulsar_ha_scenarios:a.pulsar-ha.yaml",
        "test primary-outage[tcp-probe] fake-environment",
        "run primary-outage[tcp-probe] extra=42",
        "test steady fake-environment",
        "run steady extra=42",
        "module-teardown",
        "module-setup pulsar_ha_scenarios:b.pulsar-ha.yaml",
        "test primary-outage[tcp-probe] fake-environment",
        "run primary-outage[tcp-probe] extra=42",
        "test steady fake-environment",
        "run steady extra=42",
        "module-teardown",
        "session-teardown",
    ]


def test_a_conftest_runs_the_scenarios_through_the_plugin_hook(pytester: pytest.Pytester) -> None:
    """``pytest_pulsar_ha_run_scenario`` in a conftest.py handles every scenario; the plugin's own runner (the
    last implementation) is never reached, so no cluster starts."""
    pytester.makeconftest(
        dedent(
            """
            import pytest

            @pytest.fixture(scope="session")
            def pulsar_ha():
                return "fake-environment"

            def pytest_pulsar_ha_run_scenario(item, case):
                with open("ran.txt", "a") as out:
                    out.write(f"{case.id} {item.pulsar_ha}\\n")
                return True
            """
        )
    )
    pytester.makefile(
        ".pulsar-ha.yaml", one="scenarios:\n  - {name: one, workload: {duration: 1s}, expect: [{no_loss: true}]}\n"
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert (pytester.path / "ran.txt").read_text() == "one fake-environment\n"


def test_a_missing_runner_fails_the_scenario_clearly(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        dedent(
            """
            import pytest
            from pytest_pulsar_ha.pytest.collect import collect_scenario_file

            def pytest_collect_file(parent, file_path):
                return collect_scenario_file(parent, file_path)

            @pytest.fixture(scope="session")
            def pulsar_ha():
                return "fake-environment"
            """
        )
    )
    pytester.makefile(
        ".pulsar-ha.yaml", one="scenarios:\n  - {name: one, workload: {duration: 1s}, expect: [{no_loss: true}]}\n"
    )
    result = pytester.runpytest_inprocess("-p", "no:pulsar_ha")  # the plugin (and its runner) disabled
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no scenario runner: no implementation of the pytest_pulsar_ha_run_scenario hook*"])
