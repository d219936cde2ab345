"""The Docker engine the docker backend talks to (docker-py, imported only when the backend is used)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pytest_pulsar_ha.errors import ProvisioningError
from pytest_pulsar_ha.provisioning.cache import Progress

if TYPE_CHECKING:
    import docker

RYUK_DISABLED_ENV = "TESTCONTAINERS_RYUK_DISABLED"
ENGINE_HINT = (
    "start one (this repository: `.ci/docker-engine start`, which runs dockerd with host networking only) or point "
    "DOCKER_HOST at one"
)


def engine_unreachable_reason() -> str | None:
    """None when a Docker engine answers (``DOCKER_HOST`` or the default socket), else why not."""
    try:
        import docker
    except ImportError:
        return "the Python package 'docker' is not installed (pip install 'pytest-pulsar-ha[docker]')"
    try:
        client = docker.from_env(timeout=10)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # docker-py raises DockerException, requests' errors and OSError alike
        where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        return f"no Docker engine answers at {where} ({type(exc).__name__}: {str(exc)[:200]})"
    return None


def connect() -> docker.DockerClient:
    """A client of the engine, or a ProvisioningError that says what is missing and how to get it."""
    reason = engine_unreachable_reason()
    if reason is not None:
        raise ProvisioningError(f"the docker backend needs a Docker engine: {reason}; {ENGINE_HINT}")
    import docker

    return docker.from_env(timeout=120)


def ensure_image(client: docker.DockerClient, image: str, progress: Progress, fallback_hint: str) -> str:
    """``image`` is on the engine (pulled once if it is not); the error names ``fallback_hint`` when it cannot be."""
    import docker.errors

    try:
        client.images.get(image)
        return image
    except docker.errors.ImageNotFound:
        pass
    progress(f"pulling {image}")
    try:
        client.images.pull(image)
    except docker.errors.APIError as exc:
        raise ProvisioningError(
            f"the image {image} is not on the Docker engine and could not be pulled ({str(exc)[:300]}); {fallback_hint}"
        ) from None
    return image


def ryuk_disabled() -> bool:
    """testcontainers' own switch: its reaper (Ryuk) runs from an image that needs a registry."""
    return os.environ.get(RYUK_DISABLED_ENV, "").strip().lower() in ("1", "true", "yes")
