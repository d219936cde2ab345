"""``--pulsar-ha-backend external`` in a pytest run, without clusters: bad clusters files stop the session before
anything starts, the header names the file but no secret, and scenarios that need impossible faults are skipped
with the reason before any environment is asked for."""

from __future__ import annotations

import pytest

CLUSTERS = """\
clusters:
  - {name: cluster-a, service_url: 'pulsar://127.0.0.1:9', admin_url: 'http://127.0.0.1:9', token: TOP-SECRET}
  - {name: cluster-b, service_url: 'pulsar://127.0.0.1:9', admin_url: 'http://127.0.0.1:9', token: TOP-SECRET}
"""

SCENARIO = """\
scenarios:
  - name: killed
    topology: {clusters: [cluster-a, cluster-b], auth: token}
    workload: {duration: 10s}
    faults:
      - {kind: kill, cluster: cluster-a, at: 2s, for: 3s}
    expect:
      - no_loss: true
  - name: hung
    topology: {clusters: [cluster-a, cluster-b], auth: token}
    workload: {duration: 10s}
    faults:
      - {kind: timeout, cluster: cluster-b, at: 2s, for: 3s}
    expect:
      - no_loss: true
"""


def test_a_bad_clusters_file_is_a_usage_error_with_its_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", clusters="clusters:\n  - name: cluster-a\n    service_url: http://x:1\n")
    result = pytester.runpytest("--pulsar-ha-backend", "external", "--pulsar-ha-clusters-file", "clusters.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "ERROR: clusters.yaml:2: clusters[0]: missing required key 'admin_url'" in err
    assert (
        "clusters.yaml:3: clusters[0].service_url: expected a service URL starting with pulsar:// or pulsar+ssl://"
        in err
    )


def test_impossible_faults_are_skipped_before_any_cluster_is_reached(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", clusters=CLUSTERS)
    pytester.makefile(".pulsar-ha.yaml", s=SCENARIO)
    result = pytester.runpytest(
        "--pulsar-ha-backend", "external", "--pulsar-ha-clusters-file", "clusters.yaml", "-rs", "-k", "killed"
    )
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "pulsar-ha: backend=external clusters=cluster-a,cluster-b auth=token * clusters-file=*clusters.yaml",
            "SKIPPED * fault kind kill acts on the cluster's processes, which the harness does not run on the external "
            "backend",
        ]
    )
    result.stdout.no_fnmatch_line("*TOP-SECRET*")
    # the other scenario is possible on paper (route direct makes it impossible: no proxy in the clients' path)
    result = pytester.runpytest(
        "--pulsar-ha-backend", "external", "--pulsar-ha-clusters-file", "clusters.yaml", "-rs", "-k", "hung"
    )
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*fault kind timeout cuts or slows client connections, but cluster-b's clients*"])
