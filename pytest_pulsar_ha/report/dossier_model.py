"""The shape of a finding's dossier (:mod:`pytest_pulsar_ha.report.finding_dossiers` holds the dossiers
themselves): its class, the repository it belongs in, the code pointers at a release's tag and the upstream
threads searched for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["broker defect", "client defect", "limit of the design", "intended behaviour"]
KINDS: tuple[Kind, ...] = ("broker defect", "client defect", "limit of the design", "intended behaviour")
"""The classes, in the order the page sorts by."""

PULSAR = "apache/pulsar"
CPP = "apache/pulsar-client-cpp"
PYTHON = "apache/pulsar-client-python"
UPSTREAM_REPOSITORIES = (PULSAR, CPP, PYTHON)
"""The repositories every search covers (the Java client lives in apache/pulsar)."""


@dataclass(frozen=True)
class CodePointer:
    tag: str
    path: str
    member: str
    """``Class.method``"""
    lines: tuple[int, int]
    """first and last line of the method at ``tag`` (the release jar's line table)"""
    what: str

    @property
    def url(self) -> str:
        first, last = self.lines
        return f"https://github.com/{PULSAR}/blob/{self.tag}/{self.path}#L{first}-L{last}"


@dataclass(frozen=True)
class Thread:
    """An upstream issue or pull request and what it is to the finding."""

    ref: str
    """``owner/repo#number``"""
    kind: Literal["issue", "pull request"]
    state: str
    """as the search tool's copy of the thread says: open, closed, merged"""
    relation: str


@dataclass(frozen=True)
class Dossier:
    kind: Kind
    repository: str
    """where it is to be reported: apache/pulsar (broker and Java client), apache/pulsar-client-cpp, ..."""
    client: str = ""
    """for a client defect: which client the runs used"""
    counter_check: str = ""
    """a case that must pass beside it on the same version (a reference synchronizer, another client), or ''"""
    code: tuple[CodePointer, ...] = ()
    threads: tuple[Thread, ...] = ()
    searched: str = ""
    """the day the upstream repositories were searched (YYYY-MM-DD), '' when not yet"""
    queries: tuple[str, ...] = ()
    log_pattern: str = ""
    """a regular expression for the log lines that show the mechanism ('' when no line does)"""
    log_note: str = ""
    """whose log, and what the lines say (or why there is none)"""
    script: str = ""
    """the plain reproduction beside the report (``reproduce.py``), '' when none yet"""
    script_about: str = ""
    """what the plain script starts and does, for the report (after its link; every dossier with a script says)"""
