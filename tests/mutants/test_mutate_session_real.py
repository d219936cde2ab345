"""A user's pytest session with ``--pulsar-ha-mutants=late`` on real clusters (pytester, the plugin as installed):
the case whose window its provider's settings derive kills the late provider; the same case with the window
written two check intervals wider lets it through, and the session says so, naming the window that let it."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha import HaSettings

pytestmark = pytest.mark.real_clusters

# I = 0.5 s, D = 2 s: S = I/2 + D = 2.25 s, the derived window [2.2 s, 2.7 s]; the loose one is two intervals
# (1 s) wider. The late mutant switches at S + I = 2.75 s, its first ack R later: out of the first, inside the
# second.
SCENARIO = """
scenarios:
  - name: derived
    topology: {clusters: [cluster-a, cluster-b]}
    provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], check_interval: 500ms,
               failover_delay: 2s, switch_back_delay: 4s}
    workload: {topics: [{name: t}], rate: 20/s, duration: 16s, send_timeout: 2s, drain_timeout: 15s}
    faults:
      - {kind: outage, cluster: cluster-a, at: 4s, for: 6s}
    expect:
      - switch: {to: cluster-b, within: [2200ms, 2700ms], of: fault_start}
    variants:
      - id: loose
        expect:
          - switch: {to: cluster-b, within: [2200ms, 3700ms], of: fault_start}
"""


def test_a_window_two_intervals_wide_lets_the_late_provider_through_and_the_matrix_says_why(
    pytester: pytest.Pytester, pulsar_ha_settings: HaSettings
) -> None:
    (pytester.path / "late.pulsar-ha.yaml").write_text(SCENARIO)
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--pulsar-ha-mutants=late",
        f"--pulsar-ha-cache-dir={pulsar_ha_settings.cache_dir}",
        f"--pulsar-ha-pulsar-version={pulsar_ha_settings.pulsar_version}",
        "--pulsar-ha-clusters=cluster-a,cluster-b",
        timeout=600,
    )
    # the two unmutated baselines pass first, the killed mutant passes, the survivor fails
    result.assert_outcomes(passed=3, failed=1)
    # fnmatch patterns: ? stands for each square bracket (a [...] would be a character class)
    result.stdout.fnmatch_lines(
        [
            "*mutant late survived: switch: held, measured *s (expected first ack by cluster-b within "
            "?2200ms, 3700ms? of fault #0 start); its settings derive ?2.20s, 2.70s?: the scenario's window is "
            "1.00s wider, which let the mutant through",
            "*pulsar-ha kill matrix*",
            "derived  *late  *killed  *switch: measured *s, expected first ack by cluster-b within ?2200ms, 2700ms?*",
            "derived?loose?  *late  *survived  *switch: held, measured *; its settings derive ?2.20s, 2.70s?: the "
            "scenario's window is 1.00s wider, which let the mutant through",
            "mutation score: 1 of 2 applicable mutants killed (50%); 0 not judged",
        ]
    )
