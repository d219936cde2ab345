"""docs/explanation/architecture.md's module table is the package's tree: every subpackage and top-level module of
``pytest_pulsar_ha/`` has a row, no row names one that is not there, and each row's rank is the layer rank the
architecture test holds (``RANKS`` in tests/quality/test_architecture.py). The page's size rule is that test's.

Rows are packages, not their modules: moving modules inside a package (``scenario/faults.py`` into
``scenario/faults/``) leaves the table as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.quality.test_architecture import MAX_LINES, RANKS

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "explanation" / "architecture.md"
PACKAGE = ROOT / "pytest_pulsar_ha"
NO_RANK = "-"
"""The rank of a folder without Python (the Java driver's sources): no import to rank."""


def tree() -> set[str]:
    """``name/`` for each folder of the package (but caches), ``name.py`` for each top-level module."""
    folders = {f"{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and not p.name.startswith(("__", "."))}
    return folders | {p.name for p in PACKAGE.glob("*.py")}


def table() -> dict[str, str]:
    """The module table's rows: module -> rank, as written."""
    text = PAGE.read_text()
    section = text[text.index("## Modules") :]
    section = section[: section.index("\n## ", 1)] if "\n## " in section[1:] else section
    rows = re.findall(r"^\| (\S+) \| `([^`]+)` \|", section, flags=re.M)
    return {module: rank for rank, module in rows}


def test_every_package_and_top_level_module_has_a_row() -> None:
    rows, there = set(table()), tree()
    assert not there - rows, f"{PAGE.relative_to(ROOT)}: add a row for {sorted(there - rows)}"
    assert not rows - there, f"{PAGE.relative_to(ROOT)}: no longer in pytest_pulsar_ha/: {sorted(rows - there)}"


def test_each_row_has_its_layer_rank() -> None:
    wrong = []
    for module, rank in table().items():
        name = module.removesuffix("/").removesuffix(".py")
        expected = str(RANKS[name]) if name in RANKS else NO_RANK
        if rank != expected:
            wrong.append(f"{module}: the page says {rank}, RANKS says {expected}")
    assert not wrong, "\n".join(wrong)


def test_a_folder_without_a_rank_holds_no_python() -> None:
    unranked = [m for m, rank in table().items() if rank == NO_RANK]
    assert all(not list((PACKAGE / m).rglob("*.py")) for m in unranked), unranked


def test_the_page_states_the_size_rule_the_test_holds() -> None:
    sizes = set(re.findall(r"(\d+) lines", PAGE.read_text()))
    assert sizes == {str(MAX_LINES)}, f"the page names {sorted(sizes)} lines; the architecture test holds {MAX_LINES}"


def test_the_table_reader_reads_rows() -> None:
    rows = table()
    assert rows["errors.py"] == "0" and rows["scenario/"] == "1" and len(rows) >= 20
