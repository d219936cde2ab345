"""What the index page leads with, as Allure's overview does: the counts by outcome (a tile each; a click shows
only that outcome's scenarios) and by proposal (a row each for PIP-121, PIP-188, PIP-136 and PIP-7, run or not,
and "other" when some scenario is: how many scenarios, a bar of their outcomes and the counts in words)."""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pytest_pulsar_ha.report.proposals import PROPOSALS

OUTCOME_ORDER = (
    "failed",
    "deviated",
    "survived",
    "xpassed",
    "interrupted",
    "not judged",
    "not decided",
    "xfailed",
    "killed",
    "passed",
    "not applicable",
    "n/a",
)
"""What needs a look first: rows, tiles and bars go in this order."""
COLOURS = {
    "failed": "#d32f2f",
    "deviated": "#e64a19",
    "survived": "#c2185b",
    "interrupted": "#757575",
    "xpassed": "#ad1457",
    "not judged": "#616161",
    "not decided": "#616161",
    "xfailed": "#f9a825",
    "killed": "#388e3c",
    "passed": "#2e7d32",
    "not applicable": "#9e9e9e",
    "n/a": "#9e9e9e",
}
STYLE = (
    ".overview{display:flex;flex-wrap:wrap;gap:1em 2.5em;align-items:flex-start;margin:1em 0}"
    ".tiles{display:flex;flex-wrap:wrap;gap:.6em} .tile{border:0;border-radius:6px;padding:.5em .9em;color:#fff;"
    "font:inherit;cursor:pointer;min-width:5.5em;text-align:left} .tile b{display:block;font-size:1.8em}"
    ".tile.total{background:#455a64} table.by-proposal{border-collapse:collapse} .by-proposal td,.by-proposal th"
    "{border:none;border-bottom:1px solid #eee;padding:4px 10px 4px 0;text-align:left;vertical-align:middle}"
    ".stack{display:flex;width:180px;height:12px;background:#eee;border-radius:3px;overflow:hidden}"
    ".stack span{display:block;height:100%} .by-proposal .none{color:#999}"
)


def rank(outcome: str) -> int:
    return OUTCOME_ORDER.index(outcome) if outcome in OUTCOME_ORDER else len(OUTCOME_ORDER)


def slug(text: str) -> str:
    """A name fit for an id or a class: ``not judged`` -> ``not-judged``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def anchor(proposal: str) -> str:
    """The id of a proposal's section on the index page: ``pip-121-cluster-failover``."""
    return slug(proposal)


def _colour(outcome: str) -> str:
    return COLOURS.get(outcome, "#9e9e9e")


def outcome_tiles(results: Sequence[Any]) -> str:
    """A tile per outcome present, in :data:`OUTCOME_ORDER`, after one for the total; a click filters the rows
    (the index page's ``#outcome`` select and its ``f()``)."""
    counts = Counter(r.outcome for r in results)
    tiles = [
        f"<button class='tile total' data-outcome='' onclick=\"document.getElementById('outcome').value='';f()\">"
        f"<b>{len(results)}</b>scenarios</button>"
    ]
    for outcome in sorted(counts, key=rank):
        name = html.escape(outcome)
        tiles.append(
            f"<button class='tile {slug(outcome)}' data-outcome='{name}' style='background:{_colour(outcome)}' "
            f"onclick=\"document.getElementById('outcome').value='{name}';f()\"><b>{counts[outcome]}</b>{name}"
            "</button>"
        )
    return f"<div class='tiles'>{''.join(tiles)}</div>"


def proposal_table(results: Sequence[Any]) -> str:
    """A row per proposal: its scenarios, a bar of their outcomes and their counts (every PIP, run or not)."""
    by_proposal: dict[str, Counter[str]] = {name: Counter() for name in PROPOSALS if name != "other"}
    for result in results:
        by_proposal.setdefault(getattr(result, "proposal", "") or "other", Counter())[result.outcome] += 1
    order = {name: index for index, name in enumerate(PROPOSALS)}
    rows = []
    for proposal in sorted(by_proposal, key=lambda name: order.get(name, len(order))):
        counts, name = by_proposal[proposal], html.escape(proposal)
        total = sum(counts.values())
        if not total:
            rows.append(
                f"<tr class='proposal none' data-proposal='{name}'><td>{name}</td><td>0</td>"
                "<td colspan='2'>no scenario ran</td></tr>"
            )
            continue
        ordered = sorted(counts.items(), key=lambda item: rank(item[0]))
        bar = "".join(
            f"<span style='width:{n / total * 100:.1f}%;background:{_colour(o)}' title='{n} {html.escape(o)}'></span>"
            for o, n in ordered
        )
        words = ", ".join(f"{n} {html.escape(o)}" for o, n in ordered)
        rows.append(
            f"<tr class='proposal' data-proposal='{name}'><td><a href='#{anchor(proposal)}'>{name}</a></td>"
            f"<td>{total}</td><td><div class='stack'>{bar}</div></td><td class='words'>{words}</td></tr>"
        )
    return (
        "<table class='by-proposal'><tr><th>proposal</th><th>scenarios</th><th colspan='2'>outcomes</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def overview_html(results: Sequence[Any]) -> str:
    return f"<section class='overview'>{outcome_tiles(results)}{proposal_table(results)}</section>"
