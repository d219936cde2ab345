"""The container runner of the docker backend on a real engine: what the embedded nodes ask of a process."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import docker
import docker.errors
import pytest

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.process.ports import free_ports
from pytest_pulsar_ha.process.readiness import HttpWait, TcpWait
from pytest_pulsar_ha.runtime.docker.process import (
    LABEL_HOST,
    LABEL_NAME,
    LABEL_OWNER_PID,
    LABEL_RUN,
    ContainerPlan,
    ContainerProcess,
)

pytestmark = pytest.mark.docker


def _process(tmp_path: Path, image: str, script: str, name: str = "probe") -> ContainerProcess:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return ContainerProcess(
        name,
        ["bash", "-c", script],
        cwd=work,
        log_path=work / "logs" / f"{name}.log",
        registry=PidRegistry(tmp_path / "run"),
        env={"GREETING": "hello from the host", "JAVA_HOME": "/host/only/java"},
        plan=ContainerPlan(image=image, mounts=(work,)),
    )


def _wait_for(path: Path, text: str, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        content = path.read_text() if path.exists() else ""
        if text in content:
            return content
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not in {path} within {seconds}s: {path.read_text() if path.exists() else ''!r}")


def test_runs_on_the_host_network_as_the_host_user_with_its_env_and_labels(
    tmp_path: Path, pulsar_image: str, docker_client: docker.DockerClient
) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.settimeout(30)
    process = _process(
        tmp_path,
        pulsar_image,
        f'echo "$GREETING java=${{JAVA_HOME:-image}} uid=$(id -u)"; echo over-loopback >/dev/tcp/127.0.0.1/{port}; '
        "exec sleep 600",
    )
    try:
        process.start()
        connection, _ = listener.accept()  # the container reached a socket bound on the host's loopback
        with connection:
            assert connection.recv(100) == b"over-loopback\n"
        log = _wait_for(process.log_path, "hello from the host")
        assert f"java=image uid={os.getuid()}" in log  # the host's JAVA_HOME stays on the host
        assert process.is_running() and process.exit_code() is None
        container_id = process.container_id
        labels = docker_client.containers.get(container_id).labels
        assert labels[LABEL_RUN] == process.registry.run_id
        assert labels[LABEL_OWNER_PID] == str(os.getpid())
        assert labels[LABEL_HOST] == socket.gethostname()
        assert labels[LABEL_NAME] == "probe"
    finally:
        process.stop(grace_seconds=1)
        listener.close()
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(container_id)  # stop removes it


def test_kill_keeps_the_container_and_its_data_and_start_runs_it_again(
    tmp_path: Path, pulsar_image: str, docker_client: docker.DockerClient
) -> None:
    script = "echo start >>starts; wc -l <starts >starts.count; exec sleep 600"
    process = _process(tmp_path, pulsar_image, script)
    try:
        process.start()
        first = process.container_id
        _wait_for(process.cwd / "starts.count", "1")
        process.kill()
        assert not process.is_running()
        assert process.exit_code() == 137  # SIGKILL
        process.start()
        assert process.container_id == first  # the same container, on the same mounts
        _wait_for(process.cwd / "starts.count", "2")
        assert process.is_running()
    finally:
        container_id = process.container_id
        process.stop(grace_seconds=1)
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(container_id)
    assert (process.cwd / "starts").read_text().count("start") == 2  # the data outlives the container


def test_pause_freezes_every_process_and_resume_thaws_it(
    tmp_path: Path, pulsar_image: str, docker_client: docker.DockerClient
) -> None:
    process = _process(tmp_path, pulsar_image, "while true; do date +%s%N >>ticks; sleep 0.05; done")
    ticks = process.cwd / "ticks"
    try:
        process.start()
        _wait_for(ticks, "\n")
        process.pause()
        assert process.paused and process.is_running()
        assert docker_client.containers.get(process.container_id).status == "paused"
        frozen = len(ticks.read_text().splitlines())
        time.sleep(1.0)
        assert len(ticks.read_text().splitlines()) == frozen
        process.resume()
        assert not process.paused
        time.sleep(0.5)
        assert len(ticks.read_text().splitlines()) > frozen
        process.pause()
        process.kill()  # a paused container can be killed (the nemesis may kill what it paused)
        assert not process.is_running() and not process.paused
    finally:
        process.stop(grace_seconds=1)


def test_a_start_up_error_carries_the_containers_last_log_lines(tmp_path: Path, pulsar_image: str) -> None:
    (port,) = free_ports(1)
    process = _process(tmp_path, pulsar_image, "echo 'ERROR: no room for the bookie journal' >&2; exit 3")
    try:
        process.start()
        with pytest.raises(StartupError) as failure:
            TcpWait(host="127.0.0.1", port=port, timeout=30, poll_interval=0.2).wait(process)
    finally:
        process.stop(grace_seconds=1)
    message = str(failure.value)
    assert "exited with code 3" in message
    assert "ERROR: no room for the bookie journal" in message
    assert f"container of {pulsar_image}" in message


def test_run_to_completion_reports_the_exit_code_and_output(tmp_path: Path, pulsar_image: str) -> None:
    ok = _process(tmp_path, pulsar_image, "echo metadata written", name="init-ok")
    ok.run_to_completion(timeout=60)
    assert "metadata written" in ok.log_path.read_text()
    assert ok.container is None  # removed once it exited
    failing = _process(tmp_path, pulsar_image, "echo 'cannot reach ZooKeeper'; exit 2", name="init-bad")
    with pytest.raises(StartupError, match=r"(?s)exited with code 2.*cannot reach ZooKeeper.*hint: look at ZK"):
        failing.run_to_completion(timeout=60, hint="look at ZK")


def test_toxiproxy_from_an_image_without_a_shell(tmp_path: Path, toxiproxy_image: str) -> None:
    (port,) = free_ports(1)
    process = ContainerProcess(
        "toxiproxy",
        ["/toxiproxy", "-host", "127.0.0.1", "-port", str(port)],
        cwd=tmp_path,
        log_path=tmp_path / "toxiproxy.log",
        registry=PidRegistry(tmp_path / "run"),
        plan=ContainerPlan(image=toxiproxy_image, mounts=(), log_to_file=False),
    )
    try:
        process.start()
        HttpWait(url=f"http://127.0.0.1:{port}/version", timeout=30, poll_interval=0.1).wait(process)
        assert "Starting Toxiproxy" in process.log_tail()
    finally:
        process.stop(grace_seconds=1)
    assert "Starting Toxiproxy" in (tmp_path / "toxiproxy.log").read_text()  # kept when the container went
