"""Overriding the ``pulsar_ha_evidence_dir`` fixture moves everything: the scenarios' evidence and the index page.

The run is real pytest collection of a scenario file and the plugin's real runner and terminal summary; only
``execute`` (which would need clusters) is replaced by one that writes a file where it is told to.
"""

from __future__ import annotations

import pytest

SCENARIO = """
scenarios:
  - name: plumbing
    topology: {clusters: [cluster-a]}
    workload: {topics: [{name: t}], rate: 10/s, duration: 2s}
    expect:
      - no_loss: true
"""

CONFTEST = """
import pytest
from pytest_pulsar_ha.pytest import runner as scenario_runner

@pytest.fixture(scope="session")
def pulsar_ha():
    return object()  # no clusters: execute is replaced below

@pytest.fixture(scope="session")
def pulsar_ha_evidence_dir(tmp_path_factory):
    return tmp_path_factory.getbasetemp() / "custom-evidence"

def fake_execute(case, env, *, evidence_dir, spark, seed=None, judge=None):
    evidence_dir.mkdir(parents=True, exist_ok=True)
    history = evidence_dir / "history.jsonl"
    history.write_text("")
    result = scenario_runner.ScenarioResult(case.id, "passed", 1)
    result.evidence["history"] = history
    return result

scenario_runner.execute = fake_execute
"""


def test_the_index_follows_the_overridden_fixture(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    (pytester.path / "plumbing.pulsar-ha.yaml").write_text(SCENARIO)
    base = pytester.path / "tmp"
    result = pytester.runpytest_subprocess("--basetemp", str(base), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    custom = base / "custom-evidence"
    assert (custom / "plumbing" / "history.jsonl").exists()
    assert (custom / "index.html").exists(), "the index page must be written next to the evidence"
    assert "plumbing/history.jsonl" in (custom / "index.html").read_text()
    assert not (pytester.path / "reports").exists(), "nothing may go to the default evidence directory"
    result.stdout.fnmatch_lines([f"report: {custom / 'index.html'}"])


def test_without_an_override_the_option_decides(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST.replace("def pulsar_ha_evidence_dir", "def _unused_evidence_dir"))
    (pytester.path / "plumbing.pulsar-ha.yaml").write_text(SCENARIO)
    result = pytester.runpytest_subprocess("--pulsar-ha-evidence-dir", "out/ev", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert (pytester.path / "out" / "ev" / "plumbing" / "history.jsonl").exists()
    assert (pytester.path / "out" / "ev" / "index.html").exists()
