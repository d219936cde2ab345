"""How long a run's page takes for a large history: written by the harness, then opened in Chromium.

Builds a history of N events (default 1,000,000: 5,000 sends a second with their acks and receipts for 66 s, a
fault, a switch and back, failed probes), writes its ``run.html`` with the harness's own code, and opens it in
Debian's Chromium through Playwright, as ``tests/report/test_pages_in_chromium.py`` does. Prints, per round, the
time to write the page, its size, and the time from navigation to the browser's ``load`` event with the timeline
drawn; the goal is to open within 3 s. Exits 1 when a round is over it.

    python benchmarks/run_page.py --events 1000000 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.history import ACK, FAULT_END, FAULT_START, PROBE, RECEIVE, SEND, SWITCH, Event
from pytest_pulsar_ha.report.run_page import render_run_page

GOAL_S = 3.0
"""A run's page must open within this, navigation to load with the timeline drawn."""
RATE = 5_000
S = 1_000_000_000
T0 = 1_800_000_000 * S


def history(count: int) -> list[Event]:
    """``count`` events: sends, acks and receipts at RATE a second, cluster-b serving during a 12 s outage of a."""
    seconds = count / 3 / RATE
    fault_at, fault_for = seconds * 0.3, 12.0
    events = [
        Event(T0 + int(fault_at * S), FAULT_START, "nemesis", cluster="cluster-a", detail="#0 outage cluster-a"),
        Event(T0 + int((fault_at + fault_for) * S), FAULT_END, "nemesis", cluster="cluster-a", detail="#0 outage"),
        Event(T0 + int((fault_at + 2.3) * S), SWITCH, "provider", cluster="cluster-b", detail="primary down"),
        Event(T0 + int((fault_at + fault_for + 4.3) * S), SWITCH, "provider", cluster="cluster-a", detail="back"),
    ]
    events += [
        Event(T0 + int((fault_at + i / 2) * S), PROBE, "provider", cluster="cluster-a", detail='{"ok": false}')
        for i in range(int(fault_for * 2))
    ]
    step = S // RATE
    for seq in range(count // 3):
        at = T0 + seq * step
        second = seq / RATE
        cluster = "cluster-b" if fault_at + 2.3 <= second < fault_at + fault_for + 4.3 else "cluster-a"
        producer = f"p{seq % 4}"
        events += [
            Event(at, SEND, producer, producer=producer, seq=seq),
            Event(at + 2_000_000, ACK, producer, cluster=cluster, producer=producer, seq=seq),
            Event(at + 5_000_000, RECEIVE, "c", cluster=cluster, subscription="s", producer=producer, seq=seq),
        ]
    return events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        parser.error("no chromium on PATH (make setup installs Debian's)")
    from playwright.sync_api import sync_playwright

    events = history(args.events)
    checks = [
        CheckResult("switch", True, "first ack by cluster-b within [2200ms, 2700ms] of fault #0 start", "2.35s"),
        CheckResult("switch_back", True, "first ack by cluster-a within [4200ms, 4700ms] of fault #0 end", "4.36s"),
    ]
    print(f"history: {len(events):,} events over {(events[-1].ts_ns - T0) / S:.0f} s; goal: open within {GOAL_S:g} s")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for round_ in range(1, args.rounds + 1):
            started = time.perf_counter()
            page_path = render_run_page(events, checks, {"events": str(len(events))}, "large", Path(tmp) / "run.html")
            written = time.perf_counter() - started
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
            opened = time.perf_counter()
            page.goto(page_path.as_uri(), wait_until="load")
            page.wait_for_selector("#timeline polyline.rate")
            open_s = time.perf_counter() - opened
            timing = json.loads(page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])"))
            page.close()
            worst = max(worst, open_s)
            print(
                f"round {round_}: written in {written:.2f} s ({page_path.stat().st_size / 1024:.0f} KiB); opened in "
                f"{open_s:.2f} s (load event at {timing['loadEventEnd'] / 1000:.2f} s); console errors {len(errors)}"
            )
        browser.close()
    print(f"worst open: {worst:.2f} s, {worst / GOAL_S:.2f} of the {GOAL_S:g} s goal")
    return 0 if worst <= GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
