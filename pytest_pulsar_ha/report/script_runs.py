"""A finding's plain script (``docs/results/reports/<key>/reproduce.py``) run here, kept beside its report.

``pulsar-ha findings script KEY --version V`` runs the script on the provisioned Pulsar ``V`` (``--runs N`` times),
writes what it printed to ``runs/<V>.txt`` under the report's folder, and copies the broker log lines that show the
mechanism (the dossier's ``log_pattern``) from the script's kept logs to ``logs/<V>/<cluster>.log``. The report
quotes both. A file holds one batch of runs: each run's exit status (0 shown, 1 not shown, 2 a set-up error) and
its output, under a header with the command, the day and the machine.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

RUNS_FOLDER = "runs"
LOGS_FOLDER = "logs"
MAX_LOG_LINES = 40
"""At most this many matching lines are kept per cluster and version (the first ones)."""
_RUN = re.compile(r"^## run (\d+): exit (\d+)")
_WORK = re.compile(r"logs kept under (\S+)")
MEANING = {0: "shown", 1: "not shown", 2: "set-up error"}


@dataclass(frozen=True)
class ScriptRun:
    """One run of the plain script as stored: its version, its exit status and what it printed."""

    version: str
    ran: str
    """the header's ``# ran ...`` line (the day, the machine)"""
    status: int
    output: tuple[str, ...]

    @property
    def meaning(self) -> str:
        return MEANING.get(self.status, f"exit {self.status}")


def machine() -> str:
    """The machine a stored output ran on, as headers say it: ``2 cores, 24 GiB`` (``benchmarks/store.py`` too)."""
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(meminfo.read_text().split("MemTotal:")[1].split()[0])
        memory = f", {kib / 1024 / 1024:.0f} GiB"
    return f"{os.cpu_count()} cores{memory}"


def header(command: str, ran: str) -> list[str]:
    return [f"$ {command}", f"# ran {ran}"]


def run_block(index: int, status: int, output: str) -> list[str]:
    return [f"## run {index}: exit {status} ({MEANING.get(status, 'unexpected')})", *output.rstrip().splitlines(), ""]


def parse(version: str, text: str) -> list[ScriptRun]:
    """The runs a stored file holds (a file without a ``## run`` line holds none)."""
    lines = text.splitlines()
    ran = next((line[len("# ran ") :] for line in lines if line.startswith("# ran ")), "")
    runs: list[ScriptRun] = []
    current: tuple[int, list[str]] | None = None
    for line in lines:
        match = _RUN.match(line)
        if match:
            if current is not None:
                runs.append(ScriptRun(version, ran, current[0], tuple(current[1])))
            current = (int(match.group(2)), [])
        elif current is not None:
            current[1].append(line)
    if current is not None:
        runs.append(ScriptRun(version, ran, current[0], tuple(current[1])))
    return runs


def stored_runs(report_folder: Path) -> list[ScriptRun]:
    """Every stored run of the report's script, by version (the file names: ``runs/<version>.txt``)."""
    folder = report_folder / RUNS_FOLDER
    if not folder.is_dir():
        return []
    runs: list[ScriptRun] = []
    for path in sorted(folder.glob("*.txt")):
        runs += parse(path.stem, path.read_text(errors="replace"))
    return runs


def work_folder(output: str) -> Path | None:
    """Where the script kept its logs (it prints ``logs kept under <folder>`` as it ends)."""
    found = _WORK.findall(output)
    return Path(found[-1]) if found else None


def matching_log_lines(work: Path, pattern: str) -> dict[str, list[str]]:
    """Each cluster's broker log lines that match ``pattern`` (cluster name -> lines, at most MAX_LOG_LINES)."""
    wanted = re.compile(pattern)
    out: dict[str, list[str]] = {}
    for log in sorted(work.glob("*/logs/stdout.log")):
        cluster = log.parent.parent.name
        hits = [line for line in log.read_text(errors="replace").splitlines() if wanted.search(line)]
        out.setdefault(cluster, []).extend(hits)
    return {cluster: lines[:MAX_LOG_LINES] for cluster, lines in out.items()}


def summary(runs: list[ScriptRun], link: str = "") -> list[str]:
    """A line per version: how many stored runs showed it, when they ran, and (with ``link``, the report's folder
    as a link from the report) where their output is."""
    lines = []
    for version in sorted({r.version for r in runs}):
        mine = [r for r in runs if r.version == version]
        shown = sum(r.status == 0 for r in mine)
        statuses = ", ".join(r.meaning for r in mine)
        where = f" ([`{RUNS_FOLDER}/{version}.txt`]({link}/{RUNS_FOLDER}/{version}.txt))" if link else ""
        lines.append(f"- {version}: shown in {shown} of {len(mine)} runs ({statuses}); ran {mine[0].ran}{where}")
    return lines
