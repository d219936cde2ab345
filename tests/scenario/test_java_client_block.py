"""`client: {kind: java}`: which providers the Java client runs (Java's own classes), refused with file:line
before any cluster starts otherwise; and the driver configuration a scenario turns into."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_pulsar_ha.run.parts.java_client import driver_config
from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.scenario.providers import JavaClient, PythonClient
from pytest_pulsar_ha.workload.plan import WorkloadPlan


def text(provider: str, client: str = "{kind: java}") -> str:
    return textwrap.dedent(
        f"""\
        scenarios:
          - name: s
            topology: {{clusters: [cluster-a, cluster-b]}}
            client: {client}
            provider: {provider}
            workload: {{duration: 10s}}
            expect: [{{no_loss: true}}]
        """
    )


AUTO = "{kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s, switch_back_delay: 4s"


def errors(source: str) -> str:
    with pytest.raises(ScenarioError) as raised:
        parse_scenarios(source, "j.pulsar-ha.yaml")
    return str(raised.value)


def test_the_default_client_is_python() -> None:
    (case,) = parse_scenarios(text(AUTO + "}", client="{kind: python}"), "j.pulsar-ha.yaml")
    assert case.scenario.client == PythonClient(kind="python")
    source = text(AUTO + "}").replace("    client: {kind: java}\n", "")
    (case,) = parse_scenarios(source, "j.pulsar-ha.yaml")
    assert case.scenario.client.kind == "python"


def test_java_runs_javas_auto_failover_with_the_tcp_probe() -> None:
    (case,) = parse_scenarios(text(AUTO + ", probe: tcp}", "{kind: java, version: 4.0.7}"), "j.pulsar-ha.yaml")
    assert case.scenario.client == JavaClient(kind="java", version="4.0.7")


def test_java_refuses_the_lookup_probe_it_does_not_have() -> None:
    assert errors(text(AUTO + "}")) == (
        "j.pulsar-ha.yaml:5: scenarios[0].provider.probe: client kind java runs Java's AutoClusterFailover, which "
        "probes by TCP connect only: set provider.probe: tcp (found lookup)"
    )


@pytest.mark.parametrize(
    "provider",
    [
        "{kind: native, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s, switch_back_delay: 4s}",
        "{kind: custom, factory: 'examples.sticky_failover:build', primary: cluster-a}",
    ],
    ids=["native", "custom"],
)
def test_java_refuses_python_providers(provider: str) -> None:
    kind = "native" if "native" in provider else "custom"
    assert errors(text(provider)) == (
        "j.pulsar-ha.yaml:5: scenarios[0].provider.kind: client kind java runs Java's own providers (auto, "
        f"controlled, none); provider kind {kind} is a Python client's (use auto for Java's AutoClusterFailover)"
    )


def test_a_bad_client_kind_or_version_is_a_file_line_error() -> None:
    assert "j.pulsar-ha.yaml:4: scenarios[0].client.kind" in errors(text(AUTO + ", probe: tcp}", "{kind: go}"))
    message = errors(text(AUTO + ", probe: tcp}", "{kind: java, version: '4.0'}"))
    assert "j.pulsar-ha.yaml:4: scenarios[0].client.version: expected a Pulsar client version X.Y.Z" in message


@dataclass
class _Cluster:
    service_url: str
    token: str | None = None


class _Env:
    """What driver_config reads of an environment: each cluster's service URL and token, the client options."""

    def __init__(self) -> None:
        self.client_options: dict[str, Any] = {"listener_name": "external"}

    def cluster(self, name: str) -> _Cluster:
        return _Cluster(f"pulsar://127.0.0.1:{6650 if name == 'cluster-a' else 6651}")


def test_the_driver_configuration_carries_javas_provider_settings_and_the_plan() -> None:
    (case,) = parse_scenarios(text(AUTO + ", probe: tcp, check_interval: 500ms}"), "j.pulsar-ha.yaml")
    plan = WorkloadPlan(["persistent://t/ns/a"], 1, 1, "exclusive", 4, 20.0, 200, 10.0, True, 2000, 7)
    config = driver_config(_Env(), case.scenario, ["cluster-a", "cluster-b"], plan, None)  # type: ignore[arg-type]
    assert config["provider"] == {
        "kind": "auto",
        "primary": "cluster-a",
        "secondaries": ["cluster-b"],
        "checkIntervalMs": 500,
        "failoverDelayMs": 2000,
        "switchBackDelayMs": 4000,
    }
    assert config["clusters"]["cluster-b"] == {"serviceUrl": "pulsar://127.0.0.1:6651", "token": None}
    assert config["listenerName"] == "external"
    assert (config["subscriptions"], config["ratePerSecond"], config["sendTimeoutMs"]) == (["sub-0"], 20.0, 2000)
    assert (config["keys"], config["messageSize"], config["seed"]) == (4, 200, 7)
