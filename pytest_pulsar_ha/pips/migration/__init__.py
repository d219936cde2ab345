"""PIP-188 blue-green migration for operators (works without pytest): the target URL checked, the preflight, what
prepare creates on green, the switches, per-topic status, the wait and the rollback (:class:`ClusterMigration`);
the command ``pulsar-ha migrate`` runs the same steps."""

from pytest_pulsar_ha.pips.migration.endpoints import ClusterEndpoint, target_url_problems
from pytest_pulsar_ha.pips.migration.migration import ClusterMigration, MigrationNotDone, PreflightFailed
from pytest_pulsar_ha.pips.migration.preflight import PreflightProblem, preflight
from pytest_pulsar_ha.pips.migration.prepare import prepare, subscription_position
from pytest_pulsar_ha.pips.migration.status import TopicStatus, namespace_status, topic_status, topics_of
from pytest_pulsar_ha.pips.migration.switch import (
    AdminCall,
    MigrationError,
    migration_state,
    rollback_migration,
    start_migration,
)

__all__ = [
    "AdminCall",
    "ClusterEndpoint",
    "ClusterMigration",
    "MigrationError",
    "MigrationNotDone",
    "PreflightFailed",
    "PreflightProblem",
    "TopicStatus",
    "migration_state",
    "namespace_status",
    "preflight",
    "prepare",
    "rollback_migration",
    "start_migration",
    "subscription_position",
    "target_url_problems",
    "topic_status",
    "topics_of",
]
