"""An expected failure names the expectation that must fail: only that failure (with its figure, when given)
is an XFAIL; a pass, another failing expectation or another figure fails the test. Names are checked at load
time, with the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pulsar_ha.checks.expected_failure import mismatches
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.scenario import load_scenarios
from pytest_pulsar_ha.spec.expected_failure import resolve

from .helpers import REPO, dedent, load_errors, load_text

KINDS = ["switch", "switch_back", "no_loss", "switch"]


def test_a_kind_names_its_only_expectation() -> None:
    assert resolve("no_loss", KINDS) == 2
    assert resolve("switch_back", KINDS) == 1


def test_a_kind_listed_twice_needs_its_ordinal() -> None:
    assert resolve("switch", KINDS) == "switch appears 2 times in expect; name one: switch#1 or switch#2"
    assert resolve("switch#1", KINDS) == 0
    assert resolve("switch#2", KINDS) == 3
    assert resolve("switch#3", KINDS) == "switch#3: there are 2 switch expectation(s)"


def test_a_kind_not_expected_is_named_with_the_ones_there_are() -> None:
    assert resolve("converged", KINDS) == (
        "no converged expectation in this scenario (its expectations: switch, switch_back, no_loss)"
    )


def _checks(*oks: bool, measured: str = "m") -> list[CheckResult]:
    return [CheckResult(kind, ok, "e", measured) for kind, ok in zip(KINDS, oks, strict=True)]


def test_the_named_failure_alone_is_the_announced_one() -> None:
    assert mismatches(["no_loss"], None, KINDS, _checks(True, True, False, True)) == []
    assert mismatches(["switch#2", "no_loss"], None, KINDS, _checks(True, True, False, False)) == []


def test_the_named_expectation_holding_is_not_the_announced_failure() -> None:
    found = mismatches(["no_loss"], None, KINDS, _checks(False, True, True, True, measured="0 lost"))
    assert found == [
        "switch (expect item 0) failed, and only no_loss may fail",
        "no_loss was expected to fail and held (measured 0 lost)",
    ]


def test_another_failing_expectation_is_not_the_announced_failure() -> None:
    found = mismatches(["no_loss"], None, KINDS, _checks(True, True, False, False))
    assert found == ["switch (expect item 3) failed, and only no_loss may fail"]


def test_missing_verdicts_are_not_the_announced_failure() -> None:
    assert mismatches(["no_loss"], None, KINDS, []) == [
        "0 verdict(s) for 4 expectation(s): the run did not judge every expectation"
    ]


def test_the_figure_must_match_when_one_is_asked_for() -> None:
    checks = _checks(True, True, False, True, measured="3 lost of 400")
    assert mismatches(["no_loss"], r"\d+ lost", KINDS, checks) == []
    assert mismatches(["no_loss"], r"^0 lost", KINDS, checks) == [
        "no_loss failed with '3 lost of 400', which does not match measured: '^0 lost'"
    ]


SCENARIO = dedent(
    """
    scenarios:
      - name: s
        provider: {kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s, switch_back_delay: 2s}
        workload: {duration: 20s}
        faults: [{kind: outage, cluster: cluster-a, at: 5s, for: 5s}]
        expect:
          - switch: {to: cluster-b, within: [2s, 3s]}
          - no_loss: true
          - max_duplicates: 10
    """
)


def test_an_expected_failure_loads_with_its_expectation(tmp_path: Path) -> None:
    (scenario,) = load_text(tmp_path, SCENARIO + "    expect_failure: {expectation: switch, reason: r}\n")
    assert scenario.expect_failure.names == ("switch",)
    (scenario,) = load_text(
        tmp_path, SCENARIO + "    expect_failure: {expectation: [switch, no_loss], reason: r, issue: i}\n"
    )
    assert scenario.expect_failure.names == ("switch", "no_loss")


def test_a_list_of_expected_failures_loads_each_with_its_versions(tmp_path: Path) -> None:
    block = (
        "\n      - {expectation: switch, reason: late, versions: [4.0.8, 4.2.4]}"
        "\n      - {expectation: [switch, no_loss], reason: gone, versions: [4.2.4]}\n"
    )
    (scenario,) = load_text(tmp_path, SCENARIO + f"    expect_failure:{block}")
    assert [e.names for e in scenario.expected_failures] == [("switch",), ("switch", "no_loss")]
    assert [e.reason for e in scenario.expected_failures_on({"4.2.4"})] == ["late", "gone"]
    assert [e.reason for e in scenario.expected_failures_on({"4.0.8"})] == ["late"]
    assert scenario.expected_failures_on({"5.0.1"}) == ()
    assert scenario.expected_failures_on({"4.0.8", "4.2.4"}) == scenario.expected_failures[:1]


def test_one_expected_failure_without_versions_applies_everywhere(tmp_path: Path) -> None:
    (scenario,) = load_text(tmp_path, SCENARIO + "    expect_failure: {expectation: switch, reason: r}\n")
    assert scenario.expected_failures_on({"4.0.8"}) == scenario.expected_failures
    (plain,) = load_text(tmp_path, SCENARIO)
    assert plain.expected_failures == () and plain.expected_failures_on({"4.0.8"}) == ()


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("[]", "t.pulsar-ha.yaml:10: scenarios[0].expect_failure: name at least one expected failure"),
        (
            "[{expectation: switch, reason: r}]",
            "t.pulsar-ha.yaml:10: scenarios[0].expect_failure[0].versions: in a list of expected failures, each "
            "names the Pulsar versions it was seen on",
        ),
        (
            "[{expectation: switch, reason: r, versions: [4.0.8]},"
            " {expectation: switch, reason: s, versions: [4.0.8]}]",
            "scenarios[0].expect_failure[1]: the same failure as expect_failure[0] on the same versions: merge them",
        ),
        (
            "[{expectation: switch, reason: r, versions: [4.0.8]}, {expectation: nope, reason: s, versions: [4.2.4]}]",
            "scenarios[0].expect_failure[1].expectation: no nope expectation in this scenario",
        ),
        (
            "[{expectation: switch, versions: [4.0.8]}]",
            "scenarios[0].expect_failure[0]: missing required key 'reason'",
        ),
        (
            "[{expectation: switch, reason: r, versions: [4.0.8], extra: 1}]",
            "scenarios[0].expect_failure[0]: unknown key 'extra'",
        ),
    ],
)
def test_a_bad_list_of_expected_failures_is_reported_with_where(tmp_path: Path, block: str, message: str) -> None:
    assert message in load_errors(tmp_path, SCENARIO + f"    expect_failure: {block}\n")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("{reason: r}", "t.pulsar-ha.yaml:10: scenarios[0].expect_failure: missing required key 'expectation'"),
        (
            "{expectation: converged, reason: r}",
            "t.pulsar-ha.yaml:10: scenarios[0].expect_failure.expectation: no converged expectation in this "
            "scenario (its expectations: switch, no_loss, max_duplicates)",
        ),
        (
            "{expectation: [no_loss, no_loss], reason: r}",
            "scenarios[0].expect_failure.expectation[1]: expectation 'no_loss' is listed twice",
        ),
        (
            "{expectation: [switch, no_loss], measured: x, reason: r}",
            "scenarios[0].expect_failure.measured: measured needs one named expectation, found several",
        ),
        ("{expectation: switch, measured: '(', reason: r}", "scenarios[0].expect_failure.measured: not a regular"),
        ("{expectation: 'no loss', reason: r}", "scenarios[0].expect_failure.expectation"),
    ],
)
def test_a_bad_expected_failure_is_reported_with_where(tmp_path: Path, block: str, message: str) -> None:
    assert message in load_errors(tmp_path, SCENARIO + f"    expect_failure: {block}\n")


def _shipped() -> list[object]:
    paths = sorted((REPO / "scenarios").rglob("*.pulsar-ha.yaml"))
    return [case for path in paths for case in load_scenarios(path)]


def test_every_shipped_expected_failure_names_what_must_fail() -> None:
    failing = [case for case in _shipped() if case.scenario.expect_failure is not None]  # type: ignore[attr-defined]
    assert len(failing) >= 7
    for case in failing:
        kinds = [e.kind for e in case.scenario.expect]  # type: ignore[attr-defined]
        for entry in case.scenario.expected_failures:  # type: ignore[attr-defined]
            for name in entry.names:
                assert isinstance(resolve(name, kinds), int), case.id  # type: ignore[attr-defined]
