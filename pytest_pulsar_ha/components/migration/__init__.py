"""PIP-188 blue-green migration for operators (works without pytest): the target URL checked, the switches,
per-topic status; the preflight, prepare, wait and rollback steps build on them."""

from pytest_pulsar_ha.components.migration.endpoints import ClusterEndpoint, target_url_problems
from pytest_pulsar_ha.components.migration.status import TopicStatus, namespace_status, topic_status, topics_of
from pytest_pulsar_ha.components.migration.switch import (
    MigrationError,
    migration_state,
    rollback_migration,
    start_migration,
)

__all__ = [
    "ClusterEndpoint",
    "MigrationError",
    "TopicStatus",
    "migration_state",
    "namespace_status",
    "rollback_migration",
    "start_migration",
    "target_url_problems",
    "topic_status",
    "topics_of",
]
