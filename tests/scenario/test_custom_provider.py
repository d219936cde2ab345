"""`provider: {kind: custom, factory: ...}`: every unusable reference is a scenario-file error with its file:line,
found at collection (before any cluster starts); what a factory returns is checked when it is called."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pulsar_ha.scenario.errors import ScenarioError
from pytest_pulsar_ha.scenario.factories import (
    ClusterInfo,
    FactoryError,
    ProviderContext,
    check_returned,
    resolve_factory,
)
from pytest_pulsar_ha.scenario.loader import parse_scenarios
from pytest_pulsar_ha.scenario.providers import CustomProvider

USER_MODULE = """
import pulsar

NOT_CALLABLE = 42

def two_arguments(context, extra):
    return None

class Wrong:
    pass

def declares_wrong(context) -> Wrong:
    return Wrong()

def returns_wrong(context):
    return "pulsar://127.0.0.1:6650"

def raises_on_import_of_nothing(context) -> pulsar.ServiceInfoProvider:
    return pulsar.ServiceInfoProvider()
"""


@pytest.fixture
def user_module(tmp_path: Path) -> Iterator[str]:
    package = tmp_path / "userpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "providers.py").write_text(USER_MODULE)
    (package / "broken.py").write_text("raise RuntimeError('no config here')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield "userpkg.providers"
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("userpkg")]:
            del sys.modules[name]


AT = "c.pulsar-ha.yaml:6: scenarios[0].provider.factory"


def scenario_text(factory: str) -> str:
    return textwrap.dedent(
        f"""\
        scenarios:
          - name: s
            topology: {{clusters: [cluster-a, cluster-b]}}
            provider:
              kind: custom
              factory: {factory}
              primary: cluster-a
              args: {{secondary: cluster-b, failures: 3}}
            workload: {{duration: 10s}}
            expect: [{{no_loss: true}}]
        """
    )


def error_of(factory: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse_scenarios(scenario_text(factory), "c.pulsar-ha.yaml")
    return str(info.value)


def test_the_shipped_example_resolves_and_its_args_reach_the_model() -> None:
    (case,) = parse_scenarios(scenario_text("examples.sticky_failover:build"), "c.pulsar-ha.yaml")
    provider = case.scenario.provider
    assert isinstance(provider, CustomProvider)
    assert provider.args == {"secondary": "cluster-b", "failures": 3}


@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        ("'not a reference'", f"{AT}: expected 'package.module:function'"),
        ("nosuchpackage.mod:build", f"{AT}: module 'nosuchpackage.mod' is not found"),
        ("userpkg.providers:missing", "module 'userpkg.providers' has no 'missing'; callables there: Wrong"),
        ("userpkg.providers:NOT_CALLABLE", "userpkg.providers:NOT_CALLABLE is a int, not a function"),
        ("userpkg.providers:two_arguments", "cannot be called with one argument (the ProviderContext)"),
        (
            "userpkg.providers:declares_wrong",
            "declares that it returns userpkg.providers.Wrong, which is not a pulsar.ServiceInfoProvider",
        ),
        ("userpkg.broken:build", "importing 'userpkg.broken' raised RuntimeError: no config here"),
    ],
)  # fmt: skip
def test_an_unusable_factory_is_a_collection_error_with_its_line(user_module: str, factory: str, expected: str) -> None:
    assert expected in error_of(factory)


def test_a_variant_that_changes_the_factory_is_checked_at_its_own_line(user_module: str) -> None:
    text = scenario_text("examples.sticky_failover:build") + textwrap.indent(
        "variants:\n  - id: mine\n    provider: {factory: 'userpkg.providers:missing'}\n", "    "
    )
    with pytest.raises(ScenarioError) as info:
        parse_scenarios(text, "c.pulsar-ha.yaml")
    assert "c.pulsar-ha.yaml:13: scenarios[0].variants[0].provider.factory: module 'userpkg.providers' has no" in str(
        info.value
    )


def test_what_a_factory_returns_is_checked_when_it_is_called(user_module: str) -> None:
    factory = resolve_factory("userpkg.providers:returns_wrong")
    context = ProviderContext({"a": ClusterInfo("a", "pulsar://x:1", "http://x:2")}, "a", {})
    with pytest.raises(FactoryError, match=r"returned builtins\.str, not a pulsar\.ServiceInfoProvider"):
        check_returned("userpkg.providers:returns_wrong", factory(context))


def test_the_example_builds_a_provider_from_the_context() -> None:
    context = ProviderContext(
        {n: ClusterInfo(n, f"pulsar://127.0.0.1:{p}", f"http://127.0.0.1:{p + 1}") for n, p in (("a", 1), ("b", 3))},
        "a",
        {"failures": 2},
    )
    provider = check_returned(
        "examples.sticky_failover:build", resolve_factory("examples.sticky_failover:build")(context)
    )
    assert provider.initial_service_info().service_url == "pulsar://127.0.0.1:1"
    assert provider.secondary.name == "b" and provider.failures == 2


def test_the_scenarios_readme_example_is_valid() -> None:
    import re

    readme = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "scenario-format.md").read_text()
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "kind: custom" in b]
    body = textwrap.dedent(block)
    text = (
        "scenarios:\n  - name: s\n    topology: {clusters: [cluster-a, cluster-b]}\n"
        + textwrap.indent(body, "    ")
        + "    workload: {duration: 10s}\n    expect: [{no_loss: true}]\n"
    )
    (case,) = parse_scenarios(text, "README.md")
    assert isinstance(case.scenario.provider, CustomProvider)
