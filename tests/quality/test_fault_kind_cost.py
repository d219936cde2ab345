"""What a new fault kind costs: its class, in a family module of ``scenario/faults/``, and its primitive row, in
``nemesis/primitives.py``, then its scenario and its test. Every other consumer reads the kind's facts and
fields, or gathers the kinds by iteration (the ``Fault`` union, the package's exports, the generator's drawable
kinds, the reference and the schema), and so names none.

A package file *names* a kind when its code holds the kind's YAML name as a whole string (``"unload"``) or its
class's name (``UnloadFault``: an import, a reference, an ``isinstance``). The test lists, for each kind, the
package files that name it, and fails when one names it beyond its class module and ``nemesis/primitives.py``.
The text is read with ``ast``; nothing is imported but the kinds.

``NAMED_ELSEWHERE`` lists the kinds still named elsewhere (a method or a key that happens to share the kind's name
counts as well). It only shrinks: the test fails on a file it does not list, and on a listed one that no longer
names the kind. A new kind has no entry.
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

import pytest

from pytest_pulsar_ha.scenario.faults import FAULT_CLASSES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_pulsar_ha"
PRIMITIVE_ROWS = "nemesis/primitives.py"
"""The file of the nemesis' table, where each kind has its row."""

NAMED_ELSEWHERE: dict[str, set[str]] = {
    "latency": {"runtime/cluster.py"},  # the cluster's latency toxic
    "timeout": {"runtime/cluster.py"},  # the toxic's type
    "bandwidth": {"runtime/cluster.py", "scenario/quantities.py"},  # the toxic's type; the quantity
    "operator_switch": {"checks/windows.py"},
    "url_provider": {
        "checks/windows.py",
        "run/parts/java_client.py",
        "run/provider.py",
        "scenario/kind_facts.py",
        "scenario/providers.py",
    },
    "broker_kill": {"run/parts/placement.py"},
    "broker_pause": {"run/parts/placement.py"},
    "domain_outage": {"run/parts/placement.py"},
    "migrate": {"cli/migrate.py", "run/parts/migrations.py", "scenario/expectation_rules.py"},
}
"""Fault kind -> the package files (below ``pytest_pulsar_ha/``) that still name it beyond its two."""


@cache
def _names(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """The whole strings and the identifiers of ``path``'s code (docstrings are whole strings too, but a
    sentence is never a kind's name)."""
    strings: set[str] = set()
    identifiers: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
        elif isinstance(node, ast.Name):
            identifiers.add(node.id)
        elif isinstance(node, ast.Attribute):
            identifiers.add(node.attr)
        elif isinstance(node, ast.alias):
            identifiers.add(node.asname or node.name.rpartition(".")[2])
    return frozenset(strings), frozenset(identifiers)


def names(path: Path, kind: str) -> bool:
    """Whether the code of ``path`` names ``kind``: its YAML name as a whole string, or its class's name."""
    strings, identifiers = _names(path)
    return kind in strings or FAULT_CLASSES[kind].__name__ in identifiers


def naming(kind: str) -> set[str]:
    """The package files that name ``kind`` (by its YAML name or its class's name), relative to the package."""
    return {path.relative_to(PACKAGE).as_posix() for path in sorted(PACKAGE.rglob("*.py")) if names(path, kind)}


def _class_module(kind: str) -> str:
    module = sys.modules[FAULT_CLASSES[kind].__module__]
    assert module.__file__ is not None
    return Path(module.__file__).relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("kind", sorted(FAULT_CLASSES))
def test_a_fault_kind_is_named_only_by_its_class_module_and_its_primitive_row(kind: str) -> None:
    own = {_class_module(kind), PRIMITIVE_ROWS}
    named = naming(kind)
    assert own <= named, f"{kind}: expected its class module and its primitive row to name it, found {sorted(named)}"
    extra = named - own - NAMED_ELSEWHERE.get(kind, set())
    assert not extra, (
        f"fault kind {kind} is named in {sorted(extra)}, beyond its class module and {PRIMITIVE_ROWS}: read its "
        "facts or fields there (scenario/facts.py), or gather the kinds by iteration"
    )
    gone = NAMED_ELSEWHERE.get(kind, set()) - named
    assert not gone, f"{kind} is no longer named in {sorted(gone)}: remove them from NAMED_ELSEWHERE"


def test_the_listed_kinds_exist() -> None:
    assert set(NAMED_ELSEWHERE) <= set(FAULT_CLASSES)


def test_the_unions_and_the_exports_name_no_kind() -> None:
    """The generic assembly, by iteration over the family modules, is not a place a new kind must be added."""
    assembly = ["scenario/faults/__init__.py", "scenario/__init__.py", "scenario/generate.py"]
    for kind in FAULT_CLASSES:
        for file in assembly:
            if file not in NAMED_ELSEWHERE.get(kind, set()):
                assert not names(PACKAGE / file, kind), f"{file} names {kind}"
