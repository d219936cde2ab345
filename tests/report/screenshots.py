"""Screenshots of a suite's index page and of one run's page, for the docs, taken in Debian's Chromium as the
browser tests open the pages, in a 1,280 px window:

    python -m tests.report.screenshots reports/pulsar-ha primary-outage docs/images

writes ``index-page.png`` and ``run-page.png`` (the run page of the named case, its mouse over the first switch).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    reports, case, out = Path(argv[0]), argv[1], Path(argv[2])
    chromium = shutil.which("chromium")
    if chromium is None:
        print("no chromium on PATH (make setup installs Debian's)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto((reports / "index.html").resolve().as_uri())
        page.screenshot(path=str(out / "index-page.png"))
        page.goto((reports / case / "run.html").resolve().as_uri())
        page.locator("#timeline line.switch").first.hover(force=True)
        page.screenshot(path=str(out / "run-page.png"))
        browser.close()
    print(f"wrote {out / 'index-page.png'} and {out / 'run-page.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
