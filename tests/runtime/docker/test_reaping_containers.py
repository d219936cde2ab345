"""A run killed with SIGKILL leaves its containers; the next run (or ``pulsar-ha reap``) removes them by label."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import docker
import docker.errors
import pytest

from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.runtime.docker.process import LABEL_OWNER_PID, LABEL_RUN, ContainerPlan, ContainerProcess
from pytest_pulsar_ha.runtime.docker.reaper import reap_orphan_containers
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import ClusterSpec

pytestmark = pytest.mark.docker

VICTIM = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pytest_pulsar_ha.runtime.docker.process import ContainerPlan, ContainerProcess
    from pytest_pulsar_ha.process.pid_registry import PidRegistry

    work = Path(sys.argv[2])
    process = ContainerProcess(
        "victim", ["sleep", "600"], cwd=work, log_path=work / "victim.log", registry=PidRegistry(work / "run"),
        plan=ContainerPlan(image=sys.argv[1], mounts=(work,)),
    )
    process.start()
    print(process.container_id, flush=True)
    time.sleep(600)
    """
)


def _killed_run(tmp_path: Path, image: str) -> str:
    """Start a run that starts a container, SIGKILL it (no teardown), return the container it left."""
    work = tmp_path / "victim"
    work.mkdir()
    victim = subprocess.Popen(
        [sys.executable, "-c", VICTIM, image, str(work)], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    try:
        container_id = (victim.stdout.readline() if victim.stdout else "").strip()
        assert container_id, "the victim run did not start its container"
    finally:
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        if victim.stdout:
            victim.stdout.close()
    return container_id


def _exists(client: docker.DockerClient, container_id: str) -> bool:
    try:
        client.containers.get(container_id)
    except docker.errors.NotFound:
        return False
    return True


def test_the_next_run_removes_the_containers_of_a_killed_run(
    tmp_path: Path, pulsar_image: str, docker_client: docker.DockerClient, pulsar_ha_settings: HaSettings
) -> None:
    from pytest_pulsar_ha.runtime.docker.backend import build_docker_environment

    left = _killed_run(tmp_path, pulsar_image)
    assert docker_client.containers.get(left).status == "running"  # nobody stopped it
    mine = ContainerProcess(
        "a live run's",
        ["sleep", "600"],
        cwd=tmp_path,
        log_path=tmp_path / "mine.log",
        registry=PidRegistry(tmp_path / "run"),
        plan=ContainerPlan(image=pulsar_image, mounts=(tmp_path,)),
    )
    mine.start()
    said: list[str] = []
    try:
        settings = dataclasses.replace(
            pulsar_ha_settings, backend="docker", image=pulsar_image, clusters=(ClusterSpec("cluster-a"),)
        )
        # the next run: building its environment reaps first (nothing is started here)
        build_docker_environment(
            settings, work_dir=tmp_path / "next", registry=PidRegistry(tmp_path / "run"), progress=said.append
        )
        assert not _exists(docker_client, left)
        assert any("removed leftover container victim" in line for line in said), said
        assert mine.is_running()  # a live run's container is not touched
    finally:
        mine.stop(grace_seconds=1)


def test_pulsar_ha_reap_removes_them_too(tmp_path: Path, pulsar_image: str, docker_client: docker.DockerClient) -> None:
    left = _killed_run(tmp_path, pulsar_image)
    labels = docker_client.containers.get(left).labels
    result = subprocess.run(
        [sys.executable, "-m", "pytest_pulsar_ha", "reap"], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert f"removed leftover container victim of run {labels[LABEL_RUN]}" in result.stdout
    assert not _exists(docker_client, left)
    assert reap_orphan_containers(docker_client) == []
    assert labels[LABEL_OWNER_PID] != str(os.getpid())
