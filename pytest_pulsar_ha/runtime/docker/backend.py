"""The docker backend: every cluster process (a standalone, or ZooKeeper, bookie and brokers) in a container.

It is the embedded backend with another process runner: the same nodes write the same conf files, pick the same
ports and wait on the same readiness checks; each process runs in a container of the image
(:class:`~pytest_pulsar_ha.runtime.docker.process.ContainerProcess`) with host networking, so toxiproxy, the
listeners and every fault are exactly those of the embedded backend and all traffic stays on loopback. The conf
templates come from the image itself (``/pulsar/conf``, copied out once per image), so the host needs no Java, no
Maven and no Pulsar distribution; toxiproxy is the binary as for the embedded backend (Go builds it) or, with a
toxiproxy image, a container too.
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.network.listeners import ListenerPlan
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.provisioning.docker_image import default_image, local_pulsar_image
from pytest_pulsar_ha.provisioning.pulsar_distribution import PulsarDistribution
from pytest_pulsar_ha.runtime.docker.process import ContainerPlan, ContainerProcess
from pytest_pulsar_ha.runtime.nodes.common import EmbeddedOptions
from pytest_pulsar_ha.runtime.nodes.multi_broker import MultiBrokerNode
from pytest_pulsar_ha.runtime.nodes.standalone import StandaloneNode, create_node
from pytest_pulsar_ha.settings.clusters import ClusterSpec

if TYPE_CHECKING:
    import docker

    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment
    from pytest_pulsar_ha.settings import HaSettings

OFFICIAL_TOXIPROXY_IMAGE = "ghcr.io/shopify/toxiproxy:2.12.0"
IMAGE_JAVA = Path("/image-java/bin/java")
"""Stands for the image's Java in the options: containers never get the host's JAVA_HOME (the image's runs)."""
TOXIPROXY_IN_IMAGE = Path("/toxiproxy")
"""Where the official toxiproxy image has its server (its entrypoint)."""


def image_home(client: docker.DockerClient, image: str, cache_dir: Path) -> Path:
    """A host directory holding the image's ``/pulsar/conf`` (the conf templates), copied out once per image id."""
    import docker.errors

    image_id = (client.images.get(image).id or image).split(":")[-1][:16]
    home = cache_dir / "docker" / "pulsar-home" / image_id
    if (home / "conf" / "standalone.conf").is_file():
        return home
    home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="staging-", dir=home.parent))
    container = client.containers.create(image, command=["true"], entrypoint=[])
    try:
        chunks, _ = container.get_archive("/pulsar/conf")
        with tarfile.open(fileobj=io.BytesIO(b"".join(chunks))) as archive:
            archive.extractall(staging, filter="data")
    except docker.errors.NotFound:
        raise ProvisioningError(
            f"the image {image} has no /pulsar/conf: the docker backend needs the official Pulsar image's layout "
            "(/pulsar/bin/pulsar, /pulsar/conf)"
        ) from None
    finally:
        container.remove(force=True)
    if not (staging / "conf" / "standalone.conf").is_file():
        shutil.rmtree(staging, ignore_errors=True)
        raise ProvisioningError(f"the image {image} has no /pulsar/conf/standalone.conf")
    try:
        staging.rename(home)
    except OSError:  # another run copied it first
        shutil.rmtree(staging, ignore_errors=True)
    return home


class ContainerFactory:
    """Builds a :class:`ContainerProcess` where the embedded nodes build a ``ManagedProcess`` (same arguments)."""

    def __init__(self, image: str, work_dir: Path, host_home: Path) -> None:
        self.image = image
        self.work_dir = work_dir
        self.host_home = host_home

    def __call__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        log_path: Path,
        registry: PidRegistry,
        env: Mapping[str, str] | None = None,
    ) -> ContainerProcess:
        plan = ContainerPlan(image=self.image, mounts=(self.work_dir,), host_home=self.host_home)
        return ContainerProcess(name, argv, cwd=cwd, log_path=log_path, registry=registry, env=env, plan=plan)


class DockerBackend:
    """Cluster processes in containers of ``image``; the nodes are the embedded backend's."""

    name = "docker"

    def __init__(self, options: EmbeddedOptions, image: str) -> None:
        self.options = options
        self.image = image

    def describe(self) -> str:
        return (
            f"docker (a container per cluster process, host networking, image {self.image}; "
            f"Pulsar {self.options.distribution.version}, heap {self.options.heap})"
        )

    def create(self, spec: ClusterSpec, plans: Sequence[ListenerPlan]) -> StandaloneNode | MultiBrokerNode:
        return create_node(spec, plans, self.options)


def docker_options(
    client: docker.DockerClient, image: str, settings: HaSettings, work_dir: Path, registry: PidRegistry
) -> EmbeddedOptions:
    home = image_home(client, image, settings.cache_dir)
    distribution = PulsarDistribution(home=home, version=settings.pulsar_version, java=IMAGE_JAVA)
    return EmbeddedOptions(
        distribution=distribution,
        work_dir=work_dir,
        registry=registry,
        heap=settings.heap,
        startup_timeout=settings.startup_timeout,
        process_factory=ContainerFactory(image, work_dir, home),
    )


def build_docker_environment(
    settings: HaSettings, *, work_dir: Path, registry: PidRegistry, progress: Progress
) -> PulsarHaEnvironment:
    """A not-yet-started environment on the docker backend (containers of a killed run reaped first)."""
    from pytest_pulsar_ha.provisioning import ensure_toxiproxy
    from pytest_pulsar_ha.provisioning.docker_engine import connect, ensure_image
    from pytest_pulsar_ha.runtime.docker.reaper import reap_orphan_containers
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

    client = connect()
    for reaped in reap_orphan_containers(client):
        progress(f"removed leftover container {reaped.name} of run {reaped.run_id} (owner pid {reaped.owner_pid} died)")
    local = local_pulsar_image(settings.pulsar_version)
    image = ensure_image(
        client,
        settings.image or default_image(settings.pulsar_version),
        progress,
        fallback_hint=(
            f"without a registry, build a local image with `pulsar-ha provision --docker-image` and run with "
            f"--pulsar-ha-image {local}"
        ),
    )
    work_dir.mkdir(parents=True, exist_ok=True)
    backend = DockerBackend(docker_options(client, image, settings, work_dir, registry), image)
    toxiproxy_image = settings.toxiproxy_image
    if not toxiproxy_image:
        try:
            toxiproxy = ensure_toxiproxy(settings.cache_dir, progress)
        except ProvisioningError:
            if shutil.which("go") is not None:
                raise  # Go is there and failed: say why, rather than run something else
            toxiproxy_image = OFFICIAL_TOXIPROXY_IMAGE
            progress(f"no toxiproxy binary and no Go to build one: toxiproxy runs from {toxiproxy_image}")
        else:
            return PulsarHaEnvironment(
                settings.clusters, backend, toxiproxy_binary=toxiproxy, work_dir=work_dir, registry=registry
            )
    toxiproxy_image = ensure_image(
        client,
        toxiproxy_image,
        progress,
        fallback_hint="without a registry, build a local one with `pulsar-ha provision --docker-image` (needs Go)",
    )
    env = PulsarHaEnvironment(
        settings.clusters, backend, toxiproxy_binary=TOXIPROXY_IN_IMAGE, work_dir=work_dir, registry=registry
    )
    server = env.toxiproxy.process
    env.toxiproxy.process = ContainerProcess(
        server.name,
        server.argv,
        cwd=work_dir,
        log_path=server.log_path,
        registry=registry,
        plan=ContainerPlan(image=toxiproxy_image, mounts=(), log_to_file=False),
    )
    return env
