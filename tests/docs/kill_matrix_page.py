"""``docs/results/kill-matrix.md``: the shipped scenarios' kill matrices as ``pulsar-ha mutate`` printed them, one
stored file per scenario file under ``docs/results/data/mutants/``, all run at one commit; the survivors table is
derived from their rows.

    python -m tests.docs.kill_matrix_page      # rewrites the page from the stored files
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "results" / "data" / "mutants"
PAGE = ROOT / "docs" / "results" / "kill-matrix.md"
EXCLUDED = frozenset({"unsettled", "wedges_client", "nightly_demo", "soak", "spark_cluster"})
"""The marks `make mutate` leaves out."""
RAN = re.compile(r"^# ran .*\((?P<commit>[0-9a-f]{7,40})\)(, \d+ s)?$")
ROW = re.compile(r"^(\S+)\s+(\S+)\s+(killed|survived|not applicable|not judged)\s+(.*)$")
INTRO = """# Kill matrix of the shipped scenarios

What `pulsar-ha mutate` ([how-to](../how-to/mutate.md)) printed for the shipped scenario files, one file at a time
on one environment, every file at one commit ({commits}); each case runs unmutated first, and a mutant counts as
killed only when an expectation able to see it fails on evidence while that baseline passed (a timing mutant's
window missed on its side, late or early; a client mutant's figure grown by no more than its acts; each stored
kill does, tests hold). Stored as printed;
where a file shows a second run, it ran again, at the same commit, items the first could not judge.
Files not run: {missing}. No mutant applies to any case of {none} (the reason each case gives is in
`pytest_pulsar_ha/mutants/catalogue.py`'s `cannot_apply`: no provider switch for a client mutant to follow, no
provider of ours to change, an expected failure, a cold switch-back); their cases, and the cases of the files run
where no mutant applies, were not run.

**Every mutant is killed by at least one shipped case.** Where one survives a case, this is why, and which cases
kill it (both lists read from the rows below):

{table}

A mutant that **never acted** in its run is `not applicable`, not a survivor: the run was the shipped code's (a
TCP probe fooled by a hung broker never fails a check, so `hung-primary[tcp-probe-is-fooled]` never exercises a
provider mutant; neither does a latency spike that no probe notices).

"""


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


def commits() -> list[str]:
    """The commits the stored files were run at, each once, in the order found."""
    found: list[str] = []
    for path in sorted(DATA.glob("*.txt")):
        for _, when, _ in blocks(path.read_text()):
            m = RAN.match(when)
            commit = m.group("commit") if m else f"unknown ({path.name})"
            if commit not in found:
                found.append(commit)
    return found


def score(rows: list[tuple[str, str, str, str]]) -> tuple[int, int]:
    killed = sum(1 for r in rows if r[2] == "killed")
    return killed, sum(1 for r in rows if r[2] in ("killed", "survived"))


def all_rows() -> list[tuple[str, str, str, str]]:
    return [row for path in sorted(DATA.glob("*.txt")) for row in merged(path.read_text())]


WHY: dict[str, str] = {
    "late": "no window to miss: `generated-chaos` draws its faults from a seed and claims only `no_loss` and a "
    "duplicates bound",
    "early": "as `late`: no window",
    "never_back": "as `late`: no `switch_back` window",
    "back_at_once": "as `late`: no `switch_back` window",
    "last_secondary": "no window (`generated-chaos`); in `skip-dead-secondary` the first secondary is dead, so the "
    "last one is the right one",
    "tcp_only": "no window (`generated-chaos`); where a cut proxy refuses connections, the TCP probe sees what the "
    "lookup sees, so the mutant never acts (`not applicable`)",
    "drop_one": "the consumer meets the dropped message again: the cluster it moves to (or back to) delivers its "
    "own copy of what the consumer had not acknowledged there, so `no_loss` holds (from the application's side "
    "nothing was lost)",
    "twice_one": "one more duplicate hides under a `max_duplicates` bound sized for a switch's replay (hundreds)",
    "swap_two": "nothing looks at that order: no `ordering` expectation, an order judged per key (the swapped pair "
    "has two keys), or a pair that straddles the two acking clusters (an allowed cross-cluster interleaving)",
}
"""Why each mutant that survives somewhere survives there (where, and what kills it, are read from the rows); a
mutant that starts surviving needs its line here (a test says so)."""


def _cases(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def survivors(rows: list[tuple[str, str, str, str]]) -> list[tuple[str, list[str], list[str]]]:
    """Each mutant that survives some case: (mutant, the cases it survives, the cases that kill it), in the
    catalogue's order."""
    from pytest_pulsar_ha.mutants.catalogue import MUTANTS

    out = []
    for mutant in MUTANTS:
        survived = [case for case, m, verdict, _ in rows if m == mutant and verdict == "survived"]
        if survived:
            killers = [case for case, m, verdict, _ in rows if m == mutant and verdict == "killed"]
            out.append((mutant, survived, killers))
    return out


def survivors_table(rows: list[tuple[str, str, str, str]]) -> str:
    lines = ["| mutant | survives in | why | killed by |", "| --- | --- | --- | --- |"]
    for mutant, survived, killers in survivors(rows):
        why = WHY.get(mutant, "(not explained yet)")
        lines.append(f"| `{mutant}` | {_cases(survived)} | {why} | {_cases(killers) or '**none**'} |")
    return "\n".join(lines)


def no_mutant_applies() -> tuple[list[str], list[str]]:
    """(the shipped files where no mutant applies to any case of `make mutate`'s selection, those where some
    does), by file stem."""
    from pytest_pulsar_ha.mutants.catalogue import MUTANTS, cannot_apply
    from pytest_pulsar_ha.scenario.loader import load_scenarios

    none, some = [], []
    for path in sorted((ROOT / "scenarios").rglob("*.pulsar-ha.yaml")):
        stem = path.name.removesuffix(".pulsar-ha.yaml")
        cases = [c for c in load_scenarios(path) if not EXCLUDED & set(c.scenario.marks)]
        if not cases:
            continue
        applies = any(cannot_apply(c.scenario, m) is None for c in cases for m in MUTANTS)
        (some if applies else none).append(stem)
    return none, some


def render() -> str:
    files = sorted(DATA.glob("*.txt"))
    ran = {p.stem for p in files}
    none, some = no_mutant_applies()
    missing = _cases(sorted(n for n in some if n not in ran))
    lines = [
        INTRO.format(
            commits=", ".join(f"`{c}`" for c in commits()),
            missing=missing or "none",
            none=_cases(sorted(none)),
            table=survivors_table(all_rows()),
        )
    ]
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
        table = [f"{case:<{width}}  {mutant:<14}  {verdict:<14}  {why}" for case, mutant, verdict, why in rows]
        percent = f"{k / n:.0%}" if n else "-"
        lines += ["", "```text", *table, f"mutation score: {k} of {n} applicable mutants killed ({percent})", "```", ""]
    lines.insert(1, f"In all: {killed} of {applicable} applicable mutants killed in the files run.\n")
    return "\n".join(lines)


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
