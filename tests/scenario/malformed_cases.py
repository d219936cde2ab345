"""Kinds of malformed scenario file, what the loader says about each, and the table that documents them.

``docs/reliability/scenario-files.md`` is :func:`render`'s output (``test_malformed_files.py`` checks it);
regenerate it with ``python -m tests.scenario.malformed_cases`` from the repository root.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from pytest_pulsar_ha.scenario import ScenarioError, load_scenarios

from .helpers import REPO
from .test_loader import VALID

DOC = REPO / "docs" / "reliability" / "scenario-files.md"
FILE = "t.pulsar-ha.yaml"
VARIANT = "    variants:\n      - "


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    change: str  # what is wrong, in words (shown in the table)
    content: bytes  # the whole file
    line: int  # the line the first problem must point at
    fragment: str  # ... and a part of its message

    def messages(self, directory: Path) -> list[str]:
        path = directory / FILE
        path.write_bytes(self.content)
        try:
            load_scenarios(path, display_path=FILE)
        except ScenarioError as exc:
            return [str(problem) for problem in exc.problems]
        return []


def _edit(*replacements: tuple[str, str]) -> bytes:
    text = VALID
    for old, new in replacements:
        if text.count(old) != 1:
            raise ValueError(f"{old!r} is not in the template exactly once")
        text = text.replace(old, new)
    return text.encode()


def _laughs(levels: int, where: str = "x-") -> str:
    lines = [f"{where}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"{where}a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _case(id: str, category: str, change: str, content: bytes | str, line: int, fragment: str) -> Case:
    data = content.encode() if isinstance(content, str) else content
    return Case(id, category, change, data, line, fragment)


def _variant(override: str) -> bytes:
    return (VALID + VARIANT + override + "\n").encode()


CASES: list[Case] = [
    # -- hostile YAML ------------------------------------------------------------------------------------
    _case(
        "laughs-x-key",
        "alias bomb",
        "billion laughs under an ignored `x-` key, beside a valid scenario",
        _laughs(9) + VALID,
        5,
        "the alias *a3 expands to more than 10000 values",
    ),
    _case(
        "laughs-scenarios",
        "alias bomb",
        "`scenarios: *a8` after nine levels of laughs",
        _laughs(9) + "scenarios: *a8\n",
        5,
        "the alias *a3 expands to more than 10000 values",
    ),
    _case(
        "laughs-in-workload",
        "alias bomb",
        "`workload: *a8`, the laughs inside the scenario",
        _laughs(9) + VALID.replace("    workload:\n      duration: 30s\n", "    workload: *a8\n"),
        5,
        "the alias *a3 expands",
    ),
    _case(
        "merge-bomb",
        "alias bomb",
        "merge keys of merge keys: `{<<: [*m0, *m0, ...]}` eight levels deep",
        "x-m0: &m0 {a: 1, b: 2, c: 3}\n"
        + "".join(f"x-m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * 9)}], k{i}: 1}}\n" for i in range(1, 9))
        + VALID,
        5,
        "the alias *m3 expands to more than 10000 values",
    ),
    _case(
        "recursive-alias",
        "alias bomb",
        "an alias inside the value it names: `&loop [1, *loop]`",
        "x-loop: &loop [1, *loop]\n" + VALID,
        1,
        "the alias *loop refers to the value that contains it",
    ),
    _case(
        "undefined-alias",
        "alias",
        "an alias with no anchor: `workload: *nothing`",
        _edit(("    workload:\n      duration: 30s\n", "    workload: *nothing\n")),
        10,
        "found undefined alias 'nothing'",
    ),
    _case(
        "deep-flow",
        "nesting",
        "5000 nested `[`",
        VALID + "x-deep: " + "[" * 5000 + "]" * 5000 + "\n",
        17,
        "nested more than 64 levels deep",
    ),
    _case(
        "deep-mapping",
        "nesting",
        "300 nested `{a: `",
        VALID + "x-deep: " + "{a: " * 300 + "1" + "}" * 300 + "\n",
        17,
        "nested more than 64 levels deep",
    ),
    _case(
        "deep-through-aliases",
        "nesting",
        "aliases that each nest the previous one 40 levels deeper",
        "x-d0: &d0 "
        + "[" * 40
        + "1"
        + "]" * 40
        + "\n"
        + "".join(f"x-d{i}: &d{i} " + "[" * 40 + f"*d{i - 1}" + "]" * 40 + "\n" for i in range(1, 4))
        + VALID,
        2,
        "nested more than 64 levels deep",
    ),
    # -- syntax -----------------------------------------------------------------------------------------
    _case(
        "unclosed-list",
        "syntax",
        "`secondaries: [cluster-b` (no `]`)",
        _edit(("secondaries: [cluster-b]", "secondaries: [cluster-b")),
        7,
        "the list '[' opened here is never closed",
    ),
    _case(
        "unclosed-mapping",
        "syntax",
        "a fault `{kind: outage, ...` without `}`",
        _edit(("for: 12s}", "for: 12s")),
        13,
        "the mapping '{' opened here is never closed",
    ),
    _case(
        "unclosed-at-end",
        "syntax",
        "`- {no_loss: [true` on the last line",
        _edit(("- no_loss: true", "- {no_loss: [true")),
        16,
        "is never closed",
    ),
    _case(
        "unclosed-quote",
        "syntax",
        "`duration: '30s` (no closing quote)",
        _edit(("duration: 30s", "duration: '30s")),
        11,
        "the quoted text opened here is never closed",
    ),
    _case(
        "tab-indent",
        "syntax",
        "a tab where the indentation is",
        _edit(("      duration: 30s", "\tduration: 30s")),
        11,
        "found character '\\t' that cannot start any token",
    ),
    _case(
        "bad-indent",
        "syntax",
        "`primary:` indented one space less than its siblings",
        _edit(("      primary: cluster-a", "     primary: cluster-a")),
        6,
        "YAML syntax error",
    ),
    _case(
        "two-documents",
        "syntax",
        "a second document after `---`",
        VALID + "---\n" + VALID,
        17,
        "expected one YAML document, found several",
    ),
    _case(
        "colon-in-value",
        "syntax",
        "`failover_delay: 2s: 3s`",
        _edit(("failover_delay: 2s", "failover_delay: 2s: 3s")),
        8,
        "mapping values are not allowed here",
    ),
    _case(
        "duplicate-anchor",
        "syntax",
        "the same anchor name given twice",
        "x-a: &a {duration: 1s}\nx-b: &a {duration: 0s}\n"
        + VALID.replace("    workload:\n      duration: 30s\n", "    workload: *a\n"),
        2,
        "the anchor &a is defined twice (first on line 1)",
    ),
    # -- bytes ------------------------------------------------------------------------------------------
    _case(
        "latin-1",
        "bytes",
        "a Latin-1 `é` in a comment on line 11",
        VALID.replace("duration: 30s", "duration: 30s # caf\xe9").encode("latin-1"),
        11,
        "found the byte 0xe9 (column 26) that is not valid UTF-8",
    ),
    _case("utf-16", "bytes", "the file saved as UTF-16", VALID.encode("utf-16"), 1, "is not valid UTF-8"),
    _case(
        "truncated-utf8",
        "bytes",
        "a multi-byte character cut in half at the end",
        VALID.encode() + b"# \xc3",
        17,
        "found the byte 0xc3",
    ),
    _case(
        "nul",
        "bytes",
        "a NUL byte on line 12",
        _edit(("duration: 30s", "duration: 30s\n\x00")),
        12,
        "control character #x0000",
    ),
    _case(
        "bell",
        "bytes",
        "a BEL (0x07) inside a value",
        _edit(("duration: 30s", "duration: 3\x070s")),
        11,
        "control character #x0007",
    ),
    _case("escape", "bytes", "an ESC (0x1b) on the last line", VALID + "\x1b\n", 17, "control character #x001b"),
    _case(
        "del",
        "bytes",
        "a DEL (0x7f) in a comment",
        _edit(("duration: 30s", "duration: 30s # \x7f")),
        11,
        "control character #x007f",
    ),
    _case(
        "bom",
        "bytes",
        "a UTF-8 byte-order mark before the valid file, and a bad key",
        b"\xef\xbb\xbf" + _edit(("failover_delay", "failover_dealy")),
        4,
        "unknown key 'failover_dealy'",
    ),
    # -- the file ---------------------------------------------------------------------------------------
    _case("empty", "file", "an empty file", "", 1, "the file is empty"),
    _case("only-comments", "file", "only comments", "# nothing here\n# at all\n", 1, "the file is empty"),
    _case(
        "top-list", "file", "a list at the top level", "- name: s\n", 1, "expected a mapping with the key 'scenarios'"
    ),
    _case("top-scalar", "file", "just text", "hello\n", 1, "expected a mapping with the key 'scenarios'"),
    _case("no-scenarios", "file", "no `scenarios:` key", "x-only: 1\n", 1, "missing required key 'scenarios'"),
    _case(
        "scenarios-typo",
        "file",
        "`scenario:` instead of `scenarios:`",
        VALID.replace("scenarios:", "scenario:"),
        1,
        "did you mean 'scenarios'?",
    ),
    _case("empty-scenarios", "file", "`scenarios: []`", "scenarios: []\n", 1, "expected at least one scenario"),
    _case(
        "scenarios-mapping",
        "file",
        "`scenarios:` a mapping",
        "scenarios: {name: s}\n",
        1,
        "expected a list of scenarios, found a mapping",
    ),
    _case(
        "scenario-text",
        "file",
        "a scenario that is just a name",
        "scenarios:\n  - steady\n",
        2,
        "expected a mapping (one scenario), found 'steady'",
    ),
    _case(
        "duplicate-name",
        "file",
        "two scenarios named `s`",
        VALID + VALID.split("\n", 1)[1],
        17,
        "duplicate scenario name 's' (first used on line 2)",
    ),
    # -- keys -------------------------------------------------------------------------------------------
    _case(
        "duplicate-key",
        "keys",
        "`duration:` twice",
        _edit(("duration: 30s", "duration: 30s\n      duration: 40s")),
        12,
        "duplicate key 'duration' (first on line 11)",
    ),
    _case(
        "merge-then-duplicate",
        "keys",
        "a merge, then the same key twice",
        _edit(("failover_delay: 2s", "<<: {failover_delay: 1s}\n      failover_delay: 2s\n      failover_delay: 3s")),
        10,
        "duplicate key 'failover_delay' (first on line 9)",
    ),
    _case(
        "merge-scalar",
        "keys",
        "`<<: 5`",
        _edit(("failover_delay: 2s", "failover_delay: 2s\n      <<: 5")),
        9,
        "expected a mapping or a list of mappings to merge, found '5'",
    ),
    _case(
        "unknown-key",
        "keys",
        "`failover_dealy`",
        _edit(("failover_delay", "failover_dealy")),
        4,
        "did you mean 'failover_delay'?",
    ),
    _case(
        "key-of-other-kind",
        "keys",
        "`probe:` on a native provider",
        _edit(("kind: auto", "kind: native"), ("switch_back_delay: 4s", "switch_back_delay: 4s\n      probe: tcp")),
        10,
        "key 'probe' is only valid with kind auto, found kind native",
    ),
    _case(
        "number-key",
        "keys",
        "a number as a key",
        _edit(("duration: 30s", "duration: 30s\n      1: x")),
        12,
        "expected keys to be text, found the number 1",
    ),
    _case(
        "list-key",
        "keys",
        "a list as a key (`? [a]`)",
        _edit(("duration: 30s", "duration: 30s\n      ? [a]\n      : 1")),
        12,
        "expected keys to be text, found a list",
    ),
    _case(
        "missing-workload",
        "keys",
        "no `workload:`",
        _edit(("    workload:\n      duration: 30s\n", "")),
        2,
        "missing required key 'workload'",
    ),
    _case(
        "missing-kind",
        "keys",
        "a fault without `kind`",
        _edit(("{kind: outage, cluster", "{cluster")),
        13,
        "missing required key 'kind'",
    ),
    _case(
        "unknown-kind",
        "keys",
        "`kind: blackout`",
        _edit(("kind: outage", "kind: blackout")),
        13,
        "expected one of: outage, kill",
    ),
    _case(
        "two-keys-expectation",
        "keys",
        "an expectation with two keys",
        _edit(("- no_loss: true", "- {no_loss: true, no_switch: true}")),
        16,
        "expected one key naming the expectation, found 2",
    ),
    # -- values -----------------------------------------------------------------------------------------
    _case(
        "duration-words",
        "values",
        "`for: 10 seconds`",
        _edit(("for: 12s", "for: 10 seconds")),
        13,
        "expected a duration like 500ms, 3s or 1m, found '10 seconds'",
    ),
    _case(
        "duration-no-unit", "values", "`duration: 30`", _edit(("duration: 30s", "duration: 30")), 11, "without a unit"
    ),
    _case(
        "duration-zero",
        "values",
        "`duration: 0s`",
        _edit(("duration: 30s", "duration: 0s")),
        11,
        "expected a duration above zero, found '0s'",
    ),
    _case(
        "check-interval-zero",
        "values",
        "`check_interval: 0ms`",
        _edit(("failover_delay: 2s", "failover_delay: 2s\n      check_interval: 0ms")),
        9,
        "expected a duration above zero, found '0ms'",
    ),
    _case(
        "ack-within-zero",
        "values",
        "`ack_within: 0s`",
        _edit(("- no_loss: true", "- {availability: {min_ratio: 0.5, ack_within: 0s}}")),
        16,
        "expected a duration above zero, found '0s'",
    ),
    _case("negative-duration", "values", "`at: -1s`", _edit(("at: 5s", "at: -1s")), 13, "found '-1s'"),
    _case(
        "huge-duration",
        "values",
        "a 400-digit duration",
        _edit(("for: 12s", "for: 1" + "0" * 400 + "s")),
        13,
        "a number too large to compute with",
    ),
    _case(
        "rate-zero",
        "values",
        "`rate: 0/s`",
        _edit(("duration: 30s", "duration: 30s\n      rate: 0/s")),
        12,
        "expected a rate above zero",
    ),
    _case(
        "size-unit",
        "values",
        "`message_size: 4kb`",
        _edit(("duration: 30s", "duration: 30s\n      message_size: 4kb")),
        12,
        "expected a size like 100B",
    ),
    _case(
        "ratio-huge-int",
        "values",
        "`min_ratio:` a 400-digit number",
        _edit(("- no_loss: true", "- {availability: {min_ratio: 1" + "0" * 400 + ", ack_within: 1s}}")),
        16,
        "expected a number from 0 to 1, found the number 1000…0000 (401 digits)",
    ),
    _case(
        "ratio-inf",
        "values",
        "`min_ratio: 1.0e+999` (infinite)",
        _edit(("- no_loss: true", "- {availability: {min_ratio: 1.0e+999, ack_within: 1s}}")),
        16,
        "expected a number from 0 to 1, found the number inf",
    ),
    _case(
        "ratio-nan",
        "values",
        "`min_ratio: .nan`",
        _edit(("- no_loss: true", "- {availability: {min_ratio: .nan, ack_within: 1s}}")),
        16,
        "expected a number from 0 to 1, found the number nan",
    ),
    _case(
        "keys-huge",
        "values",
        "`keys:` a 400-digit number",
        _edit(("duration: 30s", "duration: 30s\n      keys: 1" + "0" * 400)),
        12,
        "expected a whole number from 0 to 2147483647",
    ),
    _case(
        "keys-too-long",
        "values",
        "`keys:` a 5000-digit number (more than Python reads)",
        _edit(("duration: 30s", "duration: 30s\n      keys: 1" + "0" * 5000)),
        12,
        "more than 4300 digits",
    ),
    _case(
        "producers-zero",
        "values",
        "`producers: 0`",
        _edit(("duration: 30s", "duration: 30s\n      producers: 0")),
        12,
        "expected a whole number from 1 to 2147483647, found the number 0",
    ),
    _case(
        "consumers-text",
        "values",
        "`consumers: two`",
        _edit(("duration: 30s", "duration: 30s\n      consumers: two")),
        12,
        "expected a whole number from 0 to 2147483647, found 'two'",
    ),
    _case(
        "seed-negative",
        "values",
        "`seed: -1`",
        _edit(("  - name: s\n", "  - name: s\n    seed: -1\n")),
        3,
        "expected a whole number from 0 to 9223372036854775807",
    ),
    _case(
        "bool-as-text",
        "values",
        '`replicated_subscriptions: "yes"`',
        _edit(("duration: 30s", 'duration: 30s\n      replicated_subscriptions: "yes"')),
        12,
        "expected true or false",
    ),
    _case(
        "bad-date",
        "values",
        "`keys: 2001-13-45` (YAML reads a date)",
        _edit(("duration: 30s", "duration: 30s\n      keys: 2001-13-45")),
        12,
        "cannot read the value '2001-13-45'",
    ),
    _case(
        "python-tag",
        "values",
        "`!!python/object:os.system`",
        _edit(("duration: 30s", "duration: !!python/object:os.system x")),
        11,
        "expected a plain YAML value",
    ),
    _case(
        "binary-tag",
        "values",
        "`!!binary` that is not base64",
        _edit(("duration: 30s", "duration: !!binary '!!!'")),
        11,
        "duration",
    ),
    _case(
        "bad-cluster-name",
        "values",
        "`primary: Cluster_A`",
        _edit(("primary: cluster-a", "primary: Cluster_A")),
        6,
        "expected a cluster name",
    ),
    _case(
        "bad-scenario-name",
        "values",
        "`name: My Scenario`",
        _edit(("name: s", "name: My Scenario")),
        2,
        "expected a name of lowercase letters",
    ),
    _case(
        "no-loss-false",
        "values",
        "`no_loss: false`",
        _edit(("no_loss: true", "no_loss: false")),
        16,
        "expected true (leave the expectation out instead), found false",
    ),
    _case(
        "window-three",
        "values",
        "`within: [1s, 2s, 3s]`",
        _edit(("within: [2s, 8s]", "within: [1s, 2s, 3s]")),
        15,
        "expected a list of 2 items, found 3 items",
    ),
    # -- across keys ------------------------------------------------------------------------------------
    _case(
        "unknown-cluster",
        "cross-field",
        "a fault on `cluster-c`",
        _edit(("cluster: cluster-a", "cluster: cluster-c")),
        13,
        "unknown cluster 'cluster-c'",
    ),
    _case(
        "fault-after-end",
        "cross-field",
        "a fault that ends after the workload",
        _edit(("for: 12s", "for: 30s")),
        13,
        "after the end of the workload",
    ),
    _case(
        "window-reversed",
        "cross-field",
        "`within: [8s, 2s]`",
        _edit(("within: [2s, 8s]", "within: [8s, 2s]")),
        15,
        "earliest <= latest",
    ),
    _case(
        "primary-secondary",
        "cross-field",
        "the primary also a secondary",
        _edit(("secondaries: [cluster-b]", "secondaries: [cluster-b, cluster-a]")),
        7,
        "cannot also be a secondary",
    ),
    _case(
        "exclusive-two",
        "cross-field",
        "two consumers on an exclusive subscription",
        _edit(("duration: 30s", "duration: 30s\n      consumers: 2")),
        12,
        "an exclusive subscription takes one consumer",
    ),
    _case(
        "switch-without-provider",
        "cross-field",
        "a switch expectation with provider kind none",
        _edit(
            ("kind: auto", "kind: none"),
            ("      secondaries: [cluster-b]\n      failover_delay: 2s\n      switch_back_delay: 4s\n", ""),
        ),
        12,
        "switch needs a failover provider",
    ),
    _case(
        "fault-index",
        "cross-field",
        "`switch: {fault: 3}` with one fault",
        _edit(("within: [2s, 8s]}", "within: [2s, 8s], fault: 3}")),
        15,
        "expected the index of a fault (0 to 0)",
    ),
    _case(
        "ordering-no-keys",
        "cross-field",
        "`ordering: {per: key}` without keys",
        _edit(("- no_loss: true", "- {ordering: {per: key}}")),
        16,
        "ordering per key needs keyed messages",
    ),
    # -- variants ---------------------------------------------------------------------------------------
    _case(
        "variant-no-id",
        "variants",
        "a variant without `id`",
        _variant("{provider: {probe: tcp}}"),
        18,
        "missing required key 'id'",
    ),
    _case(
        "variant-duplicate-id",
        "variants",
        "two variants with the same id",
        (VALID + VARIANT + "{id: v}\n      - {id: v}\n").encode(),
        19,
        "duplicate variant id 'v'",
    ),
    _case(
        "variant-name",
        "variants",
        "a variant that sets `name`",
        _variant("{id: v, name: other}"),
        18,
        "a variant cannot set 'name'",
    ),
    _case(
        "variant-null-required",
        "variants",
        "`workload: {duration: null}` in a variant",
        _variant("{id: v, workload: {duration: null}}"),
        18,
        "'duration' is required (it has no default)",
    ),
    _case(
        "variant-zero",
        "variants",
        "`workload: {duration: 0s}` in a variant",
        _variant("{id: v, workload: {duration: 0s}}"),
        18,
        "expected a duration above zero",
    ),
    _case(
        "variant-merge-problem",
        "variants",
        "a variant's shorter workload makes the fault end too late",
        _variant("{id: v, workload: {duration: 10s}}"),
        13,
        "(in variant 'v')",
    ),
    _case(
        "variants-mapping",
        "variants",
        "`variants:` a mapping",
        VALID + "    variants: {id: v}\n",
        17,
        "expected a list of variants, found a mapping",
    ),
]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def render(directory: Path) -> str:
    """The markdown of ``docs/reliability/scenario-files.md``; ``directory`` is a scratch folder."""
    lines = [
        "# Malformed scenario files: what the loader says",
        "",
        "<!-- generated by python -m tests.scenario_model.malformed_cases; do not edit -->",
        "",
        f"Each row is a kind of malformed `*.pulsar-ha.yaml` file ({len(CASES)} kinds), made from one valid "
        "scenario (the template of `tests/scenario/test_loader.py`) or written out, and what loading it "
        "reports. Every one is a `ScenarioError`, raised within a second and a bounded amount of memory "
        "(`tests/scenario/test_hostile_files.py`, and a Hypothesis fuzz test over mutations of the shipped "
        "files in `test_fuzz_loader.py`). Under pytest each is a collection error of its file, raised before any "
        "fixture is set up: no test of the session runs and no cluster is started "
        "(`test_malformed_files.py::test_no_malformed_file_starts_a_cluster` collects them all at once with a "
        "`pulsar_ha` fixture that records whether it was set up).",
        "",
        "| # | kind | what is wrong | what the loader says (`file:line: key: message`) |",
        "|---|---|---|---|",
    ]
    for number, case in enumerate(CASES, 1):
        messages = "<br>".join(f"`{_cell(message)}`" for message in case.messages(directory)) or "(no error)"
        lines.append(f"| {number} | {case.category} | {_cell(case.change)} | {messages} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(render(Path(scratch)), encoding="utf-8")
    print(f"wrote {DOC}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
