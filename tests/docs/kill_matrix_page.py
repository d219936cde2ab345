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
INTRO = """# Kill matrix of the shipped scenarios (partial)

What `pulsar-ha mutate` ([how-to](../how-to/mutate.md)) printed for the shipped scenario files run so far, one
file at a time on one environment (each applicable case x mutant about a minute here; all of `make mutate` is
105 applicable of 420, about 100 minutes). Stored as printed. Files not run yet: {missing}. No mutant applies to
the cases of {none} (no provider switch for a client mutant to follow); `flaky-on-purpose` is a nightly case.

**What the survivors say** (read from the figures below):

- **A consumer mutant after a switch that comes back** (`drop_one`, `twice_one`, `swap_two` in every
  `primary-outage`, `skip-dead-secondary` and `url-provider-bad-answers` case): the switch back replays what
  cluster-a had not seen acknowledged. The dropped message is received again (no_loss holds), a duplicate hides
  among the replay's hundreds under a bound sized for them (`max_duplicates` 680), and the swapped pair is
  received again in order. A case with no `ordering` expectation (`killed-primary`, `paused-primary`,
  `hung-primary`, `url-provider-bad-answers`) lets `swap_two` through whatever happens. `hung-primary`, which
  never switches back, kills `drop_one`. To kill them: a case whose duplicates bound is the replay's own figure,
  and checks of the first receipts.
- **`tcp_only` on an outage**: a cut cluster refuses connections, which a TCP probe sees as well as a lookup
  one; only a hang or a pause (`killed-primary`, `paused-primary`, `hung-primary` kill it) tells them apart.
- **`last_secondary` where the last secondary is the right one** (`skip-dead-secondary`: the first is dead, so
  skipping to the last is what the provider must do anyway).
- **Timing mutants on cases without the window** (`hung-primary` has no `switch_back`; its `tcp-probe-is-fooled`
  variant has no window at all): the mutant applies, no expectation looks. Either the case gains the window or
  the mutant should say it cannot apply.

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


def render() -> str:
    files = sorted(DATA.glob("*.txt"))
    shipped = sorted(p.name.removesuffix(".pulsar-ha.yaml") for p in (ROOT / "scenarios").rglob("*.pulsar-ha.yaml"))
    ran = {p.stem for p in files}
    missing = ", ".join(f"`{n}`" for n in shipped if n not in ran and n not in (*NONE_APPLY, "flaky-on-purpose"))
    none = ", ".join(f"`{n}`" for n in NONE_APPLY)
    lines = [INTRO.format(missing=missing or "none", none=none)]
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
