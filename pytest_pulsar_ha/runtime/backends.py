"""The backends table: for each name, how its environment is built and what faults it can give.

Each entry imports its backend inside its functions, so that loading the plugin stays light. A user's own backend
comes through the ``pytest_pulsar_ha_backend`` hook (see :mod:`pytest_pulsar_ha.pytest.hookspecs`), which returns a
:class:`BackendEntry` of the same shape.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.process.pid_registry import PidRegistry
from pytest_pulsar_ha.provisioning import ensure_pulsar, ensure_toxiproxy
from pytest_pulsar_ha.provisioning.cache import Progress
from pytest_pulsar_ha.settings import HaSettings, print_progress

if TYPE_CHECKING:
    from pytest_pulsar_ha.runtime.capabilities import Capabilities
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

Build = Callable[[HaSettings, Path, PidRegistry, Progress], "PulsarHaEnvironment"]
"""Builds a not-yet-started environment: (settings, work_dir, registry, progress)."""


@dataclass(frozen=True)
class BackendEntry:
    name: str
    build: Build
    capabilities: Callable[[HaSettings], Capabilities | None]
    """What the backend cannot do for these settings (None: every fault is possible)."""


def _every_fault(settings: HaSettings) -> Capabilities | None:
    return None


def _build_embedded(
    settings: HaSettings, work_dir: Path, registry: PidRegistry, progress: Progress
) -> PulsarHaEnvironment:
    from pytest_pulsar_ha.runtime.embedded import EmbeddedBackend, EmbeddedOptions
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

    distribution = ensure_pulsar(
        settings.pulsar_version, settings.cache_dir, progress, dict(settings.pulsar_substitutions)
    )
    toxiproxy = ensure_toxiproxy(settings.cache_dir, progress)
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


def _build_docker(
    settings: HaSettings, work_dir: Path, registry: PidRegistry, progress: Progress
) -> PulsarHaEnvironment:
    from pytest_pulsar_ha.runtime.docker.backend import build_docker_environment

    return build_docker_environment(settings, work_dir=work_dir, registry=registry, progress=progress)


def _build_external(
    settings: HaSettings, work_dir: Path, registry: PidRegistry, progress: Progress
) -> PulsarHaEnvironment:
    """Clusters that run elsewhere (the clusters file): only toxiproxy is needed here."""
    from pytest_pulsar_ha.runtime.external.clusters import load_clusters_file
    from pytest_pulsar_ha.runtime.external.environment import build_external_environment

    if settings.clusters_file is None:
        raise ConfigurationError("backend=external needs a clusters file (--pulsar-ha-clusters-file)")
    return build_external_environment(
        settings.clusters,
        load_clusters_file(settings.clusters_file),
        toxiproxy_binary=ensure_toxiproxy(settings.cache_dir, progress),
        work_dir=work_dir,
        registry=registry,
    )


def _external_capabilities(settings: HaSettings) -> Capabilities | None:
    if settings.clusters_file is None:
        return None
    from pytest_pulsar_ha.runtime.external.backend import external_capabilities
    from pytest_pulsar_ha.runtime.external.clusters import load_clusters_file

    return external_capabilities(load_clusters_file(settings.clusters_file))


BACKENDS: dict[str, BackendEntry] = {
    "embedded": BackendEntry("embedded", _build_embedded, _every_fault),
    "external": BackendEntry("external", _build_external, _external_capabilities),
    "docker": BackendEntry("docker", _build_docker, _every_fault),
}
"""The built-in backends, by the name ``--pulsar-ha-backend`` takes (the same names as
:data:`pytest_pulsar_ha.settings.BACKEND_NAMES`)."""


def build_environment(
    settings: HaSettings,
    *,
    work_dir: Path | None = None,
    registry: PidRegistry | None = None,
    progress: Progress = print_progress,
    entry: BackendEntry | None = None,
) -> PulsarHaEnvironment:
    """Provision what is missing, reap leftovers of killed runs, and return a not-yet-started environment, built by
    ``entry`` (default: the settings' backend from :data:`BACKENDS`).

    Without ``work_dir`` the environment works in a temporary directory of its own, removed when it closes (the
    clusters' data and logs, gigabytes after a fast run) unless its start failed (its logs are the evidence) or
    ``$PULSAR_HA_KEEP_WORK_DIR`` is set."""
    registry = registry or settings.registry()
    for record in registry.reap_orphans():
        progress(f"reaped leftover {record.name} (pgid {record.pgid}) of a run that was killed")
    chosen = entry or BACKENDS[settings.backend]
    if work_dir is not None:
        return chosen.build(settings, work_dir, registry, progress)
    env = chosen.build(settings, Path(tempfile.mkdtemp(prefix="pulsar-ha-")), registry, progress)
    env.owns_work_dir = True  # its own temporary directory: removed when it closes after a good start
    return env


def capabilities_of(settings: HaSettings, entry: BackendEntry | None = None) -> Capabilities | None:
    """The backend's capabilities for these settings; None where every fault is possible."""
    return (entry or BACKENDS[settings.backend]).capabilities(settings)
