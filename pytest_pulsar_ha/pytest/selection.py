"""Selecting one scenario case by its node id: ``file::name`` runs the case ``name`` only, not its variants.

pytest treats ``file::name`` as also naming every ``name[...]`` (the rule for parametrized functions). A
scenario's base case is a test of its own, and a replay command (``pytest 'file::name' --pulsar-ha-seed=N``)
must run that case and nothing else; the whole file, or ``file::name[variant]``, names the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


def asked_ids(args: Iterable[str], invocation_dir: Path, rootpath: Path) -> set[str]:
    """The node ids, relative to ``rootpath``, of the command line's ``path::name`` arguments."""
    wanted = set()
    for arg in args:
        path, sep, rest = arg.partition("::")
        if not sep:
            continue
        resolved = (invocation_dir / path).resolve()
        try:
            relative = resolved.relative_to(rootpath.resolve())
        except ValueError:
            continue
        wanted.add(f"{relative.as_posix()}::{rest}")
    return wanted


def variants_not_asked_for(nodeids: Sequence[str], asked: set[str]) -> set[str]:
    """Node ids of variants (``base[...]``) that were collected only because their base case was asked for."""
    return {
        nodeid
        for nodeid in nodeids
        if "[" in nodeid
        and nodeid not in asked
        and nodeid.split("[", 1)[0] in asked
        and nodeid.split("[", 1)[0] in nodeids
    }
