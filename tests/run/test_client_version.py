"""The run states its client's version (the ``client version`` fact), so that a finding names the release."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pytest_pulsar_ha.run.client_version import client_version
from pytest_pulsar_ha.scenario import load_scenarios

ROOT = Path(__file__).resolve().parents[2]


def _scenario(case_id: str) -> Any:
    return next(
        c.scenario for c in load_scenarios(ROOT / "scenarios" / "primary-outage.pulsar-ha.yaml") if c.id == case_id
    )


def _env(version: str) -> Any:
    return SimpleNamespace(
        backend=SimpleNamespace(options=SimpleNamespace(distribution=SimpleNamespace(version=version)))
    )


def test_the_python_client_is_named_with_the_installed_pulsar_client_release() -> None:
    stated = client_version(_scenario("primary-outage"), _env("4.2.4"))
    assert stated == f"pulsar-client {metadata.version('pulsar-client')} (Python, the C++ client inside)"


def test_the_java_client_is_named_with_the_brokers_release_when_none_is_written() -> None:
    assert client_version(_scenario("primary-outage[java]"), _env("4.0.8")) == "pulsar-client-original 4.0.8 (Java)"
