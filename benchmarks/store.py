"""Run a benchmark and keep what it prints as evidence for the results pages.

    python benchmarks/store.py benchmarks/bringup.py --counts 2,3

runs the benchmark (its output still shows), writes it to ``docs/results/data/bringup.txt`` under a header (the
command, when it ran, the machine's cores and memory), and rewrites ``docs/results/stored-outputs.md``, the page
that shows every stored output as it is (``tests/docs/test_stored_outputs.py`` fails when the page and the files
disagree). Measured figures in the docs come from these files, never typed in by hand.
"""

from __future__ import annotations

import datetime
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "results" / "data"
PAGE = ROOT / "docs" / "results" / "stored-outputs.md"


def machine() -> str:
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(meminfo.read_text().split("MemTotal:")[1].split()[0])
        memory = f", {kib / 1024 / 1024:.0f} GiB"
    return f"{os.cpu_count()} cores{memory}"


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
    if not argv or not argv[0].endswith(".py"):
        print(__doc__, file=sys.stderr)
        return 2
    script = Path(argv[0])
    command = [sys.executable, str(script), *argv[1:]]
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shown = shlex.join(["python", str(script), *argv[1:]])
    header = [f"$ {shown}", f"# ran {started} on {machine()}", ""]
    output: list[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            output.append(line.rstrip("\n"))
    if process.returncode != 0:
        print(f"{shown} exited {process.returncode}: nothing stored", file=sys.stderr)
        return process.returncode
    DATA.mkdir(parents=True, exist_ok=True)
    target = DATA / f"{script.stem}.txt"
    target.write_text("\n".join([*header, *output]) + "\n")
    PAGE.write_text(render())
    print(f"stored {target.relative_to(ROOT)}; rewrote {PAGE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
