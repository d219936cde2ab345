"""Each process verb (kill, start, pause, resume, is_running, is_paused, log_tail) is written once in the package.

A process control is a class that defines one of the verbs only process controls have (kill, pause, resume,
is_running, is_paused), or derives from one (by its bases' names, followed round the package): ``start`` and
``log_tail`` alone name other things too (a workload starts, a fleet worker has a log). In a process control a verb
may be defined only in

- ``Controls`` (``process/control.py``): the protocol, which declares each verb;
- ``Controlled`` (``process/control.py``): the base every service, node, broker, process and cluster handle derives
  from, which forwards each verb to its processes;
- ``ManagedProcess`` (``process/processes.py``): the low-level process the base wraps, which does each verb to a
  process group with signals;
- ``ContainerProcess`` (``runtime/docker/process.py``): the low-level process of the docker backend, a
  ``ManagedProcess`` that does each verb to a container through the Docker API instead (two ways of running a
  process: both must be kept).

How a class comes up differs (a readiness wait, an ordered start, a health check): it supplies that as
``_start_ready``, which ``Controlled.start`` calls. A class that answers the verbs another way (the warm keeper's
socket, the external backend's refusals) derives them from the protocol's members, and defines none. The graph is
read with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pytest_pulsar_ha.process.control import VERBS, Controls, protocol_members

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_pulsar_ha"
CONTROL_ONLY = frozenset({"kill", "pause", "resume", "is_running", "is_paused"})
"""Verbs that only a process control has: a class defining one is a process control."""
ALLOWED = {
    "process/control.py:Controls",
    "process/control.py:Controlled",
    "process/processes.py:ManagedProcess",
    "runtime/docker/process.py:ContainerProcess",
}
"""The classes that may define the verbs (see the module's documentation)."""


def _classes() -> dict[str, tuple[ast.ClassDef, str]]:
    """Every class of the package: ``<path>:<name>`` -> (its node, its name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found[f"{path.relative_to(PACKAGE)}:{node.name}"] = (node, node.name)
    return found


def _verbs(node: ast.ClassDef) -> list[str]:
    return [
        item.name
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in VERBS
    ]


def _base_names(node: ast.ClassDef) -> set[str]:
    return {ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases}


def _process_controls(classes: dict[str, tuple[ast.ClassDef, str]]) -> set[str]:
    controls = {key for key, (node, _) in classes.items() if CONTROL_ONLY & set(_verbs(node))}
    while True:
        names = {classes[key][1] for key in controls}
        more = {key for key, (node, _) in classes.items() if key not in controls and _base_names(node) & names}
        if not more:
            return controls
        controls |= more


def test_the_verbs_are_the_protocols_members() -> None:
    assert set(VERBS) == {"kill", "start", "pause", "resume", "is_running", "is_paused", "log_tail"}
    assert protocol_members(Controls) == VERBS


def test_each_process_verb_is_written_once() -> None:
    classes = _classes()
    controls = _process_controls(classes)
    assert controls >= ALLOWED, "the base, the protocol and the low-level processes are process controls"
    written = {key: verbs for key in sorted(controls) if (verbs := _verbs(classes[key][0])) and key not in ALLOWED}
    assert not written, (
        "process verbs written again outside process/control.py's Controlled (derive from it and supply how the "
        "class comes up as _start_ready, or its processes as processes()): "
        + "; ".join(f"{key}: {', '.join(verbs)}" for key, verbs in written.items())
    )
