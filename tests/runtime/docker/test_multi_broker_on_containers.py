"""A multi-broker cluster on the docker backend: ZooKeeper, the metadata tool, a bookie and two brokers, each a
container; a killed broker comes back on its data, a paused bookie stalls writes until it resumes. Heavy (37 s
here, its own environment): ``make multi-broker`` runs it, ``make test`` does not. (A killed bookie started again at
once cannot register until its old metadata session expires, on any backend: that is not what this shows.)"""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import docker
import pytest

from pytest_pulsar_ha.runtime.backends import build_environment
from pytest_pulsar_ha.runtime.docker.process import LABEL_NAME, LABEL_RUN, ContainerProcess
from pytest_pulsar_ha.runtime.nodes.multi_broker import MultiBrokerNode
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec
from pytest_pulsar_ha.workload.client_setup import create_with_retries
from tests.clients import receive_payloads, send_until_acked

pytestmark = [pytest.mark.docker, pytest.mark.heavy, pytest.mark.real_clusters]


def test_two_brokers_in_containers_survive_a_killed_broker_and_a_paused_bookie(
    tmp_path: Path, pulsar_image: str, docker_client: docker.DockerClient, pulsar_ha_settings: HaSettings
) -> None:
    import pulsar

    settings = dataclasses.replace(
        pulsar_ha_settings, backend="docker", image=pulsar_image, clusters=(ClusterSpec("cluster-a", brokers=2),)
    )
    env = build_environment(settings, work_dir=tmp_path / "env")
    with env:
        cluster = env.cluster("cluster-a")
        node = cluster.node
        assert isinstance(node, MultiBrokerNode)
        services = node.services()
        assert all(isinstance(s.process, ContainerProcess) for s in services)
        names = {
            c.labels[LABEL_NAME]
            for c in docker_client.containers.list(filters={"label": f"{LABEL_RUN}={env.registry.run_id}"})
        }
        assert names == {"zookeeper cluster-a", "bookie cluster-a", "broker cluster-a/0", "broker cluster-a/1"}
        listed = cluster.admin.get("brokers/cluster-a")
        assert sorted(listed) == sorted(b.id for b in cluster.brokers)

        namespace = env.create_geo_namespace()
        topic = f"persistent://{namespace}/t-{uuid.uuid4().hex[:6]}"
        client = env.client("cluster-a", operation_timeout_seconds=10)
        try:
            producer = create_with_retries(lambda: client.create_producer(topic, send_timeout_millis=5000))
            producer.send(b"before")
            broker = node.brokers[1]
            broker.kill()  # the same container is started again, on its data
            assert not broker.is_running()
            broker.start()
            send_until_acked(producer, b"after-broker", deadline_seconds=90)
            consumer = create_with_retries(
                lambda: client.subscribe(topic, "check", initial_position=pulsar.InitialPosition.Earliest)
            )
            wanted = {b"before", b"after-broker"}
            assert receive_payloads(consumer, lambda seen: wanted <= seen, 60) >= wanted
            bookie = node.bookie
            bookie.pause()  # the cgroup freezer: writes stall
            assert docker_client.containers.get(bookie.process.container_id).status == "paused"
            with pytest.raises(pulsar.PulsarException):
                producer.send(b"during-pause")
            bookie.resume()
            send_until_acked(producer, b"after-pause", deadline_seconds=90)
        finally:
            client.close()
    left = docker_client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={env.registry.run_id}"})
    assert left == []  # every container of the environment removed when it closed
