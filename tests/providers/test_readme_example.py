"""The docs' application example (reference/providers.md) runs, unchanged, against the real clusters."""

from __future__ import annotations

import re
from pathlib import Path

import pulsar
import pytest

from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment

pytestmark = pytest.mark.real_clusters

README = Path(__file__).resolve().parents[2] / "docs" / "reference" / "providers.md"


def example(name: str) -> str:
    blocks = re.findall(r"```python\n(# example: (\S+)\n.*?)```", README.read_text(), flags=re.S)
    found = {label: code for code, label in blocks}
    assert name in found, f"{README.name} has no python block starting with '# example: {name}'"
    return found[name]


def test_auto_failover_example_runs(
    pulsar_ha: PulsarHaEnvironment, geo_namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    topic = f"persistent://{geo_namespace}/readme"
    monkeypatch.setenv("PRIMARY_URL", pulsar_ha.cluster("cluster-a").service_url)
    monkeypatch.setenv("BACKUP_URL", pulsar_ha.cluster("cluster-b").service_url)
    monkeypatch.setenv("LISTENER_NAME", pulsar_ha.client_options["listener_name"])
    monkeypatch.setenv("TOPIC", topic)
    exec(compile(example("auto-failover-app"), str(README), "exec"), {})
    client = pulsar_ha.client("cluster-a")
    try:
        reader = client.create_reader(topic, pulsar.MessageId.earliest)
        got = [reader.read_next(timeout_millis=10000).data() for _ in range(10)]
    finally:
        client.close()
    assert got == [f"order-{i}".encode() for i in range(10)]
