"""The docker backend's pure pieces (no engine needed): mirrors, command lines, environment, owners."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.process.pid_registry import RUN_ID_ENV
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION
from pytest_pulsar_ha.provisioning.docker_image import debian_mirror
from pytest_pulsar_ha.runtime.docker.process import (
    LABEL_OWNER_PID,
    LABEL_OWNER_START,
    container_argv,
    container_env,
    owner_labels,
)
from pytest_pulsar_ha.runtime.docker.reaper import owner_alive
from pytest_pulsar_ha.settings import HaSettings

DEB822 = """\
Types: deb
# http://snapshot.example/archive/debian/20250520T000000Z
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
"""


def test_the_mirror_is_read_from_apt_sources_of_either_format() -> None:
    assert debian_mirror(DEB822) == "http://mirror.example/debian"
    one_line = "deb http://security.example/debian-security bookworm-security main\n"
    one_line += "deb [arch=amd64] http://archive.example/debian bookworm main contrib  # the archive\n"
    assert debian_mirror(one_line) == "http://archive.example/debian"
    assert debian_mirror("deb http://archive.example/debian bullseye main\n") is None
    assert debian_mirror("Types: deb-src\nURIs: http://x.example/debian\nSuites: bookworm\n") is None


def test_a_program_of_the_distribution_runs_from_the_images_pulsar_home() -> None:
    home = Path("/cache/docker/pulsar-home/abc")
    assert container_argv([str(home / "bin" / "pulsar"), "standalone", "-nss"], home) == [
        "/pulsar/bin/pulsar",
        "standalone",
        "-nss",
    ]
    assert container_argv(["/toxiproxy", "-port", "1"], home) == ["/toxiproxy", "-port", "1"]
    assert container_argv(["bash", "-c", "true"], None) == ["bash", "-c", "true"]


def test_a_container_gets_its_own_variables_the_run_id_and_the_log_but_not_the_hosts_java() -> None:
    env = container_env({"JAVA_HOME": "/usr/lib/jvm/host", "PULSAR_MEM": "-Xmx512m"}, "run123", Path("/w/log"))
    assert env == {"PULSAR_MEM": "-Xmx512m", RUN_ID_ENV: "run123", "PULSAR_HA_LOG": "/w/log"}


def test_an_owner_is_alive_only_with_its_pid_and_start_time() -> None:
    mine = owner_labels("run123", "pulsar cluster-a")
    assert owner_alive(mine)
    assert not owner_alive({**mine, LABEL_OWNER_START: str(int(mine[LABEL_OWNER_START]) + 1)})  # pid reused
    assert not owner_alive({**mine, LABEL_OWNER_PID: "999999999"})
    assert owner_alive({LABEL_OWNER_PID: "not a number"})  # unreadable labels: never reaped


def test_a_toxiproxy_image_needs_the_docker_backend() -> None:
    with pytest.raises(ConfigurationError, match="needs backend=docker"):
        HaSettings(toxiproxy_image="ghcr.io/shopify/toxiproxy:2.12.0")
    assert (
        HaSettings(backend="docker", toxiproxy_image="t:1")
        .describe()
        .endswith(f"image=apachepulsar/pulsar:{DEFAULT_PULSAR_VERSION} toxiproxy=t:1")
    )
