"""Containers left by a killed run, removed by label (testcontainers' Ryuk needs a registry; this does not).

Every container of the docker backend carries the run id, the owning process (pid and start time) and the host
(:func:`pytest_pulsar_ha.runtime.docker.process.owner_labels`). A container of this host whose owner is gone
belongs to a run that died without its teardown (SIGKILL): it is removed. Containers of live runs, of other
hosts on a shared engine, and containers without these labels are never touched.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_pulsar_ha.process.pid_registry import process_start_ticks
from pytest_pulsar_ha.runtime.docker.process import (
    LABEL_HOST,
    LABEL_NAME,
    LABEL_OWNER_PID,
    LABEL_OWNER_START,
    LABEL_RUN,
)

if TYPE_CHECKING:
    import docker


@dataclass(frozen=True)
class ReapedContainer:
    container_id: str
    name: str
    run_id: str
    owner_pid: int


def owner_alive(labels: dict[str, str]) -> bool:
    """The process named by the labels still runs (same pid and start time); unreadable labels count as alive."""
    try:
        pid, start = int(labels[LABEL_OWNER_PID]), int(labels[LABEL_OWNER_START])
    except (KeyError, ValueError):
        return True
    return process_start_ticks(pid) == start


def reap_orphan_containers(client: docker.DockerClient, host: str | None = None) -> list[ReapedContainer]:
    """Remove (force) the containers of this host whose owning run is dead; return what was removed."""
    import docker.errors

    host = host or socket.gethostname()
    reaped = []
    for container in client.containers.list(all=True, filters={"label": [LABEL_RUN, f"{LABEL_HOST}={host}"]}):
        labels = dict(container.labels)
        if owner_alive(labels):
            continue
        try:
            container.remove(force=True)
        except docker.errors.NotFound:
            continue  # another reaper was first
        reaped.append(
            ReapedContainer(
                container_id=container.id or "",
                name=labels.get(LABEL_NAME, container.name or ""),
                run_id=labels.get(LABEL_RUN, ""),
                owner_pid=int(labels.get(LABEL_OWNER_PID, "0") or 0),
            )
        )
    return reaped


def reap_if_engine() -> list[ReapedContainer]:
    """:func:`reap_orphan_containers` when docker-py is installed and an engine answers; [] otherwise."""
    from pytest_pulsar_ha.provisioning.docker_engine import engine_unreachable_reason

    if engine_unreachable_reason() is not None:
        return []
    import docker

    client = docker.from_env(timeout=60)
    try:
        return reap_orphan_containers(client)
    finally:
        client.close()
