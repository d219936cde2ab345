"""One source of truth for valid values: the model's constraints validate, and produce the schema and the docs."""

from __future__ import annotations

import typing
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from pytest_pulsar_ha.scenario import Scenario
from pytest_pulsar_ha.scenario._introspect import is_model, is_union, tags
from pytest_pulsar_ha.scenario.ranges import metadata, with_metadata
from pytest_pulsar_ha.scenario.reference import fault_section, fault_table, main, rewrite, section, table

from .helpers import REPO

EDGES: tuple[Any, ...] = (-1, 0, 1, 0.5, 2**31 - 1, 2**31, 2**63 - 1, 2**63, 10**400, float("inf"), float("nan"))
EDGES += ("0s", "0ms", "0.0s", "0.001s", "1s", "0B", "1B", "0KB", "0/s", "0.5/m", "1/s", "0KB/s", "1KB/s", "x")


def _leaves(model: type[BaseModel], prefix: str = "") -> list[tuple[str, Any]]:
    """Every key of the model whose value is not a mapping, with its annotation (constraints included)."""
    found: list[tuple[str, Any]] = []
    for name, field in model.model_fields.items():
        annotation = with_metadata(field)
        tp, _ = metadata(annotation)
        args = typing.get_args(tp)
        inner = metadata(args[0])[0] if typing.get_origin(tp) is tuple and args[-1:] == (Ellipsis,) else tp
        path = f"{prefix}{field.alias or name}"
        if is_model(inner):
            found += _leaves(inner, f"{path}.")
        elif is_union(inner) and tags(inner):
            for tag, member in tags(inner).items():
                found += _leaves(member, f"{path}[{tag}].")
        else:
            found.append((path, annotation))
    return found


LEAVES = _leaves(Scenario)


def test_every_leaf_key_is_found() -> None:
    paths = [path for path, _ in LEAVES]
    assert {"workload.duration", "provider[auto].check_interval", "faults[latency].jitter"} <= set(paths)
    assert "expect[availability].availability.min_ratio" in paths
    assert len(paths) > 40


@pytest.mark.parametrize(("path", "annotation"), LEAVES, ids=[path for path, _ in LEAVES])
def test_the_schema_accepts_exactly_what_the_model_accepts(path: str, annotation: Any) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    validator = jsonschema.Draft202012Validator(adapter.json_schema(mode="validation"))
    for value in EDGES:
        if isinstance(value, float) and value != value:  # nan: JSON has none
            continue
        if isinstance(value, float) and value in (float("inf"),):
            continue
        try:
            adapter.validate_python(value)
            model_accepts = True
        except ValidationError:
            model_accepts = False
        assert validator.is_valid(value) == model_accepts, (path, value)


def test_the_readme_table_is_up_to_date() -> None:
    readme = (REPO / "docs" / "reference" / "scenario-format.md").read_text(encoding="utf-8")
    assert section() in readme, "out of date; run: python -m pytest_pulsar_ha.scenario.reference"
    assert fault_section() in readme, "out of date; run: python -m pytest_pulsar_ha.scenario.reference"


def test_the_fault_table_shows_each_kind_s_facts() -> None:
    rows = {line.split(" | ")[0].strip("| `"): line.split(" | ") for line in fault_table().splitlines()[2:]}
    header = [cell.strip("| ") for cell in fault_table().splitlines()[0].split(" | ")]
    kill = dict(zip(header, (cell.strip("| `") for cell in rows["kill"]), strict=True))
    assert (kill["acts on"], kill["restarts"], kill["quiet_end"], kill["instant"]) == ("processes", "yes", "yes", "")
    assert "controlled" in rows["url_provider"][-1]


def test_the_table_says_which_durations_may_be_zero() -> None:
    rows = {line.split(" | ")[0].strip("| `"): line for line in table().splitlines()[2:]}
    assert "a duration above zero" in rows["workload.duration"]
    assert "a duration above zero" in rows["provider.check_interval"]
    assert "a duration above zero" in rows["expect[].availability.ack_within"]
    assert "0 or more" in rows["workload.send_timeout"]
    assert "a whole number from 1 to 2147483647" in rows["workload.producers"]


def test_rewrite_needs_the_markers() -> None:
    with pytest.raises(ValueError, match="no generated table"):
        rewrite("# a README without the table\n")


def test_the_command_rewrites_the_readme(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    stale = f"{section().replace('| `name`', '| `old`')}\n{fault_section().replace('| `kill`', '| `old`')}"
    readme.write_text(f"before\n{stale}\nafter\n", encoding="utf-8")
    assert main([str(readme)]) == 0
    assert readme.read_text(encoding="utf-8") == f"before\n{section()}\n{fault_section()}\nafter\n"
    assert main(["-"]) == 0
    assert capsys.readouterr().out == table() + "\n" + fault_table()
