"""An expected failure names the expectation that must fail: only that failure (with its figure, when given)
is an XFAIL; a pass, another failing expectation or another figure fails the test. Names are checked at load
time, with the file and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_pulsar_ha.checks.expected_failure import mismatches
from pytest_pulsar_ha.checks.result import CheckResult
from pytest_pulsar_ha.scenario import load_scenarios
from pytest_pulsar_ha.scenario.expected_failure import resolve

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


def _checks(
    *oks: bool, measured: str = "m", figures: dict[str, float] | None = None, evidence: bool = True
) -> list[CheckResult]:
    return [
        CheckResult(kind, ok, "e", measured, figures=figures or {}, evidence=evidence)
        for kind, ok in zip(KINDS, oks, strict=True)
    ]


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


def test_the_figure_must_fall_in_its_range() -> None:
    text = "subscriptions=1, lost=75, lost[sub-0]=75"
    checks = _checks(True, True, False, True, measured=text, figures={"subscriptions": 1, "lost": 75})
    assert mismatches(["no_loss"], None, KINDS, checks, {"lost": (40, 120)}) == []
    assert mismatches(["no_loss"], None, KINDS, checks, {"lost": (75, 75)}) == []
    assert mismatches(["no_loss"], None, KINDS, checks, {"lost": (1, 9)}) == [
        "no_loss failed with lost=75, outside the expected range [1, 9]"
    ]
    assert mismatches(["no_loss"], None, KINDS, checks, {"reorders": (1, 3)}) == [
        "no_loss failed with 'subscriptions=1, lost=75, lost[sub-0]=75', which has no reorders figure (its: "
        "subscriptions, lost)"
    ]


def test_a_figure_is_read_from_the_verdicts_figures_never_from_its_text() -> None:
    checks = _checks(True, True, False, True, measured="lost=75", figures={"lost": 3})
    assert mismatches(["no_loss"], None, KINDS, checks, {"lost": (40, 120)}) == [
        "no_loss failed with lost=3, outside the expected range [40, 120]"
    ]
    assert mismatches(["no_loss"], None, KINDS, checks, {"lost": (1, 9)}) == []


def test_several_named_expectations_read_the_figure_of_the_first(tmp_path: Path) -> None:
    block = "{expectation: [switch, no_loss], figure: {target_acks: [0, 0]}, measured: never, reason: r}"
    (scenario,) = load_text(tmp_path, SCENARIO + f"    expect_failure: {block}\n")
    assert scenario.expect_failure.figure == {"target_acks": (0, 0)} and scenario.expect_failure.measured == "never"


def test_a_failure_on_no_evidence_never_matches() -> None:
    checks = _checks(True, True, False, True, measured="the history is not usable: empty", evidence=False)
    assert mismatches(["no_loss"], None, KINDS, checks) == [
        "no_loss failed on no evidence (the history is not usable: empty): it shows nothing"
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


ONE = "{expectation: switch, figure: {seconds: [4, 9]}, reason: r}"
TWO = "{expectation: [switch, no_loss], figure: {seconds: [4, 9]}, reason: r, issue: i}"


def test_an_expected_failure_loads_with_its_expectation(tmp_path: Path) -> None:
    (scenario,) = load_text(tmp_path, SCENARIO + f"    expect_failure: {ONE}\n")
    assert scenario.expect_failure.names == ("switch",)
    (scenario,) = load_text(tmp_path, SCENARIO + f"    expect_failure: {TWO}\n")
    assert scenario.expect_failure.names == ("switch", "no_loss")


def test_a_list_of_expected_failures_loads_each_with_its_versions(tmp_path: Path) -> None:
    block = (
        "\n      - {expectation: switch, figure: {seconds: [4, 9]}, reason: late,"
        " versions: [4.0.8, 4.2.4]}"
        "\n      - {expectation: [switch, no_loss], figure: {target_acks: [0, 0]}, reason: gone,"
        " versions: [4.2.4]}\n"
    )
    (scenario,) = load_text(tmp_path, SCENARIO + f"    expect_failure:{block}")
    assert [e.names for e in scenario.expected_failures] == [("switch",), ("switch", "no_loss")]
    assert [e.reason for e in scenario.expected_failures_on({"4.2.4"})] == ["late", "gone"]
    assert [e.reason for e in scenario.expected_failures_on({"4.0.8"})] == ["late"]
    assert scenario.expected_failures_on({"5.0.1"}) == ()
    assert scenario.expected_failures_on({"4.0.8", "4.2.4"}) == scenario.expected_failures[:1]


def test_one_expected_failure_without_versions_applies_everywhere(tmp_path: Path) -> None:
    (scenario,) = load_text(tmp_path, SCENARIO + f"    expect_failure: {ONE}\n")
    assert scenario.expected_failures_on({"4.0.8"}) == scenario.expected_failures
    (plain,) = load_text(tmp_path, SCENARIO)
    assert plain.expected_failures == () and plain.expected_failures_on({"4.0.8"}) == ()


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("[]", "t.pulsar-ha.yaml:10: scenarios[0].expect_failure: name at least one expected failure"),
        (
            "[{expectation: switch, figure: {seconds: [4, 9]}, reason: r}]",
            "t.pulsar-ha.yaml:10: scenarios[0].expect_failure[0].versions: in a list of expected failures, each "
            "names the Pulsar versions it was seen on",
        ),
        (
            "[{expectation: switch, figure: {seconds: [4, 9]}, reason: r, versions: [4.0.8]},"
            " {expectation: switch, figure: {seconds: [4, 9]}, reason: s, versions: [4.0.8]}]",
            "scenarios[0].expect_failure[1]: the same failure as expect_failure[0] on the same versions: merge them",
        ),
        (
            "[{expectation: switch, figure: {seconds: [4, 9]}, reason: r, versions: [4.0.8]},"
            " {expectation: nope, figure: {seconds: [4, 9]}, reason: s, versions: [4.2.4]}]",
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
            "{expectation: converged, figure: {diverged_paths: [1, 1]}, reason: r}",
            "t.pulsar-ha.yaml:10: scenarios[0].expect_failure.expectation: no converged expectation in this "
            "scenario (its expectations: switch, no_loss, max_duplicates)",
        ),
        (
            "{expectation: [no_loss, no_loss], reason: r}",
            "scenarios[0].expect_failure.expectation[1]: expectation 'no_loss' is listed twice",
        ),
        (
            "{expectation: [switch, no_loss], measured: x, reason: r}",
            "t.pulsar-ha.yaml:10: scenarios[0].expect_failure.figure: name the figure that shows the failure and its "
            "range, read from the first named expectation",
        ),
        ("{expectation: no_loss, reason: r}", "scenarios[0].expect_failure.figure: name the figure that shows"),
        (
            "{expectation: switch, figure: {seconds: [4, 9]}, measured: '(', reason: r}",
            "scenarios[0].expect_failure.measured: not a regular",
        ),
        (
            "{expectation: no_loss, figure: {lost: [9, 1]}, reason: r}",
            "scenarios[0].expect_failure.figure.lost: the range's low end 9 is above its high end 1",
        ),
        (
            "{expectation: no_loss, figure: {lost: [1, 9], reorders: [1, 2]}, reason: r}",
            "scenarios[0].expect_failure.figure: name one figure and its range",
        ),
        ("{expectation: no_loss, figure: {lost: 3}, reason: r}", "scenarios[0].expect_failure.figure.lost"),
        (
            "{deadlock: nope, expectation: no_loss, reason: r, versions: [4.0.8]}",
            "scenarios[0].expect_failure.deadlock: unknown deadlock 'nope'; known: topic-migrated-single-active",
        ),
        (
            "{deadlock: topic-migrated-single-active-consumer, expectation: no_loss, reason: r}",
            "scenarios[0].expect_failure.versions: name the Pulsar versions the deadlock was seen on",
        ),
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


def test_a_shipped_expected_failure_states_numbers_as_ranges() -> None:
    """`measured` is for words; a figure that counts (lost, reorders, seconds) is a range, never "at least one"."""
    for case in _shipped():
        for entry in case.scenario.expected_failures:  # type: ignore[attr-defined]
            assert entry.measured is None or not re.search(r"\d|\\d", entry.measured), (case.id, entry.measured)  # type: ignore[attr-defined]
