"""The kill-matrix page is its stored files (``python -m tests.docs.kill_matrix_page`` writes it), all run at one
commit, complete for `make mutate`'s selection, with every survivor explained."""

from __future__ import annotations

import re

from pytest_pulsar_ha.mutants.catalogue import FIGURE, SIDE
from tests.docs.kill_matrix_page import DATA, EXCLUDED, PAGE, ROOT, WHY, all_rows, commits, merged, render, survivors


def test_the_page_is_the_stored_matrices() -> None:
    assert PAGE.read_text() == render(), "out of date; run python -m tests.docs.kill_matrix_page"


def test_every_stored_matrix_names_its_command_and_its_score() -> None:
    for path in sorted(DATA.glob("*.txt")):
        lines = path.read_text().splitlines()
        assert lines[0].startswith("$ pulsar-ha mutate ") and lines[1].startswith("# ran "), path
        assert lines[-1].startswith("mutation score: "), path


def test_the_matrix_is_stored_from_one_commit() -> None:
    assert len(commits()) == 1, commits()


def _rows() -> dict[tuple[str, str], str]:
    return {(case, mutant): verdict for p in DATA.glob("*.txt") for case, mutant, verdict, _ in merged(p.read_text())}


def test_every_mutant_is_killed_by_some_shipped_case() -> None:
    from pytest_pulsar_ha.mutants.catalogue import MUTANTS

    killed = {mutant for (_, mutant), verdict in _rows().items() if verdict == "killed"}
    assert sorted(set(MUTANTS) - killed) == []


def test_every_survivor_is_explained() -> None:
    assert [mutant for mutant, _, _ in survivors(all_rows()) if mutant not in WHY] == []


def test_the_matrix_is_complete_every_applicable_case_and_mutant_was_run() -> None:
    """Each case of `make mutate`'s selection x each mutant that can apply to it has a judged verdict (killed,
    survived, or not applicable because it never acted); none is missing, none is not judged."""
    from pytest_pulsar_ha.mutants.catalogue import MUTANTS, cannot_apply
    from pytest_pulsar_ha.scenario.loader import load_scenarios

    rows = _rows()
    missing = []
    for path in sorted((ROOT / "scenarios").rglob("*.pulsar-ha.yaml")):
        for case in load_scenarios(path):
            if EXCLUDED & set(case.scenario.marks):
                continue
            for mutant in MUTANTS:
                if cannot_apply(case.scenario, mutant) is None and rows.get((case.id, mutant)) not in (
                    "killed",
                    "survived",
                    "not applicable",
                ):
                    missing.append(f"{case.id}@{mutant}: {rows.get((case.id, mutant), 'not run')}")
    assert missing == []


def test_the_page_leaves_out_the_marks_make_mutate_leaves_out() -> None:
    recipe = (ROOT / "Makefile").read_text().split("\nmutate:", 1)[1].split("\n\n", 1)[0]
    marks = recipe.split('-m "not (', 1)[1].split(')"', 1)[0]
    assert set(marks.split(" or ")) == EXCLUDED


WINDOW_VERDICT = re.compile(
    r"(?P<kind>switch|switch_back): measured (?:(?P<never>no send acknowledged)|(?P<took>\d+\.\d+)s)[^,]*, "
    r"expected first ack by \S+ within \[(?P<lo>\d+)ms, (?P<hi>\d+)ms\]"
)


def _sides(reason: str) -> set[str]:
    """The sides on which the printed window verdicts of a row missed (the slowest producer's seconds, which is
    what a row prints first)."""
    sides = set()
    for m in WINDOW_VERDICT.finditer(reason):
        lo, hi = int(m["lo"]) / 1000, int(m["hi"]) / 1000
        if m["never"] or float(m["took"]) > hi:
            sides.add("late")
        elif float(m["took"]) < lo:
            sides.add("early")
    return sides


def test_every_stored_timing_kill_missed_a_window_on_its_mutants_side() -> None:
    """The stored matrix predates the side rule (``SIDE``): each of its timing kills still holds under it."""
    timing = [r for r in all_rows() if r[2] == "killed" and SIDE.get(r[1])]
    assert len(timing) > 20
    wrong = [r[:2] for r in timing if SIDE[r[1]] not in _sides(r[3])]
    assert not wrong, wrong


def test_every_stored_client_kill_grew_its_figure_by_no_more_than_its_wrapped_objects() -> None:
    """The stored matrix predates counting a client mutant's acts (``FIGURE``): each wrapped consumer or producer
    acts at most once, so each stored client kill's figure is at most how many it wrapped."""
    from pytest_pulsar_ha.mutants.clients import CLIENT_MUTANTS
    from pytest_pulsar_ha.scenario.loader import load_scenarios

    cases = {
        c.id: c.scenario for p in sorted((ROOT / "scenarios").rglob("*.pulsar-ha.yaml")) for c in load_scenarios(p)
    }
    kills = [r for r in all_rows() if r[2] == "killed" and r[1] in FIGURE]
    assert len(kills) > 5
    beyond = []
    for case, mutant, _, reason in kills:
        workload = cases[case].workload
        each = workload.producers if CLIENT_MUTANTS[mutant].wraps == "producer" else workload.consumers
        wrapped = each * len(workload.topics) * workload.namespaces
        found = re.search(rf"\b{FIGURE[mutant]}=(\d+)", reason)
        assert found is not None, (case, mutant, reason)
        value = int(found.group(1))
        if not 0 < value <= wrapped:
            beyond.append((case, mutant, value, wrapped))
    assert beyond == []
