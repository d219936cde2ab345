"""The tutorial (docs/tutorial/scenario-suite.md) shows what its commands print and gives what it asks for.

* every output it shows (a ```text block) is a run of whole lines of one stored output under
  ``docs/results/data/tutorial/``, each of which starts with the command that printed it, a command the tutorial
  shows, and when and where it ran;
* step 4's ``sed`` is run here (it is cheap): it makes the copy it says, the shipped outage with an impossible
  switch window;
* step 5's scenario is about ten lines and a valid scenario file;
* every fenced block says what it is (sh, yaml or text), so that no output escapes the first rule.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from pytest_pulsar_ha.scenario.loader import parse_scenarios

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorial" / "scenario-suite.md"
STORED = ROOT / "docs" / "results" / "data" / "tutorial"


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", PAGE.read_text(), flags=re.S | re.M)


def _stored() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(STORED.glob("*.txt"))}


def test_every_fenced_block_says_what_it_is() -> None:
    fences = re.findall(r"^```(\S*)$", PAGE.read_text(), flags=re.M)
    openings = fences[::2]
    assert set(openings) <= {"sh", "yaml", "text"}, f"fences without a known language: {openings}"


def test_every_output_shown_is_an_excerpt_of_a_stored_output() -> None:
    outputs = _stored()
    shown = blocks("text")
    assert shown, "the tutorial shows no output"
    for block in shown:
        assert block.strip(), "an empty output"
        assert any(f"\n{block}" in f"\n{output}" for output in outputs.values()), (
            f"not what a stored output printed (docs/results/data/tutorial/):\n{block}"
        )


def test_every_stored_output_names_a_command_of_the_tutorial() -> None:
    commands = {line.strip() for block in blocks("sh") for line in block.splitlines() if line.strip()}
    outputs = _stored()
    assert outputs, "no stored output of the tutorial"
    for name, output in outputs.items():
        first, second = output.splitlines()[:2]
        assert first.startswith("$ ") and first[2:] in commands, f"{name}: {first!r} is not a command the page shows"
        assert second.startswith("# ran "), f"{name}: when and where it ran"


def test_step_4s_sed_makes_the_copy_it_says(tmp_path: Path) -> None:
    (sed_line, pytest_line) = blocks("sh")[2].strip().splitlines()
    (tmp_path / "scenarios").mkdir()
    shutil.copy(ROOT / "scenarios" / "primary-outage.pulsar-ha.yaml", tmp_path / "scenarios")
    subprocess.run(sed_line, shell=True, cwd=tmp_path, check=True)
    original = (tmp_path / "scenarios" / "primary-outage.pulsar-ha.yaml").read_text().splitlines()
    copy = (tmp_path / "my.pulsar-ha.yaml").read_text().splitlines()
    changed = {(a.strip(), b.strip()) for a, b in zip(original, copy, strict=True) if a != b}
    assert changed == {
        (
            "- switch: {to: cluster-b, within: [2200ms, 2700ms], of: fault_start}",
            "- switch: {to: cluster-b, within: [0ms, 500ms], of: fault_start}",
        )
    }
    cases = {c.id: c for c in parse_scenarios("\n".join(copy), "my.pulsar-ha.yaml")}
    (switch,) = [dict(e)["switch"] for e in cases["primary-outage"].scenario.expect if e.kind == "switch"]
    assert [str(bound) for bound in switch.within] == ["0ms", "500ms"]
    assert pytest_line == ".venv/bin/pytest 'my.pulsar-ha.yaml::primary-outage'"


def test_step_5_gives_a_short_valid_scenario() -> None:
    (scenario,) = blocks("yaml")
    assert len(scenario.splitlines()) <= 12
    (case,) = parse_scenarios(scenario, "mine.pulsar-ha.yaml")
    assert case.id == "secondary-outage"
    assert ".venv/bin/pytest mine.pulsar-ha.yaml" in blocks("sh")[3]
