"""The wait of :func:`place_namespaces` between two namespaces, on scripted load reports (pure logic): a bundle
counts as known to the leader once the broker lists it and it is no longer among the report's unwritten gains."""

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


def test_the_wait_ends_once_a_written_report_lists_the_bundle() -> None:
    admin = _Reports(
        [
            {"bundles": [], "lastBundleGains": []},
            {"bundles": [BUNDLE], "lastBundleGains": [BUNDLE]},  # listed locally, not yet written for the leader
            {"bundles": [BUNDLE], "lastBundleGains": [BUNDLE]},
            {"bundles": [BUNDLE], "lastBundleGains": []},  # written: the gains are cleared on each write
            {"bundles": [], "lastBundleGains": []},
        ]
    )
    assert wait_until_reported(admin, "t/ns-0", timeout_s=5) is True  # type: ignore[arg-type]
    assert admin.asked == 4


def test_a_bundle_written_before_the_first_look_ends_the_wait_at_once() -> None:
    # the broker writes no further report while its load stays the same: waiting for one would wait for nothing
    admin = _Reports([{"lastStats": {BUNDLE: {}}, "lastBundleGains": [], "lastUpdate": 7}])
    assert wait_until_reported(admin, "t/ns-0", timeout_s=5) is True  # type: ignore[arg-type]
    assert admin.asked == 1


def test_bundles_of_other_namespaces_do_not_count_and_the_wait_gives_up() -> None:
    admin = _Reports([{"lastStats": {"t/ns-10/0x00000000_0xffffffff": {}}, "lastBundleGains": []}])
    assert wait_until_reported(admin, "t/ns-1", timeout_s=0.05) is False  # type: ignore[arg-type]


def test_the_pip7_settings_are_strings_pulsar_reads() -> None:
    assert PIP7_BROKER_SETTINGS["failureDomainsEnabled"] == "true"
    assert all(isinstance(v, str) for v in PIP7_BROKER_SETTINGS.values())
