"""Effective settings of a run (from pytest options, ini values, the CLI or code): plain data and its checks.
The environment they describe is built by :func:`pytest_pulsar_ha.runtime.backends.build_environment`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION, default_cache_dir
from pytest_pulsar_ha.provisioning.pulsar_distribution import describe_runtime
from pytest_pulsar_ha.settings.clusters import ClusterSpec, default_names

BACKEND_NAMES = ("embedded", "external", "docker")
"""The built-in backends' names (:data:`pytest_pulsar_ha.runtime.backends.BACKEND_NAMES` holds how each is built)."""
_MEMORY = re.compile(r"^\d+[mMgG]$")
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def print_progress(message: str) -> None:
    """The default progress reporter: one ``[pulsar-ha]`` line on stderr."""
    import sys

    print(f"[pulsar-ha] {message}", file=sys.stderr, flush=True)


def check_backend(value: str, source: str = "backend") -> str:
    if value not in BACKEND_NAMES:
        raise ConfigurationError(f"{source}={value!r} is not a known backend; valid values: {', '.join(BACKEND_NAMES)}")
    return value


def check_version(value: str, source: str = "pulsar_version") -> str:
    if not _VERSION.match(value):
        raise ConfigurationError(
            f"{source}={value!r} is not a Pulsar version of the form X.Y.Z (e.g. {DEFAULT_PULSAR_VERSION})"
        )
    return value


_SUBSTITUTION = re.compile(r"^([\w.\-]+:[\w.\-]+)=([\w.\-]+)$")


def parse_substitutions(value: str, source: str = "pulsar_substitute") -> tuple[tuple[str, str], ...]:
    """``group:artifact=version[,...]``: dependencies of an assembled Pulsar runtime pinned to served versions."""
    pins: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in value.split(","))):
        match = _SUBSTITUTION.match(item)
        if not match:
            raise ConfigurationError(
                f"{source}: {item!r} is not group:artifact=version (e.g. "
                "org.apache.bookkeeper:bookkeeper-server=4.18.0); separate several with commas"
            )
        pins[match.group(1)] = match.group(2)
    return tuple(sorted(pins.items()))


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
    pulsar_substitutions: tuple[tuple[str, str], ...] = ()
    """dependencies pinned to other versions (``group:artifact``, version): the runtime is then assembled from Maven
    artifacts and labelled as not the release"""
    cache_dir: Path = field(default_factory=default_cache_dir)
    heap: str = "512m"
    startup_timeout: float = 180.0
    clusters_file: Path | None = None
    """the external backend's clusters file (runtime/external/clusters.py)"""
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
            f"pulsar-ha: backend={self.backend} clusters={names} auth={auth} pulsar={self.describe_pulsar()} "
            f"heap={self.heap} brokers={self.describe_brokers()} startup-timeout={self.startup_timeout:g}s "
            f"cache={self.cache_dir}"
            + (f" clusters-file={self.clusters_file}" if self.clusters_file else "")
            + self.describe_images()
        )

    def describe_pulsar(self) -> str:
        """The Pulsar version and, where it is known from the cache, how it is had (an assembled runtime says so)."""
        if self.backend != "embedded":
            return self.pulsar_version
        return describe_runtime(self.pulsar_version, self.cache_dir, dict(self.pulsar_substitutions))

    def describe_images(self) -> str:
        """`` image=... toxiproxy=...`` on the docker backend, else ''."""
        if self.backend != "docker":
            return ""
        from pytest_pulsar_ha.provisioning.docker_image import default_image

        return f" image={self.image or default_image(self.pulsar_version)} toxiproxy={self.toxiproxy_image or 'binary'}"

    def describe_brokers(self) -> str:
        """``2`` when every cluster has 2 brokers, else ``cluster-a:2,cluster-b:1``."""
        counts = {spec.brokers for spec in self.clusters}
        if len(counts) == 1:
            return str(counts.pop())
        return ",".join(f"{spec.name}:{spec.brokers}" for spec in self.clusters)

    def registry(self) -> PidRegistry:
        return PidRegistry(self.cache_dir / "run")
