"""``make demo`` as a new user meets it on this machine: a clean clone, an empty HOME (no pip cache, no Go build
cache, no Pulsar, no toxiproxy), the machine's own Java, Go and libfaketime where it has them.

    python benchmarks/first_demo.py                  # make demo twice, then on 4.0.8
    python benchmarks/first_demo.py --commands "make demo"

The checkout's HEAD is cloned (uncommitted files stay out) into a temporary folder beside a temporary HOME; the
variables that would point pip, Go or the project at another cache are dropped. The commands run there one after
the other (the second ``make demo`` finds everything the first set up; ``PYTEST_ARGS=--pulsar-ha-pulsar-version=
4.0.8`` provisions the second version first). What is printed is each command's time, the time of each phase of
make's recipe (from the command lines make echoes), each case's time and outcome and each environment's start (the
plugin's summary lines), each case's phases of a second or more (its ``verdict.json``), the machine's load average
after each command (other work on the machine shows there), and the tail of a failed command's log. Every command
runs in a process group of its own; whatever is left after a command (or when the script is stopped) is reaped with
the clone's ``pulsar-ha reap``, which knows only this HOME's processes. The clone and HOME are removed at the end
unless ``--keep``. Exits 0 when every command passed, 1 when one ran and failed (benchmarks/store.py keeps both).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh_machine import Step, report_step, run_command, say  # noqa: E402

COMMANDS = ("make demo", "make demo", "make demo PYTEST_ARGS=--pulsar-ha-pulsar-version=4.0.8")
DROPPED = ("PIP_", "GO", "PULSAR_HA_", "XDG_", "VIRTUAL_ENV", "PYTHONPATH")
"""Environment variables (by prefix) that could point at a cache or an environment of this machine's."""


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED)}
    env["HOME"] = str(home)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if "/.venv/" not in p)
    return env


def stop_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)


def reap(clone: Path, env: dict[str, str]) -> None:
    """This HOME's leftovers (the clone's registry of process groups), if the venv exists by then."""
    binary = clone / ".venv" / "bin" / "pulsar-ha"
    if binary.exists():
        subprocess.run([str(binary), "reap"], cwd=clone, env=env, capture_output=True, text=True, timeout=300)


def phase_lines(evidence: Path, since: float, at_least_s: float = 1.0) -> list[str]:
    """Each case's phases of ``at_least_s`` or more (verdict.json's ``phases``), for the verdicts written since."""
    lines = []
    for verdict in sorted(evidence.glob("*/verdict.json"), key=lambda p: p.stat().st_mtime):
        if verdict.stat().st_mtime < since:
            continue
        data = json.loads(verdict.read_text())
        phases = data.get("phases") or {}
        shown = ", ".join(f"{name} {s:.1f}" for name, s in phases.items() if s >= at_least_s)
        lines.append(f"{data['id']}: {sum(phases.values()):.0f} s in the run's phases; {shown}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", nargs="+", help="run these instead (each a shell command line)")
    parser.add_argument("--budget", type=float, help="stop a command still running after this many seconds in all")
    parser.add_argument("--logs", type=Path, help="folder for each command's log (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and HOME (their paths are printed)")
    args = parser.parse_args(argv)
    commands = args.commands or COMMANDS
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below reaps and removes

    began = time.monotonic()
    deadline = began + args.budget if args.budget else None
    logs = args.logs or Path(tempfile.mkdtemp(prefix="pulsar-ha-first-demo-logs-"))
    logs.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="pulsar-ha-first-demo-"))
    clone, home = work / "pytest-pulsar-ha", work / "home"
    home.mkdir()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    env = clean_env(home)
    say(f"first demo: clean clone of {head.stdout.strip()}; empty HOME; this machine's own toolchains")
    for tool in ("java", "go", "mvn"):
        say(f"  {tool}: {shutil.which(tool, path=env['PATH']) or 'none'}")
    say(f"logs: {logs}")
    steps = [Step(c) for c in commands]
    try:
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
        for number, step in enumerate(steps, 1):
            if deadline is not None and time.monotonic() > deadline:
                break
            log = logs / f"step{number}.log"
            say(f"\n$ {step.command}    (log: {log})")
            command = ["bash", "-c", f"{step.command} 2>&1"]
            run_command(command, step, log, deadline, stop_group, cwd=clone, env=env, start_new_session=True)
            reap(clone, env)
            details = phase_lines(clone / "reports" / "pulsar-ha", since=time.time() - step.seconds)
            load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
            if report_step(step, log, [*details, f"load average after it (1, 5, 15 min): {load}"]):
                break
    finally:
        reap(clone, env)
        if args.keep:
            say(f"kept: {clone} (HOME {home})")
        else:
            shutil.rmtree(work, ignore_errors=True)
    say("\ncommand                                                       seconds  status")
    for step in steps:
        say(f"{step.command[:60]:<60}  {step.seconds:8.0f}  {step.status}")
    return 0 if all(s.status == "passed" for s in steps) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
