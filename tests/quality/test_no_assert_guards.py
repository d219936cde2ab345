"""Library code guards behaviour with real checks, not ``assert`` (which ``python -O`` removes)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pytest_pulsar_ha", "spark_checks", "providers/pulsar_ha_providers")


def test_no_assert_statement_in_library_code() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assert)
    ]
    assert found == []


def test_ruff_forbids_assert_in_the_packages_only() -> None:
    import tomllib

    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "S101" in lint["select"]
    assert "S101" in lint["per-file-ignores"]["tests/**"]


def test_waiting_for_acks_times_out_with_an_exception_even_under_python_O() -> None:
    code = textwrap.dedent(
        """
        from pytest_pulsar_ha.workload.one_topic import OneTopicWorkload
        work = OneTopicWorkload(None, "t")
        try:
            work.wait_for_acks(1, timeout=0.2)
        except TimeoutError as exc:
            print("raised:", exc)
        else:
            print("returned")
        """
    )
    run = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, timeout=20, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("raised: fewer than 1 acks in 0.2s"), run.stdout


def test_streaming_a_process_without_a_pipe_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_pulsar_ha.provisioning import streaming

    class NoPipe:
        stdout = None

        def __init__(self, *args: object, **kwargs: object) -> None:
            self.killed = False

        def kill(self) -> None:
            self.killed = True

    monkeypatch.setattr(streaming.subprocess, "Popen", NoPipe)
    with pytest.raises(RuntimeError, match="no stdout pipe"):
        streaming.run_with_progress(["true"], what="x", progress=print, hint="")
