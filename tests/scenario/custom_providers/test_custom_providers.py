"""A custom provider from a test directory (``round_trip.py`` beside this file, not in the package) runs in a
scenario on real clusters; the same provider deliberately broken (it never switches back) fails the scenario's
switch_back expectation, with what was measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.run.conductor import execute
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.loader import load_scenarios

pytestmark = pytest.mark.real_clusters

# Health checks every I = 0.5 s; out after F = 3 failed ones in a row, back after G = 3 good ones. The first
# failed check comes within I of the fault, the switch F - 1 checks later, the first ack R later (budget 0.4 s):
# switch [(F - 1) I, F I + 0.4 s] = [1 s, 1.9 s]; back likewise after the end: [1 s, 1.9 s].
SCENARIO = """
scenarios:
  - name: round-trip
    topology: {clusters: [cluster-a, cluster-b]}
    provider:
      kind: custom
      factory: tests.scenario.custom_providers.round_trip:build
      primary: cluster-a
      args: {secondary: cluster-b, failures: 3, recoveries: 3, interval_s: 0.5}
    workload: {topics: [{name: t}], rate: 10/s, duration: 20s, send_timeout: 2s}
    faults:
      - {kind: outage, cluster: cluster-a, at: 4s, for: 6s}
    expect:
      - switch: {to: cluster-b, within: [1s, 1900ms], of: fault_start}
      - switch_back: {to: cluster-a, within: [1s, 1900ms]}
      - no_loss: true
      - max_duplicates: 200
    variants:
      - id: never-back
        description: "Deliberately broken: it forgets to switch back."
        provider: {args: {recoveries: 0}}
"""


@pytest.fixture
def cases(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "custom.pulsar-ha.yaml"
    path.write_text(SCENARIO)
    return {case.id: case for case in load_scenarios(path)}


def test_a_custom_provider_from_a_test_directory_fails_over_and_back(
    pulsar_ha: PulsarHaEnvironment, pulsar_ha_spark: Any, tmp_path: Path, cases: dict[str, Any]
) -> None:
    result = execute(cases["round-trip"], pulsar_ha, evidence_dir=tmp_path / "ok", spark=lambda: pulsar_ha_spark)
    assert result.outcome == "passed", result.describe()
    assert result.figures is not None
    (fault,) = result.figures.faults
    assert fault.switch_s is not None and fault.switch_back_s is not None  # its own switch events, both ways


def test_a_broken_custom_provider_fails_switch_back_with_the_measurement(
    pulsar_ha: PulsarHaEnvironment, pulsar_ha_spark: Any, tmp_path: Path, cases: dict[str, Any]
) -> None:
    result = execute(
        cases["round-trip[never-back]"], pulsar_ha, evidence_dir=tmp_path / "broken", spark=lambda: pulsar_ha_spark
    )
    assert result.outcome == "failed"
    verdicts = {c.name: c for c in result.checks}
    assert verdicts["switch"].ok and verdicts["no_loss"].ok  # it did fail over, and lost nothing
    back = verdicts["switch_back"]
    assert not back.ok
    assert back.measured == "no send acknowledged by cluster-a after it"
    assert "[FAIL] switch_back: expected first ack by cluster-a within [1s, 1900ms] of fault #0 end" in (
        result.describe()
    )
    assert result.side_by_side is not None and result.side_by_side.switch_back_s is None
    assert result.figures is not None and result.figures.faults[0].switch_back_s is None
