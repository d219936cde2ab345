"""The scripts under ``benchmarks/`` (not a package) loaded as modules, for the tests that reuse their parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark(name: str) -> Any:
    """``benchmarks/<name>.py`` as a module (its ``main`` is not run)."""
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
