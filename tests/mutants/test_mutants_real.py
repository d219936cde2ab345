"""Mutants on real clusters, run by the library (``execute``): a producer that reports an acknowledgement for a
send it never made is killed by no_loss, and no window sees it. The late provider, killed by the derived window
and let through by a loose one, runs as a user's pytest session does: ``test_mutate_session_real.py``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pytest_pulsar_ha.checks.outcome import ACTS_FACT, Outcome, decide
from pytest_pulsar_ha.mutants.survivors import judged_as
from pytest_pulsar_ha.run.conductor import execute
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.scenario.loader import load_scenarios

pytestmark = pytest.mark.real_clusters
PASSED = Outcome("passed", "the unmutated case passed in this session")

# I = 0.5 s, D = 2 s: S = I/2 + D = 2.25 s, the derived window [2.2 s, 2.7 s]; the loose one is two intervals
# (1 s) wider. The late mutant switches at S + I = 2.75 s, its first ack R later: out of the first, inside the
# second.
SCENARIO = """
scenarios:
  - name: mutated
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 500ms,
               failover_delay: 2s, switch_back_delay: 4s}
    workload: {topics: [{name: t}], rate: 20/s, duration: 22s, send_timeout: 2s, drain_timeout: 15s}
    faults:
      - {kind: outage, cluster: cluster-a, at: 5s, for: 8s}
    expect:
      - switch: {to: cluster-b, within: [2200ms, 2700ms], of: fault_start}
      - switch: {to: cluster-b, within: [2200ms, 3700ms], of: fault_start}
      - no_loss: true
"""


@pytest.fixture
def case(tmp_path: Path) -> Any:
    path = tmp_path / "mutated.pulsar-ha.yaml"
    path.write_text(SCENARIO)
    return load_scenarios(path)[0]


def test_a_producer_that_loses_an_acknowledged_send_is_killed_by_no_loss(
    pulsar_ha: PulsarHaEnvironment, pulsar_ha_spark: Any, tmp_path: Path, case: Any
) -> None:
    result = execute(
        case, pulsar_ha, evidence_dir=tmp_path / "ack", spark=lambda: pulsar_ha_spark, mutant="lose_one_ack"
    )
    tight, loose, no_loss = result.checks
    assert tight.ok and loose.ok, result.describe()  # the provider is the shipped one
    assert not no_loss.ok and re.search(r"(^|, )lost=1(,|$)", no_loss.measured), result.describe()
    assert result.facts[ACTS_FACT] == "1"  # one producer: lost grew by its one act, so the loss is the mutant's
    assert decide(result, case.scenario, mutant=judged_as("lose_one_ack"), baseline=PASSED).kind == "killed"
