"""A nightly run: the suite run round after round, each round with a fresh seed, for a number of rounds or a
time budget; every round leaves JUnit XML (for CI to show; never read back) and a ``round.json`` made from the
scenarios' verdicts; the evidence of failed tests is kept, that of
passed ones pruned to their verdicts.

Each round is ``python -m pytest <args> --pulsar-ha-seed=<seed> --junitxml=... --pulsar-ha-evidence-dir=...`` in
a process of its own (a wedged client or a crashed round cannot take the night down), so a failing round is
replayed by its printed command, which names the same seed.

Exit codes: 0 every round passed (expected failures included); 1 some test failed in some round; 2 no round ran
(bad arguments, or the budget left no time); pytest's own usage errors (4) and "no tests" (5) stop the night
at once with that code.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_pulsar_ha.nightly.records import FAILING, RoundRecord, collect_round

STOP_CODES = (4, 5)
"""pytest exit codes that mean the command itself is wrong: the night stops."""


@dataclass(frozen=True)
class NightPlan:
    results: Path
    pytest_args: tuple[str, ...]
    rounds: int | None = None
    budget_s: float | None = None
    keep_passed_evidence: bool = False
    seed: int | None = None
    """the first round's seed (the next ones follow it); None: drawn from the OS"""
    versions: tuple[str, ...] = ()
    """Pulsar versions the rounds take in turn (round 1 the first, round 2 the second, ...); () the session's own"""

    def version_of(self, index: int) -> str | None:
        """The Pulsar version of round ``index`` (1-based), or None for the session's own."""
        return self.versions[(index - 1) % len(self.versions)] if self.versions else None


def round_seed(base: int | None, index: int) -> int:
    if base is None:
        return int.from_bytes(os.urandom(4), "big")
    return (base + index * 7919) % 2**32


def pytest_command(plan: NightPlan, round_dir: Path, seed: int, version: str | None = None) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        *plan.pytest_args,
        f"--pulsar-ha-seed={seed}",
        f"--junitxml={round_dir / 'junit.xml'}",
        f"--pulsar-ha-evidence-dir={round_dir / 'evidence'}",
        "-p",
        "no:cacheprovider",
        *([f"--pulsar-ha-pulsar-version={version}"] if version else []),
    ]


def prune(round_dir: Path, record: RoundRecord) -> None:
    """Keep the whole evidence of tests that did not pass (or were expected to fail); of the others, the
    verdict only."""
    kept = {t.test.split("::", 1)[-1] for t in record.tests if t.outcome not in ("passed", "not applicable")}
    evidence = round_dir / "evidence"
    for scenario_dir in sorted(p for p in evidence.glob("*") if p.is_dir()):
        verdict = scenario_dir / "verdict.json"
        name = _verdict_id(verdict) if verdict.exists() else None
        if name in kept:
            continue
        for item in scenario_dir.iterdir():
            if item.name != "verdict.json":
                shutil.rmtree(item) if item.is_dir() else item.unlink()


def _verdict_id(path: Path) -> str | None:
    import json

    try:
        data = json.loads(path.read_text())
    except ValueError:
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def run_night(
    plan: NightPlan,
    *,
    say: Callable[[str], None] = print,
    run: Callable[[Sequence[str], Path], int] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[int, list[RoundRecord]]:
    """Run the rounds; return the night's exit code and its records (see the module's exit codes)."""
    if plan.rounds is None and plan.budget_s is None:
        raise ValueError("a night needs a number of rounds or a time budget")
    night = "night-" + dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    suffix = 1
    while (plan.results / night).exists():  # two nights in one second (tests, scripts)
        suffix += 1
        night = night.split("~")[0] + f"~{suffix}"
    night_dir = plan.results / night
    run = run or _run_logged
    began = clock()
    records: list[RoundRecord] = []
    durations: list[float] = []
    index = 0
    while True:
        if plan.rounds is not None and index >= plan.rounds:
            break
        if plan.budget_s is not None:
            spent = clock() - began
            expected = max(durations) if durations else 0.0
            if spent + expected > plan.budget_s:
                break
        index += 1
        seed = round_seed(plan.seed, index - 1)
        version = plan.version_of(index)
        round_dir = night_dir / (f"round-{index:03d}" + (f"-pulsar-{version}" if version else ""))
        round_dir.mkdir(parents=True, exist_ok=True)
        command = pytest_command(plan, round_dir, seed, version)
        say(f"[nightly] round {index} (seed {seed}): {shlex.join(command[2:])}")
        started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        t0 = clock()
        code = run(command, round_dir / "pytest.log")
        durations.append(clock() - t0)
        record = collect_round(round_dir, night, index, seed, started, durations[-1], code)
        (round_dir / "round.json").write_text(record.to_json())
        if not plan.keep_passed_evidence:
            prune(round_dir, record)
        failed = [t for t in record.tests if t.outcome in FAILING]
        say(
            f"[nightly] round {index}: exit {code}, {len(record.tests)} tests, {len(failed)} failed"
            + "".join(f"\n[nightly]   replay: pytest '{t.test}' --pulsar-ha-seed={t.seed or seed}" for t in failed)
        )
        records.append(record)
        if code in STOP_CODES:
            say(f"[nightly] pytest exited {code} (a usage error or no tests): the night stops")
            return code, records
    if not records:
        return 2, records
    failed_any = any(t.outcome in FAILING for r in records for t in r.tests)
    return (1 if failed_any or any(r.exit_code not in (0,) for r in records) else 0), records


def _run_logged(command: Sequence[str], log: Path) -> int:
    with log.open("wb") as out:
        return subprocess.call(list(command), stdout=out, stderr=subprocess.STDOUT)
