"""On real clusters with token authentication (each cluster its own key): green refuses blue's token, which the
redirect would hand it."""

from __future__ import annotations

import pytest

from pytest_pulsar_ha.pips.migration import preflight
from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from tests.pips.migration.conftest import endpoint

TOKEN_CLUSTERS = (
    ClusterSpec("tok-blue", auth="token", broker_settings={"clusterMigrationCheckDurationSeconds": "1"}),
    ClusterSpec("tok-green", auth="token"),
)


@pytest.mark.pulsar_ha_clusters(*TOKEN_CLUSTERS)
def test_credentials_refused(pulsar_ha_marked_environment: PulsarHaEnvironment) -> None:
    env = pulsar_ha_marked_environment
    blue, green = endpoint(env, "tok-blue"), endpoint(env, "tok-green")
    namespace = env.create_geo_namespace(clusters=["tok-blue"])
    problems = preflight(blue, green, [namespace])
    refused = [p for p in problems if p.code == "credentials-refused"]
    assert len(refused) == 1, problems
    assert refused[0].where == "tok-green" and "HTTP 401" in refused[0].what
    # the same check passes when the clients present a token green accepts
    accepted = preflight(blue, green, [namespace], client_token=green.token)
    assert "credentials-refused" not in [p.code for p in accepted]
