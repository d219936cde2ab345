"""Run a benchmark and keep what it prints as evidence for the results pages.

    python benchmarks/store.py benchmarks/bringup.py --counts 2,3
    python benchmarks/store.py --name switch_windows_reconnect benchmarks/switch_windows.py --rounds 50 ...

runs the benchmark (its output still shows), writes it to ``docs/results/data/bringup.txt`` (or ``<name>.txt``)
under a header (the command, when it ran, the machine's cores and memory, and its exit status when it is 1: a
benchmark that ran and reports failed rounds is evidence too), and rewrites ``docs/results/stored-outputs.md``, the page
that shows every stored output as it is (``tests/docs/test_stored_outputs.py`` fails when the page and the files
disagree). Measured figures in the docs come from these files, never typed in by hand.
"""

from __future__ import annotations

import datetime
import shlex
import subprocess
import sys
from pathlib import Path

from pytest_pulsar_ha.report.script_runs import machine

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "results" / "data"
PAGE = ROOT / "docs" / "results" / "stored-outputs.md"
RAN_BUT_FAILED = 1
"""A benchmark's exit status when it ran to the end and some of what it checks failed (kept: evidence too);
any other non-zero status (a usage error, a crash) stores nothing."""


def render() -> str:
    """The page: every stored output, newest file name order, each in a fenced block."""
    lines = [
        "# Stored benchmark outputs",
        "",
        "What the benchmarks printed, kept as they printed it (`python benchmarks/store.py benchmarks/<name>.py ...`",
        "writes one and rewrites this page). Each starts with the command, when it ran and on what machine.",
        "",
    ]
    files = sorted(DATA.glob("*.txt")) if DATA.exists() else []
    if not files:
        lines += ["No output is stored yet: run a benchmark through `benchmarks/store.py`.", ""]
    for path in files:
        lines += [f"## {path.stem}", "", "```text", *path.read_text().rstrip("\n").splitlines(), "```", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    name = None
    if argv[:1] == ["--name"] and len(argv) > 1:
        name, argv = argv[1], argv[2:]
    if not argv or not argv[0].endswith(".py"):
        print(__doc__, file=sys.stderr)
        return 2
    script = Path(argv[0])
    command = [sys.executable, str(script), *argv[1:]]
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shown = shlex.join(["python", str(script), *argv[1:]])
    header = [f"$ {shown}", f"# ran {started} on {machine()}"]
    output: list[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            output.append(line.rstrip("\n"))
    if process.returncode not in (0, RAN_BUT_FAILED):
        print(f"{shown} exited {process.returncode}: nothing stored", file=sys.stderr)
        return process.returncode
    if process.returncode:
        header.append(f"# exited {process.returncode}: it ran, and what it checks did not all pass")
    DATA.mkdir(parents=True, exist_ok=True)
    target = DATA / f"{name or script.stem}.txt"
    target.write_text("\n".join([*header, "", *output]) + "\n")
    PAGE.write_text(render())
    print(f"stored {target.relative_to(ROOT)}; rewrote {PAGE.relative_to(ROOT)}", file=sys.stderr)
    return process.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
