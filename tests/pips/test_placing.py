"""The wait of :func:`place_namespaces` between two namespaces, on scripted load reports (pure logic): a bundle
counts as known to the leader only once a report written after the one that first listed it was written."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pulsar_ha.pips import placing
from pytest_pulsar_ha.pips.placing import PIP7_BROKER_SETTINGS, wait_until_reported

BUNDLE = "t/ns-0/0x00000000_0xffffffff"


class _Reports:
    def __init__(self, reports: list[dict[str, Any]]) -> None:
        self.reports = reports
        self.asked = 0

    def get(self, path: str) -> dict[str, Any]:
        assert path == "broker-stats/load-report"
        report = self.reports[min(self.asked, len(self.reports) - 1)]
        self.asked += 1
        return report


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(placing.time, "sleep", lambda s: None)


def test_the_wait_ends_at_the_first_report_written_after_the_bundle_was_listed() -> None:
    admin = _Reports(
        [
            {"bundles": [], "lastUpdate": 1},
            {"bundles": [BUNDLE], "lastUpdate": 1},  # listed locally, not yet written for the leader
            {"bundles": [BUNDLE], "lastUpdate": 1},
            {"bundles": [BUNDLE], "lastUpdate": 2},  # written
            {"bundles": [], "lastUpdate": 3},
        ]
    )
    assert wait_until_reported(admin, "t/ns-0", timeout_s=5) is True  # type: ignore[arg-type]
    assert admin.asked == 4


def test_bundles_of_other_namespaces_do_not_count_and_the_wait_gives_up() -> None:
    admin = _Reports([{"lastStats": {"t/ns-10/0x00000000_0xffffffff": {}}, "lastUpdate": n} for n in range(1000)])
    assert wait_until_reported(admin, "t/ns-1", timeout_s=0.05) is False  # type: ignore[arg-type]


def test_the_pip7_settings_are_strings_pulsar_reads() -> None:
    assert PIP7_BROKER_SETTINGS["failureDomainsEnabled"] == "true"
    assert all(isinstance(v, str) for v in PIP7_BROKER_SETTINGS.values())
