"""JSON Schema of scenario files, for editors: ``python -m pytest_pulsar_ha.scenario.schema [OUT]``.

OUT defaults to ``docs/scenario.schema.json`` (relative to the current directory); ``-`` prints the schema. The
schema is generated from the model, so it follows it; ``tests/scenario`` checks that the committed file is up
to date.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.scenario._introspect import is_model, is_union, one_or_several, strip, tags
from pytest_pulsar_ha.scenario.base import SCENARIO_NAME_PATTERN
from pytest_pulsar_ha.scenario.loader import EXTENSION_PREFIX, FILE_SUFFIX
from pytest_pulsar_ha.scenario.model import Scenario

DEFAULT_OUT = Path("docs") / "scenario.schema.json"
SCHEMA_ID = "https://github.com/pytest-pulsar-ha/pytest-pulsar-ha/docs/scenario.schema.json"


def _is_mapping_field(annotation: Any) -> bool:
    tp = strip(annotation)
    return is_model(tp) or (is_union(tp) and bool(tags(tp)))


def _partial(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of a mapping a variant merges over the scenario's: the same keys, none of them required."""
    members = [prop, *prop.get("oneOf", []), *prop.get("anyOf", [])]
    resolved = [defs[m["$ref"].rsplit("/", 1)[-1]] if "$ref" in m else m for m in members]
    properties: dict[str, Any] = {}
    kinds: list[Any] = []
    for schema in resolved:
        for key, value in schema.get("properties", {}).items():
            if key == "kind" and "const" in value:
                kinds.append(value["const"])
                continue
            properties.setdefault(key, copy.deepcopy(value))
    if kinds:
        properties = {"kind": {"type": "string", "enum": kinds}, **properties}
    description = prop.get("description", "")
    return {
        "type": "object",
        "description": f"{description} Merged key by key over the scenario's.".strip(),
        "properties": properties,
        "additionalProperties": False,
    }


def scenario_file_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a whole ``*.pulsar-ha.yaml`` file."""
    scenario = Scenario.model_json_schema(by_alias=True, mode="validation", ref_template="#/$defs/{model}")
    defs: dict[str, Any] = scenario.pop("$defs", {})
    variant_properties: dict[str, Any] = {
        "id": {
            "type": "string",
            "pattern": f"^{SCENARIO_NAME_PATTERN}$",
            "description": "The variant's name: the test id is `scenario-name[id]`.",
        }
    }
    for name, field in Scenario.model_fields.items():
        key = field.alias or name
        if key == "name":
            continue
        prop = scenario["properties"][key]
        model = one_or_several(strip(field.annotation))
        if model is not None:  # a mapping merges over the scenario's; a list replaces it
            ref = {"$ref": f"#/$defs/{model.__name__}"}
            one = _partial({**ref, "description": prop.get("description", "")}, defs)
            several = {"type": "array", "items": ref, "description": "A list replaces the scenario's value."}
            variant_properties[key] = {"oneOf": [one, several]}
        elif _is_mapping_field(field.annotation):
            variant_properties[key] = _partial(prop, defs)
        else:
            variant_properties[key] = {k: v for k, v in prop.items() if k != "default"}
    defs["Variant"] = {
        "type": "object",
        "description": "A copy of the scenario with some keys changed: mappings (topology, provider, workload) "
        "merge key by key, anything else (lists included) replaces the scenario's value.",
        "properties": variant_properties,
        "required": ["id"],
        "additionalProperties": False,
    }
    scenario["properties"]["variants"] = {
        "type": "array",
        "description": "Parametrized copies of the scenario, each a test of its own besides the scenario itself.",
        "items": {"$ref": "#/$defs/Variant"},
    }
    defs["Scenario"] = scenario
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"pytest-pulsar-ha scenario file (*{FILE_SUFFIX})",
        "description": "Declarative chaos scenarios for Apache Pulsar multi-cluster failover, collected by pytest.",
        "type": "object",
        "properties": {
            "scenarios": {
                "type": "array",
                "description": "The scenarios of this file; names are unique in the file.",
                "minItems": 1,
                "items": {"$ref": "#/$defs/Scenario"},
            }
        },
        "patternProperties": {f"^{EXTENSION_PREFIX}": {"description": "Ignored: a place for YAML anchors."}},
        "required": ["scenarios"],
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }


def schema_text() -> str:
    """The schema as written to ``docs/scenario.schema.json``."""
    return json.dumps(scenario_file_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or args[:1] in (["-h"], ["--help"]):
        print(__doc__.strip().splitlines()[0] if __doc__ else "", file=sys.stderr)
        return 2 if len(args) > 1 else 0
    target = args[0] if args else str(DEFAULT_OUT)
    text = schema_text()
    if target == "-":
        sys.stdout.write(text)
        return 0
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
