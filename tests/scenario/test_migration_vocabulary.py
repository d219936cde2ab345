"""The PIP-188 vocabulary of scenario files: the `migrate` entry, `initial_position`, and the
producers_redirected and drained_before_redirect expectations; every mistake is reported with file:line before
any cluster starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.run.parts.namespaces import replication_lists
from pytest_pulsar_ha.scenario.faults import MigrateFault

from .helpers import dedent, load_errors, load_text

MIGRATION = dedent(
    """
    scenarios:
      - name: move
        topology:
          clusters: [blue, green, dc3]
          broker_settings: {blue: {clusterMigrationCheckDurationSeconds: 1}}
        provider: {kind: none, primary: blue}
        workload: {duration: 20s, initial_position: latest}
        faults:
          - {kind: migrate, from: blue, to: green, at: 5s}
        expect:
          - producers_redirected: {to: green, within: [0s, 2s]}
          - drained_before_redirect: {from: blue, to: green}
          - no_loss: true
    """
)


def test_the_migration_vocabulary_loads(tmp_path: Path) -> None:
    (scenario,) = load_text(tmp_path, MIGRATION)
    (fault,) = scenario.faults
    assert isinstance(fault, MigrateFault)
    assert (fault.from_, fault.to, fault.scope, fault.prepare, fault.end) == ("blue", "green", "namespaces", True, None)
    assert scenario.workload.initial_position == "latest"
    assert [e.kind for e in scenario.expect] == ["producers_redirected", "drained_before_redirect", "no_loss"]


def test_blue_and_green_do_not_replicate_with_each_other_but_both_do_with_the_third(tmp_path: Path) -> None:
    (scenario,) = load_text(tmp_path, MIGRATION)
    assert replication_lists(scenario, ["blue", "green", "dc3"]) == {
        "blue": ["blue", "dc3"],
        "green": ["green", "dc3"],
        "dc3": ["dc3", "blue", "green"],
    }


def test_without_a_migration_every_cluster_replicates_with_every_other(tmp_path: Path) -> None:
    start = MIGRATION.index("    faults:")
    text = MIGRATION[:start] + "    expect:\n      - no_loss: true\n"
    (scenario,) = load_text(tmp_path, text)
    assert replication_lists(scenario, ["blue", "green"]) == {"blue": ["blue", "green"], "green": ["green", "blue"]}


@pytest.mark.parametrize(
    ("old", "new", "where", "fragment"),
    [
        (
            "broker_settings: {blue: {clusterMigrationCheckDurationSeconds: 1}}",
            "broker_settings: {}",
            "t.pulsar-ha.yaml:9: scenarios[0].faults[0].from:",
            "set topology.broker_settings.blue.clusterMigrationCheckDurationSeconds to a number of seconds > 0",
        ),
        (
            "clusterMigrationCheckDurationSeconds: 1}",
            "clusterMigrationCheckDurationSeconds: 0}",
            "t.pulsar-ha.yaml:9: scenarios[0].faults[0].from:",
            "found 0",
        ),
        (
            "{kind: migrate, from: blue, to: green, at: 5s}",
            "{kind: migrate, from: blue, to: blue, at: 5s}",
            "t.pulsar-ha.yaml:9: scenarios[0].faults[0].to:",
            "expected a cluster other than from ('blue'), found 'blue'",
        ),
        (
            "{kind: migrate, from: blue, to: green, at: 5s}",
            "{kind: migrate, from: blue, to: mauve, at: 5s}",
            "t.pulsar-ha.yaml:9: scenarios[0].faults[0].to:",
            "unknown cluster 'mauve'",
        ),
        (
            "{kind: migrate, from: blue, to: green, at: 5s}",
            "{kind: migrate, from: blue, to: green, at: 5s, scope: topic}",
            "t.pulsar-ha.yaml:9: scenarios[0].faults[0].scope:",
            "expected one of: namespaces, cluster; found 'topic'",
        ),
        (
            "producers_redirected: {to: green, within: [0s, 2s]}",
            "producers_redirected: {to: dc3, within: [0s, 2s]}",
            "t.pulsar-ha.yaml:11: scenarios[0].expect[0].producers_redirected.to:",
            "no migrate entry in faults redirects clients to 'dc3'",
        ),
        (
            "producers_redirected: {to: green, within: [0s, 2s]}",
            "producers_redirected: {to: green, within: [0s, 2s], of: fault_end}",
            "t.pulsar-ha.yaml:11: scenarios[0].expect[0].producers_redirected.fault:",
            "without a duration",
        ),
        (
            "drained_before_redirect: {from: blue, to: green}",
            "drained_before_redirect: {from: green, to: blue}",
            "t.pulsar-ha.yaml:12: scenarios[0].expect[1].drained_before_redirect:",
            "no migrate entry in faults moves clients from 'green' to 'blue'",
        ),
        (
            "initial_position: latest",
            "initial_position: newest",
            "t.pulsar-ha.yaml:7: scenarios[0].workload.initial_position:",
            "expected one of: earliest, latest; found 'newest'",
        ),
    ],
)
def test_migration_mistakes_are_reported_with_file_and_line(
    tmp_path: Path, old: str, new: str, where: str, fragment: str
) -> None:
    assert MIGRATION.count(old) == 1
    message = load_errors(tmp_path, MIGRATION.replace(old, new))
    assert where in message, message
    assert fragment in message, message


def test_drained_before_redirect_needs_a_consumer(tmp_path: Path) -> None:
    text = MIGRATION.replace("initial_position: latest}", "initial_position: latest, consumers: 0}").replace(
        "          - no_loss: true\n", ""
    )
    message = load_errors(tmp_path, text)
    assert "drained_before_redirect needs at least one consumer, found workload.consumers 0" in message
