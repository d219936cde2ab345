"""Where a run's history goes: a journal written as it happens and sealed into ``history.jsonl`` and Parquet, or,
for a soak, Parquet files streamed in bounded memory (only the steering events kept)."""

from __future__ import annotations

from pathlib import Path

from pytest_pulsar_ha.checks.figures import run_figures
from pytest_pulsar_ha.history import (
    PARTIAL_HISTORY,
    Event,
    EventLog,
    jsonl_to_parquet,
    write_events_jsonl,
)
from pytest_pulsar_ha.history.journal import BackgroundJournal
from pytest_pulsar_ha.run.context import RunContext
from pytest_pulsar_ha.run.parts.soak import soak_facts, soak_log
from pytest_pulsar_ha.scenario.model import Scenario


class JournalHistory:
    """Every event in memory and in a journal (``PARTIAL_HISTORY``, so a run that dies leaves its history)."""

    keeps_messages = True

    def __init__(self, evidence_dir: Path) -> None:
        self.journal = BackgroundJournal(evidence_dir / PARTIAL_HISTORY)
        self.log = EventLog(journal=self.journal)

    def abandon(self) -> None:
        """The run broke off before :meth:`seal`: the journal is finished and stays as its partial history."""
        self.journal.close()

    def seal(self, ctx: RunContext) -> tuple[list[Event], Path]:
        """Attribute the acks to clusters, write the whole history and its Parquet copy; the run's figures."""
        ctx.needs_workload().attribute_acks(
            {n: ctx.env.cluster(n).admin for n in ctx.clusters}, ctx.env.seeded_ledger_ids()
        )
        events = sorted(self.log.snapshot(), key=lambda e: e.ts_ns)
        history = write_events_jsonl(events, ctx.evidence_dir / "history.jsonl")
        self.journal.close()  # the whole history is written: the journal of a run that could have died goes
        self.journal.path.unlink(missing_ok=True)
        ctx.result.evidence["history"] = history
        ctx.result.evidence["history_parquet"] = jsonl_to_parquet(history, ctx.evidence_dir / "history.parquet")
        ctx.result.figures = run_figures(events)
        return events, history


class SoakHistory:
    """A soak's: every event streamed to Parquet files, the steering ones kept in memory."""

    keeps_messages = False

    def __init__(self, evidence_dir: Path, scenario: Scenario) -> None:
        if scenario.soak is None:
            raise ValueError("a soak history needs a scenario with soak:")
        self.log, self.segments = soak_log(evidence_dir, scenario.soak)

    def abandon(self) -> None:
        """The run broke off before :meth:`seal`: the segments written so far stay as its partial history."""
        self.segments.close()

    def seal(self, ctx: RunContext) -> tuple[list[Event], Path]:
        events = sorted(self.log.snapshot(), key=lambda e: e.ts_ns)
        history = self.segments.close()
        ctx.result.evidence["history"] = history
        ctx.facts.update(soak_facts(self.log, self.segments, ctx.sampler, ctx.needs_workload().drain_held()))
        return events, history


HistoryStore = JournalHistory | SoakHistory


def store_for(scenario: Scenario, evidence_dir: Path) -> HistoryStore:
    """The history of a run of ``scenario``: a soak's streams in bounded memory, any other run's is journaled."""
    if scenario.soak is not None:
        return SoakHistory(evidence_dir, scenario)
    return JournalHistory(evidence_dir)
