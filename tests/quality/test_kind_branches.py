"""Provider and client kinds are decided once, by their classes: each kind's facts (``facts``, declared on its class
in ``scenario/providers.py``, :mod:`pytest_pulsar_ha.scenario.kind_facts`) say what the rest of the package asks.
No other module branches on a provider or client kind: no ``kind == "auto"``, no ``kind in ("auto", "native")``,
no ``isinstance(provider, AutoProvider)``, no ``match`` on their classes or kind names, no table keyed by kind
names. The package is read with ``ast``; nothing is imported but the kind tables.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pulsar_ha.scenario.providers import CLIENT_CLASSES, PROVIDER_CLASSES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_pulsar_ha"
DECLARING = {"pytest_pulsar_ha/scenario/providers.py", "pytest_pulsar_ha/scenario/kind_facts.py"}
"""The modules that declare the kinds and their facts: the only ones that may tell the kinds apart."""

KIND_NAMES = frozenset(PROVIDER_CLASSES) | frozenset(CLIENT_CLASSES)
CLASS_NAMES = frozenset(c.__name__ for c in (*PROVIDER_CLASSES.values(), *CLIENT_CLASSES.values()))
KIND_LISTS = frozenset({"JAVA_PROVIDER_KINDS", "RELAYED_PROVIDER_KINDS"})
"""Kind names listed by a fact, for messages: a membership test on them is a branch on kind names."""


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _kind_literals(node: ast.AST) -> set[str]:
    """The kind names a literal (a string, or a tuple, list or set of them) holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & KIND_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_kind_literals(e) for e in node.elts)) if node.elts else set()
    return set()


def _class_names(node: ast.AST) -> set[str]:
    """The provider or client classes an ``isinstance`` or ``match`` class argument names (``A | B``, ``(A, B)``)."""
    if isinstance(node, ast.BinOp):
        return _class_names(node.left) | _class_names(node.right)
    if isinstance(node, ast.Tuple):
        return set().union(*(_class_names(e) for e in node.elts)) if node.elts else set()
    name = _name(node)
    return {name} & CLASS_NAMES if name else set()


def _is_kind(node: ast.AST) -> bool:
    """A kind's name, or what may hold it (a client kind passed on as ``client``)."""
    name = _name(node)
    return name is not None and (name.endswith("kind") or name in ("client", "provider"))


def branches(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) for each branch on a provider or client kind in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_is_kind(o) for o in operands):
                named = set().union(*(_kind_literals(o) for o in operands))
                if named:
                    yield node.lineno, f"a kind compared with {', '.join(sorted(named))}"
            if any(_name(o) in KIND_LISTS for o in node.comparators):
                yield node.lineno, "a kind looked up in a list of kind names"
        elif isinstance(node, ast.Call) and _name(node.func) == "isinstance" and len(node.args) == 2:
            named = _class_names(node.args[1])
            if named:
                yield node.lineno, f"isinstance on {', '.join(sorted(named))}"
        elif isinstance(node, ast.MatchClass):
            named = _class_names(node.cls)
            if named:
                yield node.lineno, f"a match on {', '.join(sorted(named))}"
        elif isinstance(node, ast.MatchValue) and _kind_literals(node.value):
            yield node.lineno, f"a match on the kind name {', '.join(sorted(_kind_literals(node.value)))}"
        elif isinstance(node, ast.Dict):
            keyed = set().union(*(_kind_literals(k) for k in node.keys if k is not None)) if node.keys else set()
            if len(keyed) >= 2:
                yield node.lineno, f"a table keyed by the kind names {', '.join(sorted(keyed))}"


def _modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(ROOT).as_posix() not in DECLARING]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_branches_on_a_provider_or_client_kind(path: Path) -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in branches(ast.parse(path.read_text()))]
    assert not found, "read the kind's facts instead (scenario/kind_facts.py):\n" + "\n".join(found)


def test_the_declaring_modules_exist() -> None:
    assert all((ROOT / path).is_file() for path in DECLARING)


@pytest.mark.parametrize(
    "source",
    [
        'if provider.kind == "auto":\n    pass\n',
        'if scenario.client.kind != "java":\n    pass\n',
        'if kind in ("native", "custom"):\n    pass\n',
        'x = provider_kind == "controlled"\n',
        'if client == "java":\n    pass\n',
        "if scenario.provider.kind not in RELAYED_PROVIDER_KINDS:\n    pass\n",
        "if isinstance(provider, AutoProvider):\n    pass\n",
        "if isinstance(spec, AutoProvider | ControlledProvider):\n    pass\n",
        "ok = isinstance(client, (PythonClient, JavaClient))\n",
        "match provider:\n    case NativeProvider():\n        pass\n",
        'match provider.kind:\n    case "none":\n        pass\n',
        'names = {"auto": "ours", "controlled": "the URL provider\'s"}\n',
    ],
)
def test_the_checker_sees_a_branch_on_a_kind(source: str) -> None:
    assert list(branches(ast.parse(source)))


@pytest.mark.parametrize(
    "source",
    [
        'if fault.kind == "outage":\n    pass\n',
        'if workload.processes != "auto":\n    pass\n',
        'auth = "none" if token is None else "token"\n',
        "if provider.facts.relayed:\n    pass\n",
        "if isinstance(value, pulsar.ServiceInfoProvider):\n    pass\n",
        "if provider.kind != mutant.provider_kind:\n    pass\n",
    ],
)
def test_the_checker_lets_other_kinds_and_facts_be(source: str) -> None:
    assert not list(branches(ast.parse(source)))
