"""The docker backend's tests: a Docker engine and an image with the official Pulsar image's layout.

Without an engine these tests skip with the reason, except in CI (``CI=true``), where a missing engine is a
failure: CI starts one (``.ci/docker-engine start``). The image is ``$PULSAR_HA_TEST_IMAGE`` when set (e.g. the
official ``apachepulsar/pulsar:<version>`` where a registry is reachable), else the local image built once from the
distribution the project fetches (:mod:`pytest_pulsar_ha.provisioning.docker_image`, cached by tag).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from pytest_pulsar_ha.settings import HaSettings

if TYPE_CHECKING:
    import docker

TEST_IMAGE_ENV = "PULSAR_HA_TEST_IMAGE"
os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")  # Ryuk needs a registry; the harness reaps by label


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _say(message: str) -> None:
    print(f"[docker tests] {message}", file=sys.stderr, flush=True)


@pytest.fixture(scope="session")
def docker_client() -> Iterator[docker.DockerClient]:
    from pytest_pulsar_ha.provisioning.docker_engine import engine_unreachable_reason

    reason = engine_unreachable_reason()
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true and {reason}: CI must run the docker tests (.ci/run starts .ci/docker-engine)", False)
        pytest.skip(f"docker backend tests: {reason} (start one with .ci/docker-engine start)")
    import docker

    client = docker.from_env(timeout=120)
    yield client
    client.close()


@pytest.fixture(scope="session")
def pulsar_image(docker_client: docker.DockerClient, pulsar_ha_settings: HaSettings) -> str:
    from pytest_pulsar_ha.provisioning import ensure_pulsar
    from pytest_pulsar_ha.provisioning.docker_engine import ensure_image
    from pytest_pulsar_ha.provisioning.docker_image import ensure_local_pulsar_image

    explicit = os.environ.get(TEST_IMAGE_ENV)
    if explicit:
        return ensure_image(docker_client, explicit, _say, f"unset {TEST_IMAGE_ENV} to build a local image")
    version, cache = pulsar_ha_settings.pulsar_version, pulsar_ha_settings.cache_dir
    dist = ensure_pulsar(version, cache, _say)
    return ensure_local_pulsar_image(docker_client, version, dist.home, cache, _say)


@pytest.fixture(scope="session")
def toxiproxy_image(docker_client: docker.DockerClient, pulsar_ha_settings: HaSettings) -> str:
    from pytest_pulsar_ha.provisioning import TOXIPROXY_VERSION, ensure_toxiproxy
    from pytest_pulsar_ha.provisioning.docker_image import ensure_local_toxiproxy_image

    binary = ensure_toxiproxy(pulsar_ha_settings.cache_dir, _say)
    return ensure_local_toxiproxy_image(docker_client, TOXIPROXY_VERSION, binary, pulsar_ha_settings.cache_dir, _say)
