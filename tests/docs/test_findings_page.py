"""The findings page is generated from the stored observations (``pulsar-ha findings page``), never edited by hand."""

from __future__ import annotations

from pathlib import Path

from pytest_pulsar_ha.cli.findings import DATA, PAGE, RUNS
from pytest_pulsar_ha.report.findings import load, load_runs
from pytest_pulsar_ha.report.findings_page import render

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_is_the_stored_observations() -> None:
    data = ROOT / DATA
    observations = load(data.read_text()) if data.exists() else []
    runs = load_runs((ROOT / RUNS).read_text()) if (ROOT / RUNS).exists() else []
    assert (ROOT / PAGE).read_text() == render(observations, runs), "out of date: run pulsar-ha findings page"
