"""The JSON Schema for editors: valid, in step with the model, and committed up to date."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_pulsar_ha.scenario import Duration
from pytest_pulsar_ha.scenario.expectations import EXPECTATION_KINDS
from pytest_pulsar_ha.scenario.faults import FAULT_KINDS
from pytest_pulsar_ha.scenario.providers import PROVIDER_KINDS
from pytest_pulsar_ha.scenario.schema import DEFAULT_OUT, main, scenario_file_schema, schema_text

from .helpers import REPO
from .test_loader import VALID, readme_examples

try:
    import jsonschema
except ImportError:  # the structural checks below still run
    jsonschema = None

needs_jsonschema = pytest.mark.skipif(jsonschema is None, reason="the jsonschema package is not installed")


@functools.cache
def validator() -> Any:
    assert jsonschema is not None
    schema = scenario_file_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_committed_schema_is_up_to_date() -> None:
    committed = REPO / DEFAULT_OUT
    assert committed.exists(), "run: python -m pytest_pulsar_ha.scenario.schema"
    assert committed.read_text() == schema_text(), "out of date; run: python -m pytest_pulsar_ha.scenario.schema"


def test_structure() -> None:
    schema = scenario_file_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["required"] == ["scenarios"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["scenarios"]["items"] == {"$ref": "#/$defs/Scenario"}
    defs = schema["$defs"]
    scenario = defs["Scenario"]
    assert scenario["required"] == ["name", "workload", "expect"]
    assert set(scenario["properties"]) == {
        "name",
        "description",
        "seed",
        "marks",
        "topology",
        "provider",
        "client",
        "workload",
        "faults",
        "generate",
        "expect",
        "expect_failure",
        "soak",
        "variants",
    }
    assert scenario["additionalProperties"] is False
    fault_consts = {defs[ref["$ref"].split("/")[-1]]["properties"]["kind"]["const"] for ref in _refs(defs, "faults")}
    assert fault_consts == set(FAULT_KINDS)
    provider_kinds = [
        defs[r["$ref"].split("/")[-1]]["properties"]["kind"]["const"]
        for r in scenario["properties"]["provider"]["oneOf"]
    ]
    assert provider_kinds == list(PROVIDER_KINDS)
    expectation_keys = [next(iter(defs[ref["$ref"].split("/")[-1]]["properties"])) for ref in _refs(defs, "expect")]
    assert expectation_keys == list(EXPECTATION_KINDS)
    assert defs["Variant"]["required"] == ["id"]
    assert "name" not in defs["Variant"]["properties"]
    assert defs["OutageFault"]["required"] == ["kind", "cluster", "at", "for"]
    assert "probe" in defs["AutoProvider"]["properties"]
    assert "probe" not in defs["NativeProvider"]["properties"]


def _refs(defs: dict[str, Any], key: str) -> list[dict[str, str]]:
    items = defs["Scenario"]["properties"][key]["items"]
    return list(items["oneOf"])


def test_durations_are_strings_with_the_pattern_the_model_uses() -> None:
    schema = scenario_file_schema()
    duration = schema["$defs"]["OutageFault"]["properties"]["for"]
    assert duration["type"] == "string"
    pattern = duration["pattern"]  # `for` is above zero
    within = schema["$defs"]["SwitchSpec"]["properties"]["within"]
    any_pattern = within["prefixItems"][0]["pattern"]  # a window's durations may be 0s
    texts = ("500ms", "3s", "1.5s", "1m", "2h", "0s", "0.0ms", "00.00h", "0.01s", "10s", "10 seconds", "3", "-1s")
    for text in (*texts, "1m30s"):
        try:
            seconds: float | None = Duration(text).seconds
        except ValueError:
            seconds = None
        assert bool(re.search(any_pattern, text)) == (seconds is not None), text
        assert bool(re.search(pattern, text)) == (seconds is not None and seconds > 0), text
    assert (within["minItems"], within["maxItems"]) == (2, 2)


@needs_jsonschema
def test_the_shipped_examples_are_valid() -> None:
    check = validator()
    for example in readme_examples():
        assert list(check.iter_errors(yaml.safe_load(example))) == []
    assert list(check.iter_errors(yaml.safe_load(VALID))) == []


@needs_jsonschema
@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("failover_delay: 2s", "failover_dealy: 2s", "scenarios/0/provider"),
        ("for: 12s", "for: 10 seconds", "scenarios/0/faults/0"),
        ("kind: auto", "kind: automatic", "scenarios/0/provider"),
        ("- no_loss: true", "- no_los: true", "scenarios/0/expect/1"),
        ("name: s", "name: Big", "scenarios/0/name"),
    ],
)
def test_the_schema_rejects_mistakes(old: str, new: str, path: str) -> None:
    errors = list(validator().iter_errors(yaml.safe_load(VALID.replace(old, new))))
    assert errors
    assert any("/".join(map(str, error.absolute_path)).startswith(path) for error in errors), errors


@needs_jsonschema
def test_variants_may_give_part_of_a_mapping_but_only_known_keys() -> None:
    check = validator()
    good = VALID + "    variants:\n      - {id: tcp, provider: {probe: tcp}, workload: {rate: 5/s}}\n"
    assert list(check.iter_errors(yaml.safe_load(good))) == []
    for bad in ("{id: tcp, provider: {prob: tcp}}", "{provider: {probe: tcp}}", "{id: x, name: y}"):
        text = VALID + f"    variants:\n      - {bad}\n"
        assert list(check.iter_errors(yaml.safe_load(text))), bad


def test_the_command_writes_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nested" / "schema.json"
    assert main([str(out)]) == 0
    assert json.loads(out.read_text()) == scenario_file_schema()
    assert main(["-"]) == 0
    assert json.loads(capsys.readouterr().out) == scenario_file_schema()
    assert main(["a", "b"]) == 2
