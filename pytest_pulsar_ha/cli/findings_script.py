"""``pulsar-ha findings script``: run a finding's plain script on a provisioned Pulsar and keep its output."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.report import script_runs


def _say(message: str) -> None:
    print(message, flush=True)


def run_script(root: Path, key: str, version: str, runs: int) -> int:
    from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_pulsar
    from pytest_pulsar_ha.report.finding_dossiers import dossier
    from pytest_pulsar_ha.report.finding_reports import report_dir

    try:
        info = dossier(key)
    except KeyError as exc:
        raise ConfigurationError(str(exc.args[0])) from None
    folder = report_dir(root, key)
    script = folder / info.script if info.script else None
    if script is None or not script.is_file():
        raise ConfigurationError(f"{key}: no plain script beside its report ({folder}/reproduce.py)")
    dist = ensure_pulsar(version, default_cache_dir(), _say)
    env = dict(os.environ, JAVA_HOME=str(dist.java.resolve().parent.parent), PULSAR_HOME=str(dist.home))
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = script_runs.header(
        f"python3 {script.name} $PULSAR_HOME  # Pulsar {dist.label}, {runs} run(s)",
        f"{started} on {script_runs.machine()}",
    )
    statuses = []
    for index in range(1, runs + 1):
        _say(f"--- run {index}/{runs}: {script.name} on Pulsar {dist.label}")
        done = subprocess.run(
            [sys.executable, str(script), str(dist.home)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
        print(done.stdout, end="", flush=True)
        statuses.append(done.returncode)
        lines += script_runs.run_block(index, done.returncode, done.stdout)
        work = script_runs.work_folder(done.stdout)
        if info.log_pattern and work is not None and work.is_dir():
            for cluster, hits in script_runs.matching_log_lines(work, info.log_pattern).items():
                if hits:
                    out = folder / script_runs.LOGS_FOLDER / version / f"{cluster}.log"
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_text("\n".join(hits) + "\n")
    out = folder / script_runs.RUNS_FOLDER / f"{version}.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    _say(f"wrote {out}: {', '.join(script_runs.MEANING.get(s, f'exit {s}') for s in statuses)}")
    return 0 if all(s == 0 for s in statuses) else 1
