"""The site's two front doors, ``README.md`` and ``docs/index.md``, lead to every page of ``mkdocs.yml``'s nav and to
no docs page outside it.

``docs/index.md`` lists every nav page, grouped as the nav is; ``README.md`` lists them too, except the finding
reports (one each under ``results/reports/``), which its 150 lines leave to the findings page and the home page.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
INDEX = DOCS / "index.md"
README_LEAVES_OUT = "results/reports/"
"""The nav pages README.md leaves to docs/index.md and the findings page: the finding reports."""


def _pages(items: list[Any]) -> Iterator[str]:
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            yield from _pages(value)
        elif "://" not in value:
            yield value


def nav_pages() -> list[str]:
    """The nav's pages, relative to docs/, in nav order."""
    return list(_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]))


def linked_pages(page: Path) -> set[str]:
    """The docs pages (``.md`` under docs/, relative to it) a Markdown file links to."""
    found = set()
    for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", page.read_text()):
        if "://" in target:
            continue
        path = posixpath.normpath(posixpath.join(page.parent.relative_to(ROOT).as_posix(), target))
        if path.startswith("docs/"):
            found.add(path.removeprefix("docs/"))
    return found


def test_every_nav_page_has_a_front_door() -> None:
    reached = linked_pages(README) | linked_pages(INDEX) | {"index.md"}
    orphans = [page for page in nav_pages() if page not in reached]
    assert not orphans, f"nav pages linked from neither README.md nor docs/index.md: {orphans}"


@pytest.mark.parametrize("door", [README, INDEX], ids=["README.md", "docs/index.md"])
def test_a_front_door_links_only_nav_pages(door: Path) -> None:
    outside = sorted(linked_pages(door) - set(nav_pages()))
    assert not outside, f"{door.relative_to(ROOT)} links docs pages that are not in mkdocs.yml's nav: {outside}"


def test_the_home_page_lists_the_whole_nav() -> None:
    missing = [page for page in nav_pages() if page != "index.md" and page not in linked_pages(INDEX)]
    assert not missing, f"docs/index.md does not link these nav pages: {missing}"


def test_the_readme_lists_the_whole_nav_but_the_finding_reports() -> None:
    missing = [
        page for page in nav_pages() if not page.startswith(README_LEAVES_OUT) and page not in linked_pages(README)
    ]
    assert not missing, f"README.md does not link these nav pages: {missing}"


def test_the_link_reader_resolves_paths_from_each_door() -> None:
    assert linked_pages(README) >= {"index.md", "how-to/contribute.md", "history-format.md"}
    assert linked_pages(INDEX) >= {"how-to/contribute.md", "results/reports/java-client-25291.md"}
    assert nav_pages()[0] == "index.md" and "how-to/contribute.md" in nav_pages()
