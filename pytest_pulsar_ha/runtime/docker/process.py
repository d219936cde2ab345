"""One cluster process in a container: :class:`~pytest_pulsar_ha.process.processes.ManagedProcess`'s interface
over the Docker API, so the embedded nodes (config writing, readiness, restarts) run unchanged in containers.

The container is created through testcontainers-python (``DockerContainer``) from the backend's image, with host
networking (it binds the ports the harness picked, on loopback, exactly like a local process), the host's user
and group (files in the bind mounts stay the user's), and the directories it needs bind-mounted at the same
paths (conf files, data and logs keep their host paths, and survive a kill). Pulsar's own command line runs
inside, its output appended to the same log file as a local process's. Faults go through the Docker API: kill =
``docker kill`` (SIGKILL, the container is kept and started again on the same data), pause = ``docker pause`` (the
cgroup freezer: every thread of the container at once). Every container carries the run id, the owning
process and this host as labels; :mod:`pytest_pulsar_ha.runtime.docker.reaper` removes those whose owner died.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from pytest_pulsar_ha.errors import StartupError
from pytest_pulsar_ha.process.pid_registry import RUN_ID_ENV, PidRegistry, process_start_ticks
from pytest_pulsar_ha.process.processes import ManagedProcess, tail_lines
from pytest_pulsar_ha.provisioning.docker_engine import RYUK_DISABLED_ENV, ryuk_disabled

if TYPE_CHECKING:
    from docker.models.containers import Container

LABEL_RUN = "pytest-pulsar-ha.run"
LABEL_OWNER_PID = "pytest-pulsar-ha.owner-pid"
LABEL_OWNER_START = "pytest-pulsar-ha.owner-start"
LABEL_HOST = "pytest-pulsar-ha.host"
LABEL_NAME = "pytest-pulsar-ha.name"
IMAGE_PULSAR_HOME = PurePosixPath("/pulsar")
HOST_ONLY_ENV = ("JAVA_HOME",)
"""Not passed into a container: the image's own Java runs Pulsar there, not the host's."""
TO_LOG_FILE = 'exec "$@" >>"$PULSAR_HA_LOG" 2>&1'


def owner_labels(run_id: str, name: str) -> dict[str, str]:
    """The labels that tie a container to this run and this process (what the reaper reads)."""
    owner = os.getpid()
    return {
        LABEL_RUN: run_id,
        LABEL_OWNER_PID: str(owner),
        LABEL_OWNER_START: str(process_start_ticks(owner) or 0),
        LABEL_HOST: socket.gethostname(),
        LABEL_NAME: name,
    }


def container_name(name: str, run_id: str) -> str:
    """``pulsar-ha-broker-cluster-a-0-<run id>-<4 hex>``: readable in ``docker ps``, never taken twice."""
    readable = re.sub(r"[^a-zA-Z0-9_.-]+", "-", name).strip("-")
    return f"pulsar-ha-{readable}-{run_id}-{uuid.uuid4().hex[:4]}"


@dataclass(frozen=True)
class ContainerPlan:
    """Where and how a process runs in a container."""

    image: str
    mounts: tuple[Path, ...]
    """host directories bind-mounted read-write at the same path"""
    host_home: Path | None = None
    """a host directory standing for the image's ``/pulsar`` (the conf templates taken from the image): a command
    under it runs from the image's ``/pulsar``"""
    log_to_file: bool = True
    """run the command through ``sh``, its output appended to the process's log file (Pulsar images have a shell);
    False: the image's own entrypoint runs it (toxiproxy's image has no shell) and the log is the container's"""


def container_argv(argv: Sequence[str], host_home: Path | None) -> list[str]:
    """``argv`` with a program under ``host_home`` moved to the image's ``/pulsar``."""
    program = Path(argv[0])
    if host_home is not None and program.is_relative_to(host_home):
        program_in_image = IMAGE_PULSAR_HOME / program.relative_to(host_home).as_posix()
        return [str(program_in_image), *argv[1:]]
    return list(argv)


def container_env(env: Mapping[str, str], run_id: str, log_path: Path) -> dict[str, str]:
    """The process's own variables (never the host's whole environment), the run id, and its log file."""
    out = {k: v for k, v in env.items() if k not in HOST_ONLY_ENV}
    out[RUN_ID_ENV] = run_id
    out["PULSAR_HA_LOG"] = str(log_path)
    return out


class ContainerProcess(ManagedProcess):
    """A :class:`ManagedProcess` whose process runs in a container of ``plan.image``."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        log_path: Path,
        registry: PidRegistry,
        env: Mapping[str, str] | None = None,
        plan: ContainerPlan,
    ) -> None:
        super().__init__(name, argv, cwd=cwd, log_path=log_path, registry=registry, env=env)
        self.plan = plan
        self.container: Container | None = None
        self._exit_code: int | None = None

    @property
    def command_line(self) -> str:
        return f"{shlex.join(container_argv(self.argv, self.plan.host_home))} (container of {self.plan.image})"

    @property
    def container_id(self) -> str | None:
        return self.container.id if self.container is not None else None

    def start(self) -> None:
        if self.is_running():
            raise RuntimeError(f"{self.name} is already running (container {self.container_id})")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        for mount in self.plan.mounts:
            mount.mkdir(parents=True, exist_ok=True)
        self.note(f"starts: {self.command_line}")
        self.paused = False
        self._exit_code = None
        if self.container is not None:  # killed: the same container, the same mounts and data
            import docker.errors

            try:
                self.container.start()
                return
            except docker.errors.NotFound:
                self.container = None  # removed behind our back (by hand): a new one on the same data
        self.container = self._create_and_start()

    def _create_and_start(self) -> Container:
        from testcontainers.core.container import DockerContainer

        argv = container_argv(self.argv, self.plan.host_home)
        if self.plan.log_to_file:
            entrypoint: list[str] | None = ["/bin/sh", "-c", TO_LOG_FILE, "sh"]
        else:
            entrypoint, argv = [argv[0]], argv[1:]
        env = container_env(self.env, self.registry.run_id, self.log_path)
        spec = DockerContainer(self.plan.image, env=env).with_command(argv)
        for mount in self.plan.mounts:
            spec.with_volume_mapping(str(mount), str(mount), "rw")
        spec.with_name(container_name(self.name, self.registry.run_id))
        spec.with_kwargs(
            entrypoint=entrypoint,
            network_mode="host",
            working_dir=str(self.cwd),
            user=f"{os.getuid()}:{os.getgid()}",
            labels=owner_labels(self.registry.run_id, self.name),
            init=False,
        )
        try:
            spec.start()
        except Exception as exc:
            hint = "" if ryuk_disabled() else f" (testcontainers' Ryuk needs a registry: set {RYUK_DISABLED_ENV}=true)"
            raise StartupError(
                f"{self.name}: the container of {self.plan.image} could not start: {exc}{hint}\n"
                f"command: {self.command_line}"
            ) from exc
        return spec.get_wrapped_container()

    def _state(self) -> dict[str, Any]:
        if self.container is None:
            return {}
        import docker.errors

        try:
            self.container.reload()
        except docker.errors.NotFound:
            return {}
        state: dict[str, Any] = self.container.attrs.get("State", {})
        return state

    def is_running(self) -> bool:
        return bool(self._state().get("Running"))

    def exit_code(self) -> int | None:
        state = self._state()
        if not state:
            return self._exit_code
        return None if state.get("Running") else int(state.get("ExitCode", -1))

    def pause(self) -> None:
        if self.container is not None and self.is_running() and not self.paused:
            self.container.pause()
        self.paused = True

    def resume(self) -> None:
        if self.container is not None and self._state().get("Paused"):
            self.container.unpause()
        self.paused = False

    def kill(self) -> None:
        """SIGKILL every process of the container (a paused one too) and wait until it has exited; the container
        and its data stay for :meth:`start`."""
        if self.container is None:
            return
        import docker.errors

        if self.is_running():
            try:
                self.container.kill()
            except docker.errors.APIError as exc:
                if "is not running" not in str(exc):
                    raise
            deadline = time.monotonic() + 30
            while self.is_running() and time.monotonic() < deadline:
                time.sleep(0.05)
        self.paused = False

    def stop(self, grace_seconds: float = 15.0) -> None:
        """SIGTERM (``docker stop``), SIGKILL after ``grace_seconds``, then remove the container (the data stays in
        the mounts; a later :meth:`start` creates a new container on it)."""
        if self.container is None:
            return
        import docker.errors

        try:
            if self._state().get("Paused"):
                self.container.unpause()  # a frozen JVM cannot handle SIGTERM
            if self.is_running():
                self.container.stop(timeout=max(1, round(grace_seconds)))
            self._keep_container_log()
            self._exit_code = self.exit_code()
            self.container.remove(force=True)
        except docker.errors.NotFound:
            pass  # removed already (a reaper of another run, by hand)
        self.container = None
        self.paused = False

    def run_to_completion(self, timeout: float, hint: str = "") -> None:
        """Run the container until it exits; StartupError (command, last log lines, ``hint``) unless with 0."""
        self.start()
        container = self.container
        if container is None:  # pragma: no cover - start sets it or raises
            raise StartupError(f"{self.name}: no container")
        try:
            code = int(container.wait(timeout=timeout).get("StatusCode", -1))
        except Exception:  # requests' ReadTimeout / ConnectionError: it did not finish in time
            self.stop(grace_seconds=1)
            raise StartupError(self._failure(f"did not finish within {timeout:.0f}s", hint)) from None
        self.stop(grace_seconds=1)
        if code != 0:
            raise StartupError(self._failure(f"exited with code {code}", hint))

    def _container_log(self, count: int | None = None) -> str:
        if self.container is None:
            return ""
        import docker.errors

        try:
            raw: bytes = self.container.logs(tail=count if count is not None else "all")
        except docker.errors.APIError:
            return ""
        return raw.decode(errors="replace")

    def _keep_container_log(self) -> None:
        """The container's own output into the log file before the container goes (when it is not there yet)."""
        if not self.plan.log_to_file:
            with self.log_path.open("a") as log:
                log.write(self._container_log())

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the process's log file; the container's own output when that says nothing (a
        shell or an image that failed before the process wrote a line)."""
        if self.plan.log_to_file:
            text = tail_lines(self.log_path, lines)
            if text.strip() and not text.rstrip().splitlines()[-1].startswith("=== pytest-pulsar-ha"):
                return text
            return text + self._container_log(lines)
        return self._container_log(lines)
