"""Effective settings of a run (from pytest options, ini values, the CLI or code) and the factory for an environment."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION, default_cache_dir, ensure_pulsar, ensure_toxiproxy
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.runtime.pid_registry import PidRegistry
from pytest_pulsar_ha.runtime.topology import ClusterSpec, default_names

if TYPE_CHECKING:
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

BACKENDS = ("embedded", "external", "docker")
_MEMORY = re.compile(r"^\d+[mMgG]$")
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def _print_progress(message: str) -> None:
    import sys

    print(f"[pulsar-ha] {message}", file=sys.stderr, flush=True)


def check_backend(value: str, source: str = "backend") -> str:
    if value not in BACKENDS:
        raise ConfigurationError(f"{source}={value!r} is not a known backend; valid values: {', '.join(BACKENDS)}")
    return value


def check_version(value: str, source: str = "pulsar_version") -> str:
    if not _VERSION.match(value):
        raise ConfigurationError(
            f"{source}={value!r} is not a Pulsar version of the form X.Y.Z (e.g. {DEFAULT_PULSAR_VERSION})"
        )
    return value


def check_heap(value: str, source: str = "heap") -> str:
    if not _MEMORY.match(value):
        raise ConfigurationError(f"{source}={value!r} is not a JVM memory size such as 512m or 1g")
    return value


def check_timeout(value: str | float, source: str = "startup_timeout") -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ConfigurationError(f"{source}={value!r} is not a positive number of seconds")
    return seconds


@dataclass(frozen=True)
class HaSettings:
    clusters: tuple[ClusterSpec, ...] = field(default_factory=lambda: tuple(ClusterSpec(n) for n in default_names(2)))
    backend: str = "embedded"
    pulsar_version: str = DEFAULT_PULSAR_VERSION
    cache_dir: Path = field(default_factory=default_cache_dir)
    heap: str = "512m"
    startup_timeout: float = 180.0
    clusters_file: Path | None = None
    """the external backend's clusters file (runtime/external_clusters.py)"""
    image: str = ""
    """the docker backend's Pulsar image ('' = the official apachepulsar/pulsar:<pulsar_version>)"""
    toxiproxy_image: str = ""
    """the docker backend's toxiproxy image ('' = the toxiproxy binary, as for the embedded backend)"""

    def __post_init__(self) -> None:
        check_backend(self.backend)
        if self.toxiproxy_image and self.backend != "docker":
            raise ConfigurationError(
                f"toxiproxy_image={self.toxiproxy_image!r} needs backend=docker (the {self.backend} backend does "
                "not run toxiproxy from an image)"
            )
        check_version(self.pulsar_version)
        check_heap(self.heap)
        check_timeout(self.startup_timeout)

    def describe(self) -> str:
        names = ",".join(spec.name for spec in self.clusters)
        auth = ",".join(sorted({spec.auth or "none" for spec in self.clusters}))
        return (
            f"pulsar-ha: backend={self.backend} clusters={names} auth={auth} pulsar={self.pulsar_version} "
            f"heap={self.heap} brokers={self.describe_brokers()} startup-timeout={self.startup_timeout:g}s "
            f"cache={self.cache_dir}"
            + (f" clusters-file={self.clusters_file}" if self.clusters_file else "")
            + self.describe_images()
        )

    def describe_images(self) -> str:
        """`` image=... toxiproxy=...`` on the docker backend, else ''."""
        if self.backend != "docker":
            return ""
        from pytest_pulsar_ha.runtime.docker_backend import default_image

        return f" image={self.image or default_image(self.pulsar_version)} toxiproxy={self.toxiproxy_image or 'binary'}"

    def describe_brokers(self) -> str:
        """``2`` when every cluster has 2 brokers, else ``cluster-a:2,cluster-b:1``."""
        counts = {spec.brokers for spec in self.clusters}
        if len(counts) == 1:
            return str(counts.pop())
        return ",".join(f"{spec.name}:{spec.brokers}" for spec in self.clusters)

    def registry(self) -> PidRegistry:
        return PidRegistry(self.cache_dir / "run")


def build_environment(
    settings: HaSettings,
    *,
    work_dir: Path | None = None,
    registry: PidRegistry | None = None,
    progress: Progress = _print_progress,
) -> PulsarHaEnvironment:
    """Provision what is missing, reap leftovers of killed runs, and return a not-yet-started environment."""
    from pytest_pulsar_ha.runtime.embedded import EmbeddedBackend, EmbeddedOptions
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

    registry = registry or settings.registry()
    for record in registry.reap_orphans():
        progress(f"reaped leftover {record.name} (pgid {record.pgid}) of a run that was killed")
    if settings.backend == "docker":
        from pytest_pulsar_ha.runtime.docker_backend import build_docker_environment

        work_dir = work_dir or Path(tempfile.mkdtemp(prefix="pulsar-ha-"))
        return build_docker_environment(settings, work_dir=work_dir, registry=registry, progress=progress)
    if settings.backend == "external":
        return _external_environment(settings, work_dir, registry, progress)
    distribution = ensure_pulsar(settings.pulsar_version, settings.cache_dir, progress)
    toxiproxy = ensure_toxiproxy(settings.cache_dir, progress)
    work_dir = work_dir or Path(tempfile.mkdtemp(prefix="pulsar-ha-"))
    backend = EmbeddedBackend(
        EmbeddedOptions(
            distribution=distribution,
            work_dir=work_dir,
            registry=registry,
            heap=settings.heap,
            startup_timeout=settings.startup_timeout,
        )
    )
    return PulsarHaEnvironment(
        settings.clusters, backend, toxiproxy_binary=toxiproxy, work_dir=work_dir, registry=registry
    )


def _external_environment(
    settings: HaSettings, work_dir: Path | None, registry: PidRegistry, progress: Progress
) -> PulsarHaEnvironment:
    """Clusters that run elsewhere (the clusters file): only toxiproxy is needed here."""
    from pytest_pulsar_ha.runtime.external_clusters import load_clusters_file
    from pytest_pulsar_ha.runtime.external_environment import build_external_environment

    if settings.clusters_file is None:
        raise ConfigurationError("backend=external needs a clusters file (--pulsar-ha-clusters-file)")
    return build_external_environment(
        settings.clusters,
        load_clusters_file(settings.clusters_file),
        toxiproxy_binary=ensure_toxiproxy(settings.cache_dir, progress),
        work_dir=work_dir or Path(tempfile.mkdtemp(prefix="pulsar-ha-")),
        registry=registry,
    )
