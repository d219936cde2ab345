"""The README stays short (the two commands, what it is, one scenario, one fixture, the architecture table) and
everything it shows works: its scenario is a valid one, its links lead to files that exist."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_pulsar_ha.scenario.loader import parse_scenarios

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 150


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_is_short() -> None:
    lines = README.read_text().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; move detail into a docs/ page (at most {MAX_LINES})"


def test_it_starts_with_the_two_commands() -> None:
    first = blocks("sh")[0].splitlines()
    assert [line.split()[:2] for line in first] == [["make", "demo"], ["make", "test"]]
    assert README.read_text().index("```sh") < README.read_text().index("\n## ")


def test_its_scenario_is_valid() -> None:
    (yaml_block,) = blocks("yaml")
    (case,) = parse_scenarios(yaml_block, "README.md")
    assert case.scenario.name == "primary-outage" and [e.kind for e in case.scenario.expect][:2] == [
        "switch",
        "switch_back",
    ]


def test_every_link_of_the_readme_and_the_docs_leads_somewhere() -> None:
    pages = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, "\n".join(broken)


def test_every_path_of_the_package_the_docs_name_exists() -> None:
    """A module or folder named in backticks (``pytest_pulsar_ha/...``) is there: pages follow the code's moves."""
    missing = []
    for page in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        for path in re.findall(
            r"`((?:pytest_pulsar_ha|spark_checks|providers|benchmarks|examples)/[\w/.-]*)`", page.read_text()
        ):
            if not (ROOT / path).exists():
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert not missing, "\n".join(missing)
