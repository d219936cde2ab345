"""The scenario runner's verdicts on real clusters: a window that cannot hold, and a broken workload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.run.conductor import execute
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.loader import load_scenarios
from pytest_pulsar_ha.workload.single_process import SingleProcessWorkload

pytestmark = pytest.mark.real_clusters

IMPOSSIBLE = """
scenarios:
  - name: impossible-window
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 500ms,
               failover_delay: 2s, switch_back_delay: 3s}
    workload: {topics: [{name: t}], rate: 10/s, duration: 14s, send_timeout: 2s}
    faults:
      - {kind: outage, cluster: cluster-a, at: 3s, for: 8s}
    expect:
      - switch: {to: cluster-b, within: [0ms, 500ms], of: fault_start}
      - no_loss: true
"""

BROKEN_WORKLOAD = """
scenarios:
  - name: consumer-skips-messages
    topology: {clusters: [cluster-a, cluster-b]}
    workload: {topics: [{name: t}], rate: 50/s, duration: 8s}
    expect:
      - no_loss: true
"""


def _case(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "case.pulsar-ha.yaml"
    path.write_text(text)
    (case,) = load_scenarios(path)
    return case


def test_a_window_that_cannot_hold_fails_with_measured_next_to_expected(
    pulsar_ha: PulsarHaEnvironment, pulsar_ha_spark: Any, tmp_path: Path
) -> None:
    result = execute(
        _case(tmp_path, IMPOSSIBLE), pulsar_ha, evidence_dir=tmp_path / "ev", spark=lambda: pulsar_ha_spark
    )
    assert result.outcome == "failed"
    (switch,) = [c for c in result.checks if c.name == "switch"]
    assert not switch.ok
    measured = float(switch.measured.removesuffix("s"))
    assert measured > 2.0  # at least the failover delay, far outside [0, 0.5]
    text = result.describe()
    assert "expected first ack by cluster-b within [0ms, 500ms] of fault #0 start; measured" in text
    assert [c.ok for c in result.checks if c.name == "no_loss"] == [True]
    for name in ("history", "timeline", "report", "verdict"):
        assert result.evidence[name].exists(), name
        assert str(result.evidence[name]) in text


def test_a_consumer_that_drops_messages_fails_no_loss_with_examples(
    pulsar_ha: PulsarHaEnvironment, pulsar_ha_spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken client: it acknowledges one message in fifty without ever handing it to the application."""
    real_add = SingleProcessWorkload.__init__

    def broken_init(self: SingleProcessWorkload, *args: Any, **kwargs: Any) -> None:
        real_add(self, *args, **kwargs)
        log_add = self.log.add
        seen = {"receives": 0}

        def add(event: Any) -> Any:
            if event.type == "receive":
                seen["receives"] += 1
                if seen["receives"] % 50 == 0:
                    return event  # dropped: acknowledged on the broker, never recorded as received
            return log_add(event)

        self.log.add = add  # type: ignore[method-assign]

    monkeypatch.setattr(SingleProcessWorkload, "__init__", broken_init)
    result = execute(
        _case(tmp_path, BROKEN_WORKLOAD), pulsar_ha, evidence_dir=tmp_path / "ev", spark=lambda: pulsar_ha_spark
    )
    assert result.outcome == "failed"
    (no_loss,) = result.checks
    assert not no_loss.ok
    assert "lost=" in no_loss.measured and "lost=0" not in no_loss.measured
    assert "examples" in no_loss.details and "seq" in no_loss.details


def test_a_scenario_needing_token_auth_is_refused_on_an_open_environment(
    pulsar_ha: PulsarHaEnvironment, tmp_path: Path
) -> None:
    text = BROKEN_WORKLOAD.replace(
        "topology: {clusters: [cluster-a, cluster-b]}", "topology: {clusters: [cluster-a], auth: token}"
    )
    result = execute(_case(tmp_path, text), pulsar_ha, evidence_dir=tmp_path / "ev", spark=lambda: None)
    assert result.outcome == "failed"
    assert "needs clusters with auth token" in result.describe()
    assert "--pulsar-ha-auth=token" in result.describe()
    # nothing ran when the environment does not fit: the evidence is the verdict alone, which says why
    assert sorted(p.name for p in (tmp_path / "ev").iterdir()) == ["verdict.json"]
    verdict = json.loads((tmp_path / "ev" / "verdict.json").read_text())
    assert verdict["outcome"] == "failed" and verdict["ended"] == "refused"
