"""The stored-outputs page shows every stored benchmark output as it is (``benchmarks/store.py`` writes both)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _store() -> object:
    spec = importlib.util.spec_from_file_location("bench_store", ROOT / "benchmarks" / "store.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_the_stored_files() -> None:
    store = _store()
    page = ROOT / "docs" / "results" / "stored-outputs.md"
    assert page.read_text() == store.render(), "out of date; run a benchmark through benchmarks/store.py"  # type: ignore[attr-defined]


def test_every_stored_output_names_its_command_and_machine() -> None:
    for path in sorted((ROOT / "docs" / "results" / "data").glob("*.txt")):
        first, second = path.read_text().splitlines()[:2]
        assert first.startswith("$ python benchmarks/") and second.startswith("# ran "), path
