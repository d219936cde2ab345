"""The stored-outputs page shows every stored benchmark output as it is (``benchmarks/store.py`` writes both)."""

from __future__ import annotations

from pathlib import Path

from tests.benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[2]


def _store() -> object:
    return load_benchmark("store")


def test_the_page_is_the_stored_files() -> None:
    store = _store()
    page = ROOT / "docs" / "results" / "stored-outputs.md"
    assert page.read_text() == store.render(), "out of date; run a benchmark through benchmarks/store.py"  # type: ignore[attr-defined]


def test_every_stored_output_names_its_command_and_machine() -> None:
    for path in sorted((ROOT / "docs" / "results" / "data").glob("*.txt")):
        first, second = path.read_text().splitlines()[:2]
        assert first.startswith("$ python benchmarks/") and second.startswith("# ran "), path


def test_every_benchmark_has_a_stored_output() -> None:
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} - {"store", "__init__"}
    stored = {p.stem for p in (ROOT / "docs" / "results" / "data").glob("*.txt")}
    assert scripts <= stored, f"no stored output for {sorted(scripts - stored)}: run them through benchmarks/store.py"


def _text_blocks(markdown: str) -> list[str]:
    blocks, current, inside = [], [], False
    for line in markdown.splitlines():
        if line.strip() == "```text":
            inside, current = True, []
        elif inside and line.strip() == "```":
            inside = False
            blocks.append("\n".join(current))
        elif inside:
            current.append(line)
    return blocks


def test_the_figures_on_the_results_page_are_excerpts_of_stored_outputs() -> None:
    """Every ```text block of the benchmarks page is a run of whole lines of one stored output, as printed."""
    page = (ROOT / "docs" / "results" / "benchmarks.md").read_text()
    outputs = [p.read_text() for p in sorted((ROOT / "docs" / "results" / "data").glob("*.txt"))]
    blocks = _text_blocks(page)
    assert blocks, "the benchmarks page quotes no stored output"
    for block in blocks:
        assert block.strip(), "an empty excerpt"
        assert any(f"\n{block}\n" in f"\n{output}" for output in outputs), f"not in any stored output:\n{block}"
