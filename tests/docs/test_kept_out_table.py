"""The development page's (docs/development.md) table of what `make test` leaves out lists exactly the items
its mark expression deselects, each
with a mark that deselects it, its reason and a make target (one the Makefile defines) that runs it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BEGIN = "<!-- kept-out: checked by tests/docs/test_kept_out_table.py -->"
END = "<!-- end of kept-out -->"


def _kept_out_marks() -> str:
    makefile = (ROOT / "Makefile").read_text()
    match = re.search(r"^KEPT_OUT := (.+)$", makefile, re.MULTILINE)
    assert match, "the Makefile defines KEPT_OUT, the marks make test leaves out"
    return match.group(1).strip()


def _table() -> list[list[str]]:
    text = (ROOT / "docs" / "development.md").read_text()
    block = text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
    rows = [line for line in block.strip().splitlines() if line.startswith("| `")]
    cells = re.compile(r"(?<!\\)\|")  # a cell may hold an escaped pipe (\|), as Markdown tables allow
    return [[cell.strip().strip("`").replace("\\|", "|") for cell in cells.split(row.strip("|"))] for row in rows]


def _collected(marks: str) -> dict[str, set[str]]:
    """Each item that ``-m marks`` selects, with the marks of KEPT_OUT it carries."""
    names = {m.strip() for m in marks.split(" or ")}
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [*command, "-p", "tests.docs.print_marks", "-m", marks],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    found: dict[str, set[str]] = {}
    for line in run.stdout.splitlines():
        if line.startswith("KEPT-OUT "):
            _, nodeid, item_marks = line.split(" ", 2)
            found[nodeid] = names & set(item_marks.split(","))
    return found


def test_the_table_lists_what_make_test_leaves_out_with_its_mark_and_a_target() -> None:
    marks = _kept_out_marks()
    collected = _collected(marks)
    table = _table()
    assert len(table) == len(collected), sorted(collected)
    targets = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), re.MULTILINE))
    for item, mark, reason, command in table:
        assert item in collected, f"{item}: not among the items make test leaves out"
        assert mark in collected[item], f"{item}: listed as {mark}, carries {sorted(collected[item])}"
        assert len(reason) > 20, f"{item}: say why"
        target = command.removeprefix("make ")
        assert command.startswith("make ") and target in targets, f"{item}: {command} is not a make target"
