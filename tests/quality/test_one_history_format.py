"""The history format is defined once, in ``spark_checks/history_format.py``: the writer (``pytest_pulsar_ha.history``)
and the Spark checks import its names from there, and no other module of the shipped packages defines them again.

A definition is what a copy of the format would look like, read with ``ast`` (nothing is imported):

* an event type bound to a constant: ``SEND = "send"`` (an UPPER_CASE name given an event type's literal);
* a list of event types: a tuple, list or set literal holding three or more event types' literals;
* a list of the columns: a tuple, list or set literal, or a class's annotated fields, naming all the columns but
  at most two (a copy made before a column was added still counts), or a dict literal with those keys whose
  values are all literals (a table of column types).

What uses the format is not a definition: a row built as a dict of every column with computed values (the fleet's
Arrow columns), a ``select`` of a few columns, a colour per event type keyed by its literal.
"""

from __future__ import annotations

import ast
from pathlib import Path

from spark_checks import history_format

ROOT = Path(__file__).resolve().parents[2]
THE_DEFINITION = ROOT / "spark_checks" / "history_format.py"
SHIPPED = ("pytest_pulsar_ha", "spark_checks", "providers")
"""The packages a history's writer or reader lives in (tests and benchmarks may spell the format out)."""

COLUMNS = frozenset(history_format.EVENT_COLUMNS)
TYPES = frozenset(history_format.EVENT_TYPES)
COLUMN_LIST_AT_LEAST = len(COLUMNS) - 2
TYPE_LIST_AT_LEAST = 3


def _strings(nodes: list[ast.expr | None]) -> set[str]:
    return {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _definitions(source: str) -> list[str]:
    """What in ``source`` defines the history format's names: ``line: what`` per definition."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()]
            if names and node.value.value in TYPES:
                found.append(f"{node.lineno}: the event type constant {names[0]} = {node.value.value!r}")
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            values = _strings(list(node.elts))
            if len(values & TYPES) >= TYPE_LIST_AT_LEAST:
                found.append(f"{node.lineno}: a list of event types {sorted(values & TYPES)}")
            if len(values & COLUMNS) >= COLUMN_LIST_AT_LEAST:
                found.append(f"{node.lineno}: a list of the columns {sorted(values & COLUMNS)}")
        elif isinstance(node, ast.Dict):
            keys = _strings(node.keys)
            literal = all(isinstance(v, ast.Constant | ast.Tuple) for v in node.values)
            if literal and len(keys & COLUMNS) >= COLUMN_LIST_AT_LEAST:
                found.append(f"{node.lineno}: a table of the columns {sorted(keys & COLUMNS)}")
        elif isinstance(node, ast.ClassDef):
            fields = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
            if len(fields & COLUMNS) >= COLUMN_LIST_AT_LEAST:
                found.append(f"{node.lineno}: the class {node.name} with the columns as fields")
    return sorted(found, key=lambda where: int(where.split(":")[0]))


def _shipped_modules() -> list[Path]:
    return sorted(p for top in SHIPPED for p in (ROOT / top).rglob("*.py"))


def test_no_module_but_one_defines_the_history_format() -> None:
    copies = [
        f"{path.relative_to(ROOT)}:{where}"
        for path in _shipped_modules()
        if path != THE_DEFINITION
        for where in _definitions(path.read_text())
    ]
    assert not copies, (
        "the history format is defined in spark_checks/history_format.py alone; import its names from there:\n"
        + "\n".join(copies)
    )


def test_the_one_definition_is_where_the_check_looks() -> None:
    """The check finds the format's own definitions (it is not blind): the event types, the columns as fields."""
    found = "\n".join(_definitions(THE_DEFINITION.read_text()))
    for name in ("SEND", "ACK", "METADATA_READ"):
        assert f"constant {name} = " in found
    assert "the class Event with the columns as fields" in found


def test_the_check_sees_a_copy() -> None:
    copy = (
        'SEND = "send"\n'
        'KINDS = ("ack", "receive", "send_error")\n'
        f"COLUMNS = {tuple(sorted(COLUMNS))[2:]!r}\n"
        f"TYPES = {dict.fromkeys(COLUMNS, 'string')!r}\n"
        "class Row:\n" + "".join(f"    {name}: str\n" for name in sorted(COLUMNS))
    )
    kinds = [where.split(": ", 1)[1].split(" [")[0].split(" = ")[0] for where in _definitions(copy)]
    assert kinds == [
        "the event type constant SEND",
        "a list of event types",
        "a list of the columns",
        "a table of the columns",
        "the class Row with the columns as fields",
    ]


def test_the_check_lets_uses_be() -> None:
    use = (
        'row = {"ts_ns": ts, "type": kind, "process": p, "cluster": c, "topic": t, "subscription": s,\n'
        '       "producer": p, "seq": n, "key": k, "message_id": m, "detail": d}\n'
        'COLOURS = {"ack": "#1565c0", "receive": "#2e7d32", "send_error": "#c62828"}\n'
        'frame.select("type", "producer", "seq", "subscription", "cluster", "ts_ns")\n'
        'of = "fault_start"\n'
    )
    assert _definitions(use) == []


def test_spark_checks_imports_nothing_from_the_writer_package() -> None:
    """The checker stands alone (zipped for a Spark cluster's executors): the writer imports the format from it,
    never the other way round. Only docstrings and comments may name pytest_pulsar_ha in spark_checks."""
    offenders = []
    for source in sorted((ROOT / "spark_checks").rglob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            offenders += [f"{source.name}: {name}" for name in names if name.split(".")[0] == "pytest_pulsar_ha"]
    assert offenders == []
