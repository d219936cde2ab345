"""The outcome of a run is decided in one place (:func:`pytest_pulsar_ha.checks.outcome.decide`): the conductor
records what happened, the pytest layer maps the decided outcome to pytest's. Neither holds outcome logic: they
never compare verdicts with an announced failure (``mismatches``, ``deadlock_differences``), never write an
outcome's name into a result, and never read failed expectations to judge (``failed_checks``, ``.ok``). Read
with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "pytest_pulsar_ha"
LAYERS = [ROOT / "run" / "conductor.py", *sorted((ROOT / "pytest").glob("*.py"))]
"""The conductor and every module of the pytest layer."""
OUTCOMES = {"passed", "failed", "xfailed", "xpassed", "killed", "survived", "not applicable", "not judged"}
OUTCOMES |= {"deviated", "interrupted", "n/a"}  # the conductor's outcomes before #40
JUDGES = {"mismatches", "deadlock_differences", "failed_checks", "_plain", "_mutated", "_expected", "_deadlocked"}


def _outcome_logic(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in JUDGES:
                found.append(f"line {node.lineno}: uses {name}")
            if isinstance(node, ast.Attribute) and node.attr == "ok" and isinstance(node.ctx, ast.Load):
                found.append(f"line {node.lineno}: reads a verdict's .ok")
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr in ("outcome", "ok", "reason"):
                    found.append(f"line {node.lineno}: assigns .{target.attr}")
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and side.value in OUTCOMES:
                    found.append(f"line {node.lineno}: compares with the outcome {side.value!r}")
    return sorted(found, key=lambda f: (int(f.split()[1].rstrip(":")), f))


@pytest.mark.parametrize("path", LAYERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_conductor_and_the_pytest_layer_hold_no_outcome_logic(path: Path) -> None:
    found = _outcome_logic(ast.parse(path.read_text(encoding="utf-8")))
    if path.name == "runner.py":  # the mapping to pytest: one comparison per outcome it maps, nothing else
        found = [f for f in found if "compares with the outcome" not in f]
    if path.name == "mutation.py":  # the kill matrix counts what decide() said
        found = [f for f in found if "compares with the outcome" not in f]
    assert found == [], f"{path.name} decides outcomes: {found}"


def test_the_check_above_finds_outcome_logic() -> None:
    """What the runner did before #40: it would fail the test above."""
    before = ast.parse(
        "def judge(result, entry, kinds):\n"
        "    if not mismatches(entry.names, entry.measured, kinds, result.checks):\n"
        "        result.outcome = 'xfailed'\n"
        "    failed = [c for c in result.checks if not c.ok]\n"
        "    if result.outcome == 'passed': pass\n"
    )
    assert _outcome_logic(before) == [
        "line 2: uses mismatches",
        "line 3: assigns .outcome",
        "line 4: reads a verdict's .ok",
        "line 5: compares with the outcome 'passed'",
    ]
