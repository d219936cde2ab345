"""Loading scenario files: cases, variants, seeds, and a precise message for every kind of mistake."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_pulsar_ha.errors import ConfigurationError
from pytest_pulsar_ha.scenario import (
    ScenarioError,
    is_scenario_file,
    load_scenarios,
    parse_scenarios,
    stable_seed,
)
from pytest_pulsar_ha.scenario.faults import FAULT_KINDS

from .helpers import REPO, dedent

FILE = "t.pulsar-ha.yaml"

# Line numbers of this template are used by the tests below: keep them in place.
VALID = dedent(
    """
    scenarios:
      - name: s
        topology: {clusters: [cluster-a, cluster-b]}
        provider:
          kind: auto
          primary: cluster-a
          secondaries: [cluster-b]
          failover_delay: 2s
          switch_back_delay: 4s
        workload:
          duration: 30s
        faults:
          - {kind: outage, cluster: cluster-a, at: 5s, for: 12s}
        expect:
          - {switch: {to: cluster-b, within: [2s, 8s]}}
          - no_loss: true
    """
)


def errors_of(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as excinfo:
        parse_scenarios(text, FILE)
    return str(excinfo.value).splitlines()


def edited(*replacements: tuple[str, str]) -> str:
    text = VALID
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def test_the_template_is_valid() -> None:
    [case] = parse_scenarios(VALID, FILE)
    assert (case.id, case.line, case.variant, case.path) == ("s", 2, None, Path(FILE))


@pytest.mark.parametrize(
    ("replacements", "expected"),
    [
        pytest.param(
            [("failover_delay: 2s", "failover_dealy: 2s")],
            "t.pulsar-ha.yaml:8: scenarios[0].provider: unknown key 'failover_dealy'; did you mean 'failover_delay'?",
            id="unknown-key",
        ),
        pytest.param(
            [("for: 12s", "for: 10 seconds")],
            "t.pulsar-ha.yaml:13: scenarios[0].faults[0].for: expected a duration like 500ms, 3s or 1m, "
            "found '10 seconds'",
            id="bad-duration",
        ),
        pytest.param(
            [("duration: 30s", "duration: 30")],
            "t.pulsar-ha.yaml:11: scenarios[0].workload.duration: expected a duration like 500ms, 3s or 1m, "
            "found the number 30 without a unit (write it like 3s)",
            id="duration-without-unit",
        ),
        pytest.param(
            [("kind: auto", "kind: automatic")],
            "t.pulsar-ha.yaml:5: scenarios[0].provider.kind: expected one of: auto, controlled, native, none, custom; "
            "found 'automatic'",
            id="bad-provider-kind",
        ),
        pytest.param(
            [("kind: outage", "kind: outtage")],
            f"t.pulsar-ha.yaml:13: scenarios[0].faults[0].kind: expected one of: {', '.join(FAULT_KINDS)}; "
            "found 'outtage'",
            id="bad-fault-kind",
        ),
        pytest.param(
            [("duration: 30s", "duration: 30s\n      subscription_type: exclusiv")],
            "t.pulsar-ha.yaml:12: scenarios[0].workload.subscription_type: expected one of: exclusive, shared, "
            "failover, key_shared; found 'exclusiv'",
            id="bad-enum",
        ),
        pytest.param(
            [("secondaries: [cluster-b]", "secondaries: {cluster-b: 1}")],
            "t.pulsar-ha.yaml:7: scenarios[0].provider.secondaries: expected a list, found a mapping",
            id="wrong-type-list",
        ),
        pytest.param(
            [("    workload:\n      duration: 30s\n", "    workload: [30s]\n")],
            "t.pulsar-ha.yaml:10: scenarios[0].workload: expected a mapping, found a list",
            id="wrong-type-mapping",
        ),
        pytest.param(
            [("duration: 30s", "duration: 30s\n      keys: many")],
            "t.pulsar-ha.yaml:12: scenarios[0].workload.keys: expected a whole number from 0 to 2147483647, "
            "found 'many'",
            id="wrong-type-number",
        ),
        pytest.param(
            [("duration: 30s", "duration: 30s\n      replicated_subscriptions: 1")],
            "t.pulsar-ha.yaml:12: scenarios[0].workload.replicated_subscriptions: expected true or false, "
            "found the number 1",
            id="wrong-type-bool",
        ),
        pytest.param(
            [("duration: 30s", "rate: 5/s")],
            "t.pulsar-ha.yaml:10: scenarios[0].workload: missing required key 'duration'",
            id="missing-field",
        ),
        pytest.param(
            [("{kind: outage, cluster: cluster-a, at: 5s, for: 12s}", "{kind: outage, cluster: cluster-a, at: 5s}")],
            "t.pulsar-ha.yaml:13: scenarios[0].faults[0]: missing required key 'for'",
            id="missing-field-flow",
        ),
        pytest.param(
            [("kind: outage, ", "")],
            f"t.pulsar-ha.yaml:13: scenarios[0].faults[0]: missing required key 'kind' (one of: "
            f"{', '.join(FAULT_KINDS)})",
            id="missing-kind",
        ),
        pytest.param(
            [("cluster: cluster-a, at", "cluster: cluster-c, at")],
            "t.pulsar-ha.yaml:13: scenarios[0].faults[0].cluster: unknown cluster 'cluster-c'; expected one of the "
            "topology's clusters: cluster-a, cluster-b",
            id="cluster-not-in-topology",
        ),
        pytest.param(
            [("within: [2s, 8s]", "within: [8s, 2s]")],
            "t.pulsar-ha.yaml:15: scenarios[0].expect[0].switch.within: expected [earliest, latest] with "
            "earliest <= latest, found [8s, 2s]",
            id="within-low-above-high",
        ),
        pytest.param(
            [("within: [2s, 8s]", "within: [2s]")],
            "t.pulsar-ha.yaml:15: scenarios[0].expect[0].switch.within: expected a list of 2 items, found 1 item",
            id="within-one-item",
        ),
        pytest.param(
            [("duration: 30s", "duration: 15s")],
            "t.pulsar-ha.yaml:13: scenarios[0].faults[0].for: the fault ends at 17s (at 5s + for 12s), after the end "
            "of the workload (workload.duration 15s); shorten the fault or lengthen the workload",
            id="fault-ends-after-workload",
        ),
        pytest.param(
            [
                (
                    "{kind: outage, cluster: cluster-a, at: 5s, for: 12s}",
                    "{kind: operator_switch, to: cluster-b, at: 5s}",
                )
            ],
            "t.pulsar-ha.yaml:13: scenarios[0].faults[0].kind: operator_switch needs provider kind controlled (an "
            "operator switches the URL provider), found provider kind auto",
            id="operator-switch-without-controlled",
        ),
        pytest.param(
            [("kind: auto", "kind: native"), ("switch_back_delay: 4s", "switch_back_delay: 4s\n      probe: tcp")],
            "t.pulsar-ha.yaml:10: scenarios[0].provider: key 'probe' is only valid with kind auto, found kind native",
            id="probe-only-for-auto",
        ),
        pytest.param(
            [("secondaries: [cluster-b]", "secondaries: []")],
            "t.pulsar-ha.yaml:7: scenarios[0].provider.secondaries: expected at least 1 item, found an empty list",
            id="no-secondaries",
        ),
        pytest.param(
            [("name: s", "name: Primary Outage")],
            "t.pulsar-ha.yaml:2: scenarios[0].name: expected a name of lowercase letters, digits, '_', '.' and '-', "
            "starting with a letter or digit, found 'Primary Outage'",
            id="bad-name",
        ),
        pytest.param(
            [("- no_loss: true", "- no_los: true")],
            "t.pulsar-ha.yaml:16: scenarios[0].expect[1]: unknown expectation 'no_los'; did you mean 'no_loss'?",
            id="unknown-expectation",
        ),
        pytest.param(
            [("- no_loss: true", "- no_loss")],
            "t.pulsar-ha.yaml:16: scenarios[0].expect[1]: expected a mapping with one key naming the expectation "
            "(one of: switch, switch_back, no_switch, availability, no_loss, ordering, max_duplicates, placement, "
            "reassigned, producers_redirected, drained_before_redirect, converged, last_writer_wins, "
            "latest_write_kept), "
            "found 'no_loss' (write 'no_loss: true')",
            id="expectation-not-a-mapping",
        ),
        pytest.param(
            [("- no_loss: true", "- {no_loss: true, max_duplicates: 0}")],
            "t.pulsar-ha.yaml:16: scenarios[0].expect[1]: expected one key naming the expectation, found 2: no_loss, "
            "max_duplicates; write each expectation as its own list item",
            id="two-expectations-in-one-item",
        ),
        pytest.param(
            [("- no_loss: true", "- no_loss: false")],
            "t.pulsar-ha.yaml:16: scenarios[0].expect[1].no_loss: expected true (leave the expectation out "
            "instead), found false",
            id="no-loss-false",
        ),
        pytest.param(
            [("- no_loss: true", "- {availability: {min_ratio: 1.5, ack_within: 1s}}")],
            "t.pulsar-ha.yaml:16: scenarios[0].expect[1].availability.min_ratio: expected a number from 0 to 1, "
            "found the number 1.5",
            id="ratio-above-one",
        ),
        pytest.param(
            [("duration: 30s", "duration: 30s\n      duration: 40s")],
            "t.pulsar-ha.yaml:12: scenarios[0].workload.duration: duplicate key 'duration' (first on line 11)",
            id="duplicate-key",
        ),
    ],
)
def test_each_mistake_has_a_precise_message(replacements: list[tuple[str, str]], expected: str) -> None:
    assert expected in errors_of(edited(*replacements))


def test_every_mistake_of_a_file_is_reported_in_line_order() -> None:
    text = edited(
        ("failover_delay: 2s", "failover_dealy: 2s"),
        ("for: 12s", "for: 10 seconds"),
        ("- no_loss: true", "- no_loss: true\n  - name: s\n    workload: {duration: 1m, rate: fast}\n    expect: []"),
    )
    assert errors_of(text) == [
        "t.pulsar-ha.yaml:4: scenarios[0].provider: missing required key 'failover_delay'",
        "t.pulsar-ha.yaml:8: scenarios[0].provider: unknown key 'failover_dealy'; did you mean 'failover_delay'?",
        "t.pulsar-ha.yaml:13: scenarios[0].faults[0].for: expected a duration like 500ms, 3s or 1m, found '10 seconds'",
        "t.pulsar-ha.yaml:17: scenarios[1].name: duplicate scenario name 's' (first used on line 2)",
        "t.pulsar-ha.yaml:18: scenarios[1].workload.rate: expected a rate like 20/s or 120/m, found 'fast'",
        "t.pulsar-ha.yaml:19: scenarios[1].expect: expected at least 1 item, found an empty list",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "t.pulsar-ha.yaml:1: the file is empty: expected a mapping with the key 'scenarios'"),
        ("# only a comment\n", "t.pulsar-ha.yaml:1: the file is empty: expected a mapping with the key 'scenarios'"),
        (
            "- name: a\n",
            "t.pulsar-ha.yaml:1: expected a mapping with the key 'scenarios' at the top level, found a list",
        ),
        (
            "scenario:\n  - name: a\n",
            "t.pulsar-ha.yaml:1: unknown key 'scenario' at the top level; did you mean 'scenarios'?",
        ),
        ("tests: []\n", "t.pulsar-ha.yaml:1: unknown key 'tests' at the top level; expected one of: scenarios"),
        ("x-anchors: {}\n", "t.pulsar-ha.yaml:1: missing required key 'scenarios' (the list of scenarios)"),
        ("scenarios:\n", "t.pulsar-ha.yaml:1: scenarios: expected a list of scenarios, found an empty value"),
        ("scenarios: []\n", "t.pulsar-ha.yaml:1: scenarios: expected at least one scenario, found an empty list"),
        (
            "scenarios:\n  - steady\n",
            "t.pulsar-ha.yaml:2: scenarios[0]: expected a mapping (one scenario), found 'steady'",
        ),
        (
            "scenarios:\n  - name: a\n    workload: {duration: 5s\n    expect: []\n",
            "t.pulsar-ha.yaml:3: YAML syntax error: the mapping '{' opened here is never closed (expected ',' or '}', "
            "but got ':' on line 4)",
        ),
        (
            "scenarios:\n  - name: a\n   workload: {}\n",
            "t.pulsar-ha.yaml:3: YAML syntax error: expected <block end>, but found '<block mapping start>' (while "
            "parsing a block collection on line 2)",
        ),
        ("scenarios: []\n---\nscenarios: []\n", "t.pulsar-ha.yaml:2: expected one YAML document, found several"),
    ],
)
def test_file_level_mistakes(text: str, expected: str) -> None:
    assert errors_of(text) == [expected]


def test_a_yaml_syntax_error_is_a_scenario_error_and_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"^t\.pulsar-ha\.yaml:3: YAML syntax error"):
        parse_scenarios("scenarios:\n  - name: a\n    : x\n  - [\n", FILE)


def test_anchors_and_merge_keys_under_x_keys() -> None:
    text = dedent(
        """
        x-workload: &workload {duration: 20s, rate: 5/s}
        scenarios:
          - name: a
            workload: {<<: *workload, keys: 2}
            expect: [{no_loss: true}]
        """
    )
    [case] = parse_scenarios(text, FILE)
    assert case.scenario.workload.duration.seconds == 20
    assert case.scenario.workload.keys == 2


# -- variants and seeds --------------------------------------------------------------------------------------

WITH_VARIANTS = VALID + (
    "    seed: 7\n"
    "    variants:\n"
    "      - {id: tcp-probe, provider: {probe: tcp}}\n"
    "      - id: no-seed\n"
    "        seed: null\n"
    "        faults: [{kind: kill, cluster: cluster-a, at: 5s, for: 3s}]\n"
    "  - name: second\n"
    "    marks: [slow]\n"
    "    workload: {duration: 10s}\n"
    "    expect: [{max_duplicates: 2}]\n"
)


def test_variants_are_cases_of_their_own_with_keys_merged() -> None:
    base, tcp, no_seed, second = parse_scenarios(WITH_VARIANTS, FILE)
    assert [c.id for c in (base, tcp, no_seed, second)] == ["s", "s[tcp-probe]", "s[no-seed]", "second"]
    assert [c.variant for c in (base, tcp, no_seed, second)] == [None, "tcp-probe", "no-seed", None]
    assert [c.line for c in (base, tcp, no_seed, second)] == [2, 19, 20, 23]
    assert base.scenario.provider.kind == tcp.scenario.provider.kind == "auto"
    assert getattr(base.scenario.provider, "probe", None) == "lookup"
    assert getattr(tcp.scenario.provider, "probe", None) == "tcp"
    assert tcp.scenario.provider.model_dump(exclude={"probe"}) == base.scenario.provider.model_dump(exclude={"probe"})
    assert tcp.scenario.workload == base.scenario.workload
    assert [f.kind for f in no_seed.scenario.faults] == ["kill"]  # lists replace
    assert second.scenario.marks == ("slow",)


def test_seeds_are_explicit_or_derived_from_the_case_id() -> None:
    base, tcp, no_seed, second = parse_scenarios(WITH_VARIANTS, FILE)
    assert base.seed == tcp.seed == 7
    assert no_seed.seed == stable_seed("s[no-seed]")
    assert second.seed == stable_seed("second")
    assert stable_seed("second") == stable_seed("second") != stable_seed("s[no-seed]")
    assert 0 <= stable_seed("x") < 2**32
    assert stable_seed("second") == 372669100  # the same on every run, machine and Python version


def test_variant_mistakes() -> None:
    text = WITH_VARIANTS.replace(
        "      - {id: tcp-probe, provider: {probe: tcp}}",
        "      - {id: tcp-probe, provider: {probe: tcpp, kind: controlled}}\n"
        "      - {id: tcp-probe, name: other, workload: {duration: 12s}}\n"
        "      - {provider: {probe: tcp}}\n"
        "      - {id: Upper, workload: {durations: 1s}}",
    )
    assert errors_of(text) == [
        "t.pulsar-ha.yaml:8: scenarios[0].provider: key 'failover_delay' is only valid with kind auto or native, "
        "found kind controlled (in variant 'tcp-probe')",
        "t.pulsar-ha.yaml:9: scenarios[0].provider: key 'switch_back_delay' is only valid with kind auto or native, "
        "found kind controlled (in variant 'tcp-probe')",
        "t.pulsar-ha.yaml:13: scenarios[0].faults[0].for: the fault ends at 17s (at 5s + for 12s), after the end of "
        "the workload (workload.duration 12s); shorten the fault or lengthen the workload (in variant 'tcp-probe')",
        "t.pulsar-ha.yaml:19: scenarios[0].variants[0].provider: key 'probe' is only valid with kind auto, found "
        "kind controlled",
        "t.pulsar-ha.yaml:20: scenarios[0].variants[1].id: duplicate variant id 'tcp-probe' (first used on line 19)",
        "t.pulsar-ha.yaml:20: scenarios[0].variants[1]: a variant cannot set 'name' (the variant's test id is the "
        "scenario's name and its id)",
        "t.pulsar-ha.yaml:21: scenarios[0].variants[2]: missing required key 'id' (the variant's name in the test id)",
        "t.pulsar-ha.yaml:22: scenarios[0].variants[3].id: expected an id of lowercase letters, digits, '_', '.' and "
        "'-', starting with a letter or digit, found 'Upper'",
        "t.pulsar-ha.yaml:22: scenarios[0].variants[3].workload: unknown key 'durations'; did you mean 'duration'?",
    ]


def test_a_problem_of_the_scenario_is_not_repeated_for_each_variant() -> None:
    text = WITH_VARIANTS.replace("for: 12s", "for: 12")
    assert [line for line in errors_of(text) if ".for:" in line] == [
        "t.pulsar-ha.yaml:13: scenarios[0].faults[0].for: expected a duration like 500ms, 3s or 1m, found the number "
        "12 without a unit (write it like 3s)"
    ]


# -- files ---------------------------------------------------------------------------------------------------


def test_load_scenarios_reads_a_file_and_names_it_in_messages(tmp_path: Path) -> None:
    path = tmp_path / "ok.pulsar-ha.yaml"
    path.write_text(VALID)
    [case] = load_scenarios(path)
    assert case.path == path
    bad = tmp_path / "bad.pulsar-ha.yaml"
    bad.write_text(VALID.replace("for: 12s", "for: soon"))
    with pytest.raises(ScenarioError) as excinfo:
        load_scenarios(bad)
    assert str(excinfo.value).startswith(f"{bad}:13: scenarios[0].faults[0].for: ")
    with pytest.raises(ScenarioError, match=r"^shown\.pulsar-ha\.yaml:13: "):
        load_scenarios(bad, display_path="shown.pulsar-ha.yaml")
    assert [(p.line, p.where) for p in excinfo.value.problems] == [(13, "scenarios[0].faults[0].for")]


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"missing\.pulsar-ha\.yaml:1: cannot read the file: No such file"):
        load_scenarios(tmp_path / "missing.pulsar-ha.yaml")
    binary = tmp_path / "binary.pulsar-ha.yaml"
    binary.write_bytes(b"scenarios: \xff\xfe\n")
    with pytest.raises(ScenarioError, match=r"binary\.pulsar-ha\.yaml:1: expected a UTF-8 text file"):
        load_scenarios(binary)


def test_the_naming_pattern() -> None:
    assert is_scenario_file("scenarios/failover.pulsar-ha.yaml")
    assert is_scenario_file(Path("x.pulsar-ha.yaml"))
    for name in ("failover.yaml", "failover.pulsar-ha.yml", "pulsar-ha.yaml.bak", "failover.pulsar_ha.yaml"):
        assert not is_scenario_file(name), name


def readme_examples() -> list[str]:
    text = (REPO / "docs" / "reference" / "scenario-format.md").read_text()
    return [block for block in re.findall(r"```yaml\n(.*?)```", text, re.S) if "scenarios:" in block]


def test_every_example_of_the_readme_is_valid() -> None:
    examples = readme_examples()
    assert len(examples) >= 3
    ids = [case.id for example in examples for case in parse_scenarios(example, "README.md")]
    assert "primary-outage-auto-failover[tcp-probe]" in ids
