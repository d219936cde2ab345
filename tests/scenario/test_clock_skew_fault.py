"""The clock_skew fault's model (exactly one of ahead and behind, its offset and label) and its primitive's
refusal on a cluster whose clock it cannot move (before the workload starts)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pulsar_ha.nemesis.primitives import fault_context
from pytest_pulsar_ha.runtime.clock import LIBRARY_ENV, ClusterClock
from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios


def scenario_text(fault: str) -> str:
    return f"""scenarios:
  - name: s
    topology: {{clusters: [cluster-a, cluster-b], metadata_sync: pulsar}}
    provider: {{kind: none, primary: cluster-a}}
    workload: {{rate: 5/s, duration: 10s, metadata: {{policy: message_ttl, writers: [cluster-a], every: 1s}}}}
    faults:
      - {fault}
    expect:
      - latest_write_kept: true
"""


def fault_of(fault: str) -> Any:
    (case,) = parse_scenarios(scenario_text(fault), "s.pulsar-ha.yaml")
    return case.scenario.faults[0]


def test_ahead_and_behind_give_a_signed_offset_and_a_label() -> None:
    ahead = fault_of("{kind: clock_skew, cluster: cluster-b, ahead: 30s, at: 1s, for: 5s}")
    behind = fault_of("{kind: clock_skew, cluster: cluster-a, behind: 1500ms, at: 1s, for: 5s}")
    assert (ahead.offset_s, behind.offset_s) == (30.0, -1.5)
    assert ahead.label(0) == "#0 clock_skew cluster-b +30s"
    assert behind.label(2) == "#2 clock_skew cluster-a -1.5s"
    assert ahead.target == "cluster-b" and ahead.end == 6.0
    assert ahead.facts.acts_on == "processes" and not ahead.facts.takes_cluster_down


@pytest.mark.parametrize(
    "fault",
    [
        "{kind: clock_skew, cluster: cluster-b, at: 1s, for: 5s}",
        "{kind: clock_skew, cluster: cluster-b, ahead: 3s, behind: 3s, at: 1s, for: 5s}",
    ],
)
def test_exactly_one_of_ahead_and_behind(fault: str) -> None:
    with pytest.raises(ScenarioError) as raised:
        parse_scenarios(scenario_text(fault), "s.pulsar-ha.yaml")
    assert "s.pulsar-ha.yaml:7: scenarios[0].faults[0].ahead: expected exactly one of ahead or behind" in str(
        raised.value
    )


def test_a_zero_skew_is_refused() -> None:
    with pytest.raises(ScenarioError, match=r"faults\[0\]\.ahead"):
        parse_scenarios(
            scenario_text("{kind: clock_skew, cluster: cluster-b, ahead: 0s, at: 1s, for: 5s}"), "s.pulsar-ha.yaml"
        )


def _target(clock: ClusterClock | None) -> Any:
    cluster = SimpleNamespace(clock=clock, direct_admin_url="http://127.0.0.1:1")
    return SimpleNamespace(env=SimpleNamespace(cluster=lambda name: cluster))


def test_a_cluster_without_a_clock_it_can_move_is_refused_when_the_faults_are_scheduled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fault = fault_of("{kind: clock_skew, cluster: cluster-b, ahead: 30s, at: 1s, for: 5s}")
    with pytest.raises(RuntimeError, match="clock_skew cannot move cluster-b's clock: its backend runs no process"):
        fault_context(_target(None), fault)
    monkeypatch.setenv(LIBRARY_ENV, str(tmp_path / "missing.so"))
    with pytest.raises(RuntimeError, match=r"libfaketime was not found .* apt-get install libfaketime"):
        fault_context(_target(ClusterClock(tmp_path / "cluster-b")), fault)
