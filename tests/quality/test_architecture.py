"""The package's layers, held by its imports: a module imports only its own package or a package of a lower rank,
no two modules import each other (directly or round a loop), and no module grows past 400 lines
(here and in ``spark_checks/`` and ``providers/``).

Every import counts: at the top of a module, inside a function, and under ``if TYPE_CHECKING:`` across packages
(inside one package a TYPE_CHECKING-only import is allowed: the scenario rules annotate ``Scenario`` that way, and it
never runs). The graph is read with ``ast``; nothing is imported.

``ALLOWED`` lists the violations the layout still has while the redesign (#21) moves modules. It only shrinks: the
test fails on a violation it does not list, and on a listed one that is gone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "pytest_pulsar_ha"
MAX_LINES = 400
SIZED = (PACKAGE, "spark_checks", "providers")
"""The packages whose modules the size test covers."""

RANKS: dict[str, int] = {
    "errors": 0,
    "scenario": 1,
    "history": 1,
    "provisioning": 1,
    "admin": 1,
    "process": 2,
    "settings": 3,
    "network": 4,
    "pips": 5,
    "runtime": 6,
    "workload": 7,
    "nemesis": 7,
    "checks": 7,
    "report": 8,
    "mutants": 8,
    "warm": 8,
    "run": 9,
    "nightly": 9,
    "pytest": 10,
    "cli": 10,
    "__init__": 11,
    "__main__": 11,
}
"""Each top-level module or subpackage of the package and its layer: a module may import a lower one only."""

ALLOWED: set[tuple[str, str]] = set()
"""(importer, imported) violations still in the layout, module paths without the package prefix."""


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    type_checking: bool
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The package module ``name`` refers to (the longest known prefix), or None outside the package."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _in_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            return True
    return False


def _edges(module: str, path: Path, known: dict[str, Path]) -> Iterator[Edge]:
    tree = ast.parse(path.read_text())
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            target = _resolve(name, known)
            if target is not None and target != module:
                yield Edge(module, target, _in_type_checking(node, parents), node.lineno)


def _graph() -> list[Edge]:
    known = _modules()
    return [edge for module, path in known.items() for edge in _edges(module, path, known)]


def _short(module: str) -> str:
    return module.removeprefix(f"{PACKAGE}.") if module != PACKAGE else "__init__"


def _layer(module: str) -> str:
    short = _short(module)
    return short.split(".")[0]


def _violations(edges: list[Edge]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for edge in edges:
        source, target = _layer(edge.source), _layer(edge.target)
        where = f"{_short(edge.source)}:{edge.line}"
        if source == target:
            continue
        rank_source, rank_target = RANKS.get(source), RANKS.get(target)
        if rank_source is None or rank_target is None:
            unknown = source if rank_source is None else target
            found.setdefault((_short(edge.source), _short(edge.target)), f"{where}: {unknown} has no rank in RANKS")
        elif rank_source <= rank_target:
            found.setdefault(
                (_short(edge.source), _short(edge.target)),
                f"{where} imports {_short(edge.target)}: {source} (rank {rank_source}) may import only lower layers, "
                f"{target} is rank {rank_target}",
            )
    return found


def test_every_import_goes_down_the_layers() -> None:
    found = _violations(_graph())
    new = {key: why for key, why in found.items() if key not in ALLOWED}
    assert not new, "imports against the layers:\n" + "\n".join(sorted(new.values()))


def test_the_allowed_list_only_shrinks() -> None:
    found = _violations(_graph())
    gone = sorted(ALLOWED - set(found))
    assert not gone, f"no longer violations: remove them from ALLOWED: {gone}"


def _cycles(edges: list[Edge]) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for edge in edges:
        if not edge.type_checking:
            graph.setdefault(edge.source, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(_short(m) for m in component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_no_import_cycle() -> None:
    cycles = _cycles(_graph())
    cycles = [c for c in cycles if not (set(c) <= {"__init__"})]
    assert not cycles, f"modules that import each other, round a loop: {cycles}"


@pytest.mark.parametrize(
    "path", sorted(p for top in SIZED for p in (ROOT / top).rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_over_400_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by topic (at most {MAX_LINES})"


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The graph reader finds a function-level import and one under TYPE_CHECKING, and ranks them."""
    known = {f"{PACKAGE}.scenario.base": tmp_path / "base.py", f"{PACKAGE}.runtime.cluster": tmp_path / "cluster.py"}
    known[f"{PACKAGE}.scenario.base"].write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pytest_pulsar_ha.runtime.cluster import Cluster\n"
        "def f():\n    import pytest_pulsar_ha.runtime.cluster\n"
    )
    known[f"{PACKAGE}.runtime.cluster"].write_text("from pytest_pulsar_ha.scenario.base import Loc\n")
    edges = [e for m, p in known.items() for e in _edges(m, p, known)]
    assert [(e.source, e.target, e.type_checking) for e in edges if e.source.endswith("base")] == [
        (f"{PACKAGE}.scenario.base", f"{PACKAGE}.runtime.cluster", True),
        (f"{PACKAGE}.scenario.base", f"{PACKAGE}.runtime.cluster", False),
    ]
    assert set(_violations(edges)) == {("scenario.base", "runtime.cluster")}
    assert _cycles(edges) == [["runtime.cluster", "scenario.base"]]


BACKEND_PACKAGES = ("runtime.embedded", "runtime.docker", "runtime.external")


def test_the_backends_do_not_import_each_other() -> None:
    """Each backend stands beside the others behind the backends table; what two share lives in runtime/nodes."""

    def backend(module: str) -> str | None:
        short = _short(module)
        return next((b for b in BACKEND_PACKAGES if short == b or short.startswith(b + ".")), None)

    crossing = [
        f"{_short(e.source)}:{e.line} imports {_short(e.target)}"
        for e in _graph()
        if backend(e.source) and backend(e.target) and backend(e.source) != backend(e.target)
    ]
    assert not crossing, "\n".join(crossing)
