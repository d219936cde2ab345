"""``docs/results/kill-matrix.md``: the shipped scenarios' kill matrices as ``pulsar-ha mutate`` printed them, one
stored file per scenario file under ``docs/results/data/mutants/``, with what is known of the survivors.

    python -m tests.docs.kill_matrix_page      # rewrites the page from the stored files
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "results" / "data" / "mutants"
PAGE = ROOT / "docs" / "results" / "kill-matrix.md"
SCORE = re.compile(r"^mutation score: (\d+) of (\d+) applicable mutants killed")
NONE_APPLY = ("failure-domains", "metadata-sync", "replication-cut", "soak")
"""Files whose every case x mutant is n/a (counted by collecting `make mutate`'s selection, 2026-11-28)."""
INTRO = """# Kill matrix of the shipped scenarios

What `pulsar-ha mutate` ([how-to](../how-to/mutate.md)) printed for the shipped scenario files, one file at a time
on one environment (each applicable case x mutant about a minute here). Stored as printed; where a file was run
again for some of its items after a change (a new mutant, a stronger check, a new variant), the later run's rows
replace the earlier ones and both commands are listed. Files not run: {missing}. No mutant applies to the cases of
{none} (no provider switch for a client mutant to follow, no provider of ours to change); `flaky-on-purpose` is a
nightly case.

**Every mutant is killed by at least one shipped case.** Where one survives a case, this is why, and which case
kills it:

{table}

A mutant that **never acted** in its run is `n/a`, not a survivor: the run was the shipped code's (a TCP probe
fooled by a hung broker never fails a check, so `hung-primary[tcp-probe-is-fooled]` never exercises a provider
mutant; neither does a latency spike that no probe notices).

"""


ROW = re.compile(r"^(\S+)\s+(\S+)\s+(killed|survived|n/a|error)\s+(.*)$")


def blocks(text: str) -> list[tuple[str, str, list[tuple[str, str, str, str]]]]:
    """A stored file's runs, each (command, when, rows): the first run, then any re-run of some of its items."""
    out: list[tuple[str, str, list[tuple[str, str, str, str]]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            out.append((line, "", []))
        elif line.startswith("# ran ") and out:
            out[-1] = (out[-1][0], line, out[-1][2])
        elif (m := ROW.match(line)) is not None and out:
            out[-1][2].append((m.group(1), m.group(2), m.group(3), m.group(4)))
    return out


def merged(text: str) -> list[tuple[str, str, str, str]]:
    """The file's matrix: each (case, mutant) as its latest run left it, in the order first printed."""
    rows: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    for _, _, block_rows in blocks(text):
        for row in block_rows:
            rows[(row[0], row[1])] = row
    return list(rows.values())


def score(rows: list[tuple[str, str, str, str]]) -> tuple[int, int]:
    killed = sum(1 for r in rows if r[2] == "killed")
    return killed, sum(1 for r in rows if r[2] in ("killed", "survived"))


SURVIVORS: tuple[tuple[str, str, str, str], ...] = (
    (
        "`drop_one`",
        "cases that switch back (`primary-outage`, `flapping-primary`, `skip-dead-secondary`, "
        "`url-provider-bad-answers`, `controlled-switch`, also `hung-primary` here)",
        "the switch back replays what cluster-a had not seen acknowledged: the dropped message comes again, and "
        "`no_loss` holds (from the application's side nothing was lost)",
        "`controlled-switch[reader-on-backup]` (the reader never moves: nothing comes again)",
    ),
    (
        "`twice_one`",
        "every case whose duplicates bound is sized for the replay (`max_duplicates` 60-68,000)",
        "one more duplicate hides under a bound that has to allow a replay's hundreds",
        "`controlled-switch[reader-on-backup]` (`max_duplicates: 0`: no link is cut, the reader never moves)",
    ),
    (
        "`swap_two`",
        "cases without an `ordering` expectation (`flapping-primary`, `killed-primary`, `paused-primary`, "
        "`url-provider-bad-answers`); `controlled-switch`, which orders per key (the swapped pair has two keys); "
        "`primary-outage[high-rate]`, where the pair straddled the two acking clusters (an allowed cross-cluster "
        "interleaving)",
        "nothing looks at that order",
        "`primary-outage`, `hung-primary`, `skip-dead-secondary`, `controlled-switch[reader-on-backup]`: each "
        "cluster's own delivery stream is judged, so a swap among messages the backup replays shows",
    ),
    (
        "`tcp_only`",
        "outages (`primary-outage`, `flapping-primary`, `skip-dead-secondary`)",
        "a cut proxy refuses connections: a TCP probe sees it as well as a lookup",
        "`hung-primary`, `primary-outage[killed-primary]`, `primary-outage[paused-primary]`",
    ),
    (
        "`last_secondary`",
        "`skip-dead-secondary`",
        "the first secondary is dead there: the last is the right one",
        "`skip-dead-secondary[first-secondary-healthy]`",
    ),
    (
        "the timing mutants (`late`, `early`, `never_back`, `back_at_once`, `last_secondary`, `tcp_only`)",
        "`generated-chaos`",
        "its faults are drawn from a seed: it claims no window, only `no_loss` and a duplicates bound",
        "every case with a window",
    ),
)
"""Each mutant that survives a case: where, why, and the case that kills it."""


def survivors_table() -> str:
    lines = ["| mutant | survives where | why | killed by |", "| --- | --- | --- | --- |"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in SURVIVORS])


def render() -> str:
    files = sorted(DATA.glob("*.txt"))
    shipped = sorted(p.name.removesuffix(".pulsar-ha.yaml") for p in (ROOT / "scenarios").rglob("*.pulsar-ha.yaml"))
    ran = {p.stem for p in files}
    missing = ", ".join(f"`{n}`" for n in shipped if n not in ran and n not in (*NONE_APPLY, "flaky-on-purpose"))
    none = ", ".join(f"`{n}`" for n in NONE_APPLY)
    lines = [INTRO.format(missing=missing or "none", none=none, table=survivors_table())]
    killed = applicable = 0
    for path in files:
        text = path.read_text()
        rows = merged(text)
        k, n = score(rows)
        killed, applicable = killed + k, applicable + n
        lines += [f"## {path.stem}", ""]
        runs = blocks(text)
        if len(runs) > 1:
            lines += ["Runs (a later run's rows replace the earlier ones for the same case and mutant):", ""]
        lines += [f"- `{command}` ({when.removeprefix('# ')})" for command, when, _ in runs]
        width = max(len(r[0]) for r in rows)
        table = [f"{case:<{width}}  {mutant:<14}  {verdict:<8}  {why}" for case, mutant, verdict, why in rows]
        percent = f"{k / n:.0%}" if n else "-"
        lines += ["", "```text", *table, f"mutation score: {k} of {n} applicable mutants killed ({percent})", "```", ""]
    lines.insert(1, f"In all: {killed} of {applicable} applicable mutants killed in the files run.\n")
    return "\n".join(lines)


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
