"""Links between the docs are markdown links, which ``mkdocs build --strict`` checks and rewrites for the site; a
raw HTML link to a page (``<a href="x.md">``) is neither checked nor rewritten, so it breaks on the site."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RAW_LINK = re.compile(r"""<a\s[^>]*href=["'](?![a-z]+:|#)([^"']+)["']""", re.IGNORECASE)


def test_no_page_links_another_with_raw_html() -> None:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{number}: {target}" for target in RAW_LINK.findall(line)]
    assert not found, "raw HTML links to pages (use a markdown link instead):\n" + "\n".join(found)
