"""Hostile and careless scenario files: alias bombs, bad bytes, unclosed brackets, huge numbers, nulls in variants.

Each is rejected (or loaded) quickly, with bounded memory, as a ``ScenarioError`` whose ``file:line`` points at the
mistake; nothing else escapes the loader.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pytest_pulsar_ha.scenario import ScenarioError, load_scenarios, parse_scenarios

from .helpers import dedent, runner_calls
from .test_loader import VALID, edited, errors_of

FILE = "t.pulsar-ha.yaml"
MIB = 1024 * 1024


@contextmanager
def bounded(seconds: float = 1.0, memory: int = 64 * MIB) -> Iterator[None]:
    """Fails unless the block runs within ``seconds`` and allocates at most ``memory`` bytes at its peak."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < seconds, f"took {elapsed:.2f}s"
    assert peak < memory, f"peak {peak / MIB:.0f} MiB"


def _laughs(levels: int, where: str = "x-") -> str:
    """The billion laughs: each level a list of nine aliases of the level below."""
    lines = [f"{where}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, levels):
        lines.append(f"{where}a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


# -- 1. alias bombs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(_laughs(9) + VALID, id="laughs-under-x-keys-beside-a-valid-scenario"),
        pytest.param(_laughs(9) + "scenarios: *a8\n", id="laughs-as-the-scenarios"),
        pytest.param(
            edited(("workload:\n", "workload:\n      x: &m0 {a: 1, b: 2, c: 3}\n"))
            + "".join(f"x-m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 9)}], k{i}: 1}}\n" for i in range(1, 9)),
            id="merge-key-bomb",
        ),
    ],
)
def test_an_alias_bomb_is_rejected_quickly_naming_the_alias(text: str) -> None:
    with bounded():
        lines = errors_of(text)
    assert any("alias" in line and "expands to more than" in line for line in lines), lines
    first = next(line for line in lines if "expands to more than" in line)
    assert first.startswith(f"{FILE}:"), first
    assert "*a" in first or "*m" in first, first


def test_a_recursive_alias_is_rejected() -> None:
    lines = errors_of("x-loop: &loop [1, *loop]\n" + VALID)
    assert lines == [f"{FILE}:1: x-loop[1]: the alias *loop refers to the value that contains it"]


def test_deep_nesting_is_rejected_at_its_line() -> None:
    with bounded():
        lines = errors_of(VALID + "x-deep:\n  " + "[" * 5000 + "]" * 5000 + "\n")
    assert lines == [f"{FILE}:18: YAML nested more than 64 levels deep; scenario files need a handful"]


def test_legit_aliases_and_merge_keys_still_work() -> None:
    text = dedent(
        """
        x-provider: &provider {kind: auto, primary: cluster-a, secondaries: [cluster-b], failover_delay: 2s}
        x-workload: &workload {duration: 30s, keys: 4}
        scenarios:
          - name: a
            provider: {<<: *provider, switch_back_delay: 4s}
            workload: *workload
            expect: [{no_loss: true}]
          - name: b
            provider: {<<: *provider, switch_back_delay: 4s, failover_delay: 3s}
            workload: {<<: [*workload, {keys: 9, rate: 5/s}], duration: 20s}
            expect: [{no_loss: true}]
        """
    )
    a, b = parse_scenarios(text, FILE)
    assert a.scenario.provider.failover_delay.text == "2s"  # type: ignore[union-attr]
    assert b.scenario.provider.failover_delay.text == "3s"  # type: ignore[union-attr]
    assert (b.scenario.workload.duration.text, b.scenario.workload.keys, str(b.scenario.workload.rate)) == (
        "20s",
        4,  # the first mapping of a merge list wins (YAML 1.1)
        "5/s",
    )


def test_a_merge_key_followed_by_an_override_is_not_a_duplicate() -> None:
    [case] = parse_scenarios(edited(("failover_delay: 2s", "<<: {failover_delay: 1s}\n      failover_delay: 2s")), FILE)
    assert case.scenario.provider.failover_delay.text == "2s"  # type: ignore[union-attr]


def test_a_real_duplicate_key_is_still_an_error() -> None:
    lines = errors_of(edited(("failover_delay: 2s", "failover_delay: 2s\n      failover_delay: 3s")))
    assert lines == [
        f"{FILE}:9: scenarios[0].provider.failover_delay: duplicate key 'failover_delay' (first on line 8)"
    ]


def test_a_merge_of_something_other_than_mappings_is_an_error() -> None:
    lines = errors_of(edited(("failover_delay: 2s", "failover_delay: 2s\n      <<: [1, 2]")))
    assert lines == [
        f"{FILE}:9: scenarios[0].provider.<<: expected a mapping or a list of mappings to merge, found a list"
    ]


# -- 2. line numbers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        pytest.param("secondaries: [cluster-b]", "secondaries: [cluster-b", 7, id="unclosed-["),
        pytest.param(
            "- {kind: outage, cluster: cluster-a, at: 5s, for: 12s}", "- {kind: outage, at: 5s", 13, id="unclosed-{"
        ),
        pytest.param("- no_loss: true", "- {no_loss: [true", 16, id="unclosed-at-the-end"),
        pytest.param("duration: 30s", "duration: '30s", 11, id="unclosed-quote"),
    ],
)
def test_an_unclosed_bracket_or_quote_is_reported_where_it_opens(old: str, new: str, line: int) -> None:
    [message] = errors_of(edited((old, new)))
    assert message.startswith(f"{FILE}:{line}: YAML syntax error: "), message
    assert "never closed" in message or "on line" in message, message


def test_a_syntax_error_at_the_end_points_at_a_line_of_the_file() -> None:
    [message] = errors_of("scenarios:\n  - name: a\n    workload: {duration: 1s\n")
    assert message.startswith(f"{FILE}:3: "), message


@pytest.mark.parametrize(
    ("byte", "name"),
    [(b"\x00", "#x0000"), (b"\x07", "#x0007"), (b"\x1b", "#x001b"), (b"\x7f", "#x007f")],
)
def test_a_control_character_is_reported_at_its_line(tmp_path: Path, byte: bytes, name: str) -> None:
    path = tmp_path / FILE
    path.write_bytes(edited(("duration: 30s", "duration: 3")).encode() + b"\n" + byte + b"\n")
    with pytest.raises(ScenarioError) as excinfo:
        load_scenarios(path, display_path=FILE)
    [message] = str(excinfo.value).splitlines()
    assert message.startswith(f"{FILE}:18: "), message
    assert name in message and "control character" in message, message


def test_invalid_utf8_is_reported_at_the_line_of_the_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / FILE
    path.write_bytes(VALID.replace("duration: 30s", "duration: 30s # caf\xe9").encode("latin-1"))
    with pytest.raises(ScenarioError) as excinfo:
        load_scenarios(path, display_path=FILE)
    assert str(excinfo.value) == (
        f"{FILE}:11: expected a UTF-8 text file, found the byte 0xe9 (column 26) that is not valid UTF-8; "
        "save the file as UTF-8"
    )


@pytest.mark.parametrize(
    "value",
    ["2001-13-45", "1" + "0" * 5000, "!!binary '!!!'", "!!timestamp 'soon'", "!!int 'x'", "!!float 'x'"],
)
def test_a_value_yaml_cannot_build_is_an_error_at_its_line(value: str) -> None:
    lines = errors_of(edited(("duration: 30s", f"duration: 30s\n      keys: {value}")))
    assert len(lines) == 1 and lines[0].startswith(f"{FILE}:12: scenarios[0].workload.keys: "), lines


# -- 3. numbers out of range ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(
            "1" + "0" * 400, "expected a number from 0 to 1, found the number 1000…0000 (401 digits)", id="big-int"
        ),
        pytest.param("1.0e+999", "expected a number from 0 to 1, found the number inf", id="inf"),
        pytest.param(".nan", "expected a number from 0 to 1, found the number nan", id="nan"),
        pytest.param("-0.5", "expected a number from 0 to 1, found the number -0.5", id="negative"),
    ],
)
def test_a_number_out_of_range_says_the_range(value: str, expected: str) -> None:
    lines = errors_of(edited(("- no_loss: true", f"- {{availability: {{min_ratio: {value}, ack_within: 1s}}}}")))
    assert lines == [f"{FILE}:16: scenarios[0].expect[1].availability.min_ratio: {expected}"]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        (
            "keys",
            "1" + "0" * 400,
            "expected a whole number from 0 to 2147483647, found the number 1000…0000 (401 digits)",
        ),
        ("producers", "0", "expected a whole number from 1 to 2147483647, found the number 0"),
        ("consumers", "1.0e+999", "expected a whole number from 0 to 2147483647, found the number inf"),
    ],
)
def test_a_whole_number_out_of_range_says_the_range(key: str, value: str, expected: str) -> None:
    lines = errors_of(edited(("duration: 30s", f"duration: 30s\n      {key}: {value}")))
    assert lines == [f"{FILE}:12: scenarios[0].workload.{key}: {expected}"]


def test_a_duration_too_large_for_a_float_is_an_error() -> None:
    lines = errors_of(edited(("for: 12s", "for: 1" + "0" * 400 + "s")))
    assert lines == [
        f"{FILE}:13: scenarios[0].faults[0].for: expected a duration like 500ms, 3s or 1m, found '1000…000s' "
        "(402 characters): a number too large to compute with"
    ]


# -- 4. null in a variant ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "check"),
    [
        ("{seed: null}", lambda case: case.scenario.seed is None),
        ("{provider: {check_interval: null}}", lambda case: case.scenario.provider.check_interval.text == "1s"),
        ("{workload: {keys: null}}", lambda case: case.scenario.workload.keys == 0),
        ("{workload: {rate: null, send_timeout: null}}", lambda case: str(case.scenario.workload.rate) == "10/s"),
        ("{faults: null, expect: [{no_loss: true}]}", lambda case: case.scenario.faults == ()),
        ("{topology: null}", lambda case: case.scenario.topology.clusters is None),
    ],
)
def test_null_in_a_variant_brings_a_key_back_to_its_default(override: str, check: Callable[..., bool]) -> None:
    text = (
        edited(("duration: 30s", "duration: 30s\n      keys: 4\n      rate: 5/s"))
        + f"    variants:\n      - {{id: v, {override[1:-1]}}}\n"
    )
    _, variant = parse_scenarios(text, FILE)
    assert variant.id == "s[v]" and check(variant), variant.scenario


@pytest.mark.parametrize(
    ("override", "where", "key"),
    [
        ("{workload: {duration: null}}", "workload.duration", "duration"),
        ("{provider: {primary: null}}", "provider.primary", "primary"),
        ("{expect: null}", "expect", "expect"),
        ("{workload: null}", "workload", "workload"),
    ],
)
def test_null_for_a_required_key_in_a_variant_is_a_clear_error(override: str, where: str, key: str) -> None:
    lines = errors_of(VALID + f"    variants:\n      - {{id: v, {override[1:-1]}}}\n")
    assert lines == [
        f"{FILE}:18: scenarios[0].variants[0].{where}: {key!r} is required (it has no default), so null cannot "
        "bring it back to a default; give a value or leave the key out"
    ]


# -- 6. command-line arguments -------------------------------------------------------------------------------


def test_two_scenario_files_as_arguments_are_both_collected(scenario_dir: pytest.Pytester) -> None:
    one = "scenarios:\n  - {name: one, workload: {duration: 1s}, expect: [{no_loss: true}]}\n"
    two = "scenarios:\n  - {name: two, workload: {duration: 1s}, expect: [{no_loss: true}]}\n"
    scenario_dir.makefile(".pulsar-ha.yaml", a=one, b=two)
    result = scenario_dir.runpytest("a.pulsar-ha.yaml", "b.pulsar-ha.yaml")
    result.assert_outcomes(passed=2)
    assert runner_calls(scenario_dir) == ["one", "two"]
