"""The cluster nodes (``runtime/nodes/``: how the embedded and docker backends run a cluster's processes) are the
runtime's own: no module outside ``runtime/`` imports them. What the others need of a cluster goes through the
cluster handle (``runtime/cluster.py``: the process verbs, the clock in ``runtime/clock.py``) or a pure module of
the runtime (``runtime/ledger_owners.py``: which cluster stored a ledger). The imports are read with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_pulsar_ha"
NODES = "pytest_pulsar_ha.runtime.nodes"


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def test_no_module_outside_the_runtime_imports_its_nodes() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE)
        if where.parts[0] == "runtime":
            continue
        for line, name in _imports(ast.parse(path.read_text())):
            if name == NODES or name.startswith(f"{NODES}."):
                found.append(f"{where}:{line} imports {name}")
    assert not found, "modules outside runtime/ reach into runtime/nodes/: " + "; ".join(found)
