"""The findings catalogue: each behaviour of Pulsar this project has shown, per Pulsar version, from stored runs.

A finding is shown by a scenario case: the named expectations fail there (or a known deadlock stops the run).
Recording a run's ``verdict.json`` (``pulsar-ha findings record``) keeps one observation per finding the case
shows or not, with the version its brokers answered (the verdict's ``pulsar`` fact) and the measured figures, in a
JSON-lines file under ``docs/results/data/findings/``; :mod:`pytest_pulsar_ha.report.findings_page` turns them into
the results page ``docs/results/findings.md`` and :mod:`pytest_pulsar_ha.report.finding_reports` into each finding's
upstream report (``tests/report/test_findings_reports.py`` fails when a page and the data disagree). A version
with no stored run of a finding says so; nothing is typed in by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

VERSIONS = ("4.0.8", "4.2.4", "5.0.1")
"""The versions the page has a column for (the ones that run here; docs/how-to/pulsar-versions.md)."""


@dataclass(frozen=True)
class Finding:
    key: str
    title: str
    cases: tuple[str, ...]
    """the scenario cases that show it, as pytest node ids (``file::name`` or ``file::name[variant]``)"""
    shown_by: tuple[str, ...]
    """the expectations that fail when it shows; ``deadlock:<name>`` for a known deadlock that stops the run"""
    upstream: str
    """the upstream issue, or what is known where none exists"""
    expected: str
    actual: str
    elsewhere: str = ""
    """for a finding no scenario shows: where it was shown instead"""

    def shows(self, case_id: str) -> bool:
        return any(node.split("::", 1)[1] == case_id for node in self.cases)

    @property
    def hunted(self) -> bool:
        """A lead of the hunt: a case of it lives under :data:`HUNT_DIR` (scenarios marked ``hunt``, run by
        ``make hunt``)."""
        return any(node.startswith(HUNT_DIR) for node in self.cases)


HUNT_DIR = "scenarios/hunt/"
"""Where the hunt's scenarios live (each marked ``hunt``; tests/report/test_hunt_leads.py holds both)."""


_SYNC = "scenarios/metadata-sync.pulsar-ha.yaml"
_MIGRATION = "scenarios/blue-green-migration.pulsar-ha.yaml"

FINDINGS: tuple[Finding, ...] = (
    Finding(
        "pip136-apply-time-lww",
        "PIP-136 last-writer-wins compares an event's origin time with the local apply time",
        (f"{_SYNC}::metadata-sync-replication-cut", f"{_SYNC}::metadata-sync-cluster-restarted"),
        ("converged", "last_writer_wins"),
        "not reported upstream yet (AbstractMetadataStore.shouldIgnoreEvent)",
        "after replication resumes every cluster holds the last write by origin time",
        "the delayed cluster applies the first queued event, stamps the path with the apply time and ignores every "
        "later one: it keeps an older write for good",
    ),
    Finding(
        "pip136-silent-no-op",
        "PIP-136 drops a remote update whose expected version no longer matches, silently",
        (f"{_SYNC}::metadata-sync-concurrent",),
        ("converged", "last_writer_wins"),
        "not reported upstream yet (AbstractMetadataStore.handleMetadataEvent; apache/pulsar#24080 is a merged PR "
        "about the same BadVersionException, not a report of the drop)",
        "concurrent updates of one path converge on the last write",
        "each cluster keeps its own write (BadVersionException swallowed, the event acknowledged)",
    ),
    Finding(
        "pip136-clock-skew",
        "PIP-136 last-writer-wins on each cluster's own clock: a cluster whose clock runs ahead keeps its earlier "
        "write against the later writes of the others",
        (f"{_SYNC}::metadata-sync-clock-ahead",),
        ("latest_write_kept",),
        "PIP-136's conflict rule (origin timestamps from the local clock); not reported upstream",
        "every cluster ends with the write made last, the clusters' clocks 30 s apart",
        "the cluster ahead ignores the later writes (older stamps) and keeps its own; the writer keeps its last "
        "one: they diverge (the reference synchronizer's hybrid clock converges on the last write)",
    ),
    Finding(
        "pip188-unprepared-subscription",
        "PIP-188 redirects a consumer to green without its subscription (it starts at latest)",
        (f"{_MIGRATION}::migration-unprepared-subscription",),
        ("no_loss",),
        "PIP-188 (subscriptions are created on green only by the operator or clusterMigrationAutoResourceCreation)",
        "every message acknowledged to producers is received",
        "what producers wrote to green before the consumer arrived is never received",
    ),
    Finding(
        "pip188-client-stall-backlog",
        "the Python client is not redirected in time after TopicMigratedException while the replication backlog "
        "drains: it stops reconnecting, or backs off past the redirect",
        (f"{_MIGRATION}::migration-waits-for-replication",),
        ("producers_redirected",),
        "apache/pulsar#19605 (the backlog gate); the client's stall and backoff are not reported upstream",
        "producers are redirected to green once blue's backlog has drained",
        "the client stops reconnecting (producers and consumers stay disconnected, pending sends never time out), "
        "or retries with exponential backoff that blue's redirect does not reset: green is reached late or never",
    ),
    Finding(
        "pip188-client-stall-restart",
        "after blue restarts mid-migration, clients are refused with TopicMigratedException and never reconnect",
        (f"{_MIGRATION}::migration-blue-restarted",),
        ("producers_redirected",),
        "apache/pulsar#21368 (topics of a migrated namespace are not loaded again)",
        "producers reach green after blue's restart",
        "no send is acknowledged by green",
    ),
    Finding(
        "pip188-topic-migrated-deadlock",
        "PIP-188 migration deadlocks a broker: Consumer.topicMigrated twice at once on one single-active subscription",
        (f"{_MIGRATION}::blue-green-migration",),
        ("deadlock:topic-migrated-single-active-consumer",),
        "lead: apache/pulsar#26111 (open); not reported upstream as a deadlock yet",
        "the migration completes",
        "blue's health check answers 'Deadlocked threads detected'",
    ),
    Finding(
        "java-client-25291",
        "Java's consumer keeps the old cluster's message ids after a failover and drops a new message",
        ("scenarios/primary-outage.pulsar-ha.yaml::primary-outage[java]",),
        ("ordering",),
        "apache/pulsar#25291",
        "no reorder after a failover and a switch back",
        "a message acknowledged by the new cluster is dropped as a duplicate, then received late (a reorder)",
    ),
    Finding(
        "replicated-dedup-reload-25861",
        "with deduplication on, a replicated message is stored twice when the target topic reloads",
        ("scenarios/hunt/replicated-dedup-target-reload.pulsar-ha.yaml::hunt-replicated-dedup-target-reload",),
        ("max_duplicates",),
        "lead: apache/pulsar#25861 (open; fix apache/pulsar#25860, an open PR)",
        "the target stores each replicated message once, however often its topic reloads",
        "the target's deduplication watermark for the replicator is lost with the reload and the replayed entries "
        "are stored again (a reader of the target reads them twice)",
    ),
    Finding(
        "dedup-failover-resend",
        "a named producer with deduplication re-sends to cluster-b after a failover: stored twice there",
        ("scenarios/hunt/dedup-failover-resend.pulsar-ha.yaml::hunt-dedup-failover-resend",),
        ("max_duplicates",),
        "lead: no upstream thread found (deduplication is per cluster; replicated entries are deduplicated by "
        "source position since apache/pulsar#23697)",
        "cluster-b stores each message once: the producer's re-send or cluster-a's replicated copy, not both",
        "cluster-b stores the producer's re-send and cluster-a's replicated copy of the same message",
    ),
    Finding(
        "cpp-client-pip121-cumulative-ids",
        "the C++/Python consumer keeps cluster-a's cumulative-ack position after a PIP-121 failover and drops "
        "cluster-b's messages",
        ("scenarios/hunt/pip121-cumulative-ack-ids.pulsar-ha.yaml::hunt-pip121-cumulative-ack-ids",),
        ("no_loss",),
        "lead: the Java sibling is apache/pulsar#25291 (open); none found for the C++ or Python client",
        "every message cluster-b acknowledged after the failover is delivered",
        "messages whose ids compare below cluster-a's last cumulative ack are dropped as duplicates",
    ),
    Finding(
        "cpp-client-pip188-cumulative-ids",
        "the C++/Python consumer keeps blue's cumulative-ack position after a PIP-188 redirect and drops green's "
        "messages",
        ("scenarios/hunt/pip188-cumulative-ack.pulsar-ha.yaml::hunt-pip188-cumulative-ack",),
        ("no_loss",),
        "lead: for Java, apache/pulsar#23693 (merged, Java client 3.3.4) fixed the reader's filtering at a "
        "blue-green switch; none found for the C++ or Python client",
        "every message green acknowledged after the redirect is delivered",
        "messages whose ids compare at or below blue's last cumulative ack are dropped as duplicates",
    ),
    Finding(
        "pip136-tie-order",
        "PIP-136 breaks an origin-time tie in favour of the larger cluster name (the PIP says the smaller)",
        (),
        (),
        "not reported upstream yet (AbstractMetadataStore.shouldIgnoreEvent)",
        "a tie goes to the lexicographically smaller cluster name",
        "an event from a smaller name is ignored, so the larger name wins",
        elsewhere="read in 4.0.8's source; the reference synchronizer's oracle computes both rules "
        "(pips/metadata_sync/oracle.py) and the last_writer_wins check names the one a run matched",
    ),
    Finding(
        "lookup-coalescing-26244",
        "lookups of one bundle in flight are coalesced whatever their listener",
        (),
        (),
        "apache/pulsar#26244, fixed by #26245 in 4.0.13 / 4.2.4",
        "a lookup answers the address of the listener it asked for",
        "a client's lookup answered the replication proxy's address of another listener",
        elsewhere="seen once in a CI rehearsal (docs/development.md, run #5); no scenario makes two such lookups "
        "overlap",
    ),
    Finding(
        "pip188-url-validation-26473",
        "PIP-188 accepts a migration target without a broker URL",
        (),
        (),
        "apache/pulsar#26473, fixed in 4.0.14 / 4.2.5",
        "the admin call refuses a ClusterUrl without brokerServiceUrl",
        "4.0.8 stores it; clients are then redirected nowhere",
        elsewhere="the migration preflight refuses it before the switch (tests/pips/migration/"
        "test_preflight_real.py, target-url-unusable)",
    ),
    Finding(
        "new-topic-waits-for-remotes",
        "Pulsar 4.2 cannot load a new topic of a replicated namespace while a remote cluster is unreachable",
        (),
        (),
        "not reported upstream yet (likely GeoPersistentReplicator.prepareCreateProducer, which checks the remote "
        "topic in 4.2; 4.0.8 skips that check by default)",
        "a surviving cluster serves new topics during another cluster's outage, as 4.0.8 does",
        "creating a producer on a new topic times out until every remote cluster answers; the broker retries "
        "getPartitionedTopicMetadata against the unreachable one",
        elsewhere="tests/nemesis/test_faults.py::test_a_new_topic_during_a_remote_outage_as_each_version_does "
        "(4.0.8: loads at once; 4.2.4: times out; 2026-11-28); topics that existed before the outage keep working",
    ),
    Finding(
        "reloaded-topic-waits-for-remotes",
        "Pulsar 4.2 cannot load an existing topic of a replicated namespace again (an unload) while a remote "
        "cluster is unreachable",
        ("scenarios/hunt/reload-during-remote-outage.pulsar-ha.yaml::hunt-reload-during-remote-outage",),
        ("availability",),
        "lead, extends new-topic-waits-for-remotes: PIP-433 (apache/pulsar#24652, merged) checks the remote topic "
        "before a replicator starts; no upstream thread found about a reload during a remote's outage",
        "the surviving cluster serves an existing topic it reloads during another cluster's outage, as 4.0.8 does",
        "sends to the reloaded topic are not acknowledged within 5 s until every remote cluster answers",
    ),
    Finding(
        "replicated-size-refusal-26113",
        "geo-replication loses a message when the target refuses one replicated entry (above the topic's maximum "
        "message size) while later ones are stored, deduplication on",
        ("scenarios/hunt/replicated-size-refusal.pulsar-ha.yaml::hunt-replicated-size-refusal",),
        ("no_loss",),
        "lead: apache/pulsar#26113 (open)",
        "every message cluster-a acknowledged reaches cluster-b once the size limit is lifted",
        "a refused entry, re-sent after later entries were stored, is taken for a duplicate by cluster-b (its "
        "source position is below the replicator's watermark) and never stored there",
    ),
    Finding(
        "pip7-forgotten-placement",
        "PIP-7: the load manager's leader forgets a namespace it placed on another broker until that broker reports "
        "it, and puts the next namespace of the anti-affinity group in the same failure domain",
        ("scenarios/multi-broker/failure-domains.pulsar-ha.yaml::anti-affinity-spread[domain-outage]",),
        ("placement",),
        "not reported upstream yet (ModularLoadManagerImpl.updateBundleData)",
        "each namespace of an anti-affinity group goes to the failure domain, then the broker, that holds the fewest "
        "of the group, also when two of them are placed one shortly after the other",
        "a load report between two placements makes the leader rebuild its count of the group without the first "
        "namespace (placed on another broker, not yet reported by it): the second is placed among all brokers as "
        "if the first did not exist, in the first's domain or on its broker",
    ),
    Finding(
        "standalone-restart-loop",
        "a standalone killed with SIGKILL restarts into a loop on its bookie's registration lock",
        (),
        (),
        "the pattern of apache/pulsar#17759",
        "the restarted standalone serves its topics",
        "ledger creations fail ('Not enough bookies') while the lock is invalidated hundreds of times a second",
        elsewhere="benchmarks/restart_after_kill.py (stored output docs/results/data/restart_after_kill.txt); the "
        "embedded backend restarts such a standalone once more",
    ),
)


@dataclass(frozen=True)
class Observation:
    finding: str
    version: str
    case: str
    shown: bool
    figures: str
    seed: int
    recorded: str
    """the day the run was recorded (YYYY-MM-DD)"""
    run: str = ""
    """which run: a digest of its verdict.json (a scenario's seed is the same in every run of it)"""


@dataclass(frozen=True)
class CaseRun:
    """One recorded run of a scenario case: its verdict's outcome (``passed``, ``failed``, ``xfailed``, ...) on a
    version."""

    case: str
    version: str
    outcome: str
    seed: int
    recorded: str
    run: str = ""
    """which run: a digest of its verdict.json (a scenario's seed is the same in every run of it)"""
    client: str = ""
    """the client's version as the run stated it (the verdict's ``client version`` fact, else its ``client`` kind);
    '' when the verdict has neither"""


def case_run(verdict: Mapping[str, Any], recorded: str, version: str | None = None, run: str = "") -> CaseRun:
    case = str(verdict.get("id", ""))
    version = version or answered_version(verdict)
    if version is None:
        raise ValueError(f"{case}: the verdict names no Pulsar version (no single answered version); give it")
    facts = verdict.get("facts", {})
    client = str(facts.get("client version") or facts.get("client", ""))
    outcome = str(verdict.get("outcome", ""))
    return CaseRun(case, version, outcome, int(verdict.get("seed", 0)), recorded, run, client)


def answered_version(verdict: Mapping[str, Any]) -> str | None:
    """The version the run's brokers answered (the verdict's ``versions``; one, or the run observed no single
    version), or None when it has none."""
    versions = verdict.get("versions") or []
    return str(versions[0]) if isinstance(versions, list) and len(versions) == 1 else None


def observe(verdict: Mapping[str, Any], recorded: str, version: str | None = None, run: str = "") -> list[Observation]:
    """An observation per finding the verdict's case shows (or fails to show). A run that never got to its
    verdicts (no checks, no deadlock) observes nothing: it is no evidence either way."""
    case = str(verdict.get("id", ""))
    version = version or answered_version(verdict)
    if version is None:
        raise ValueError(f"{case}: the verdict names no Pulsar version (no single answered version); give it")
    checks = {c["name"]: c for c in verdict.get("checks", [])}
    deadlocks = {d.get("known") for d in verdict.get("deadlocks", [])}
    out = []
    for finding in FINDINGS:
        if not finding.shows(case):
            continue
        shown, figures = _shown(finding, checks, deadlocks)
        if shown is None:
            continue
        seed = int(verdict.get("seed", 0))
        out.append(Observation(finding.key, version, case, shown, figures, seed, recorded, run))
    return out


def _shown(finding: Finding, checks: Mapping[str, Mapping[str, Any]], deadlocks: set[Any]) -> tuple[bool | None, str]:
    wanted = [name.removeprefix("deadlock:") for name in finding.shown_by if name.startswith("deadlock:")]
    if wanted:
        if not checks and not deadlocks:
            return None, ""
        hit = [name for name in wanted if name in deadlocks]
        return bool(hit), ("deadlocked: " + ", ".join(hit)) if hit else "no deadlock"
    if not all(name in checks for name in finding.shown_by):
        return None, ""
    if any(checks[name].get("evidence") is False for name in finding.shown_by):
        return None, ""  # a verdict that is a lack of evidence shows nothing either way
    figures = "; ".join(f"{name} {checks[name].get('measured', '')}" for name in finding.shown_by)
    return all(not checks[name].get("ok", True) for name in finding.shown_by), figures


def dump(records: Iterable[Observation | CaseRun]) -> str:
    return "".join(json.dumps(asdict(o), sort_keys=True) + "\n" for o in records)


def load(text: str) -> list[Observation]:
    return [Observation(**json.loads(line)) for line in text.splitlines() if line.strip()]


def load_runs(text: str) -> list[CaseRun]:
    return [CaseRun(**json.loads(line)) for line in text.splitlines() if line.strip()]


def runs_table(runs: Sequence[CaseRun], versions: Sequence[str] = VERSIONS) -> list[str]:
    """Every recorded case x version: how its runs ended (``3 passed``, ``1 passed, 2 failed``)."""
    lines = ["| case | " + " | ".join(versions) + " |", "| --- | " + " | ".join("---" for _ in versions) + " |"]
    for case in sorted({r.case for r in runs}):
        cells = []
        for version in versions:
            outcomes = [r.outcome for r in runs if r.case == case and r.version == version]
            counts = {o: outcomes.count(o) for o in sorted(set(outcomes))}
            cells.append(", ".join(f"{n} {o}" for o, n in counts.items()) or "no run stored")
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return lines


def hunt_result(observations: Sequence[Observation], finding: Finding, version: str) -> str:
    """A hunt lead on one version: ``shown in k of n runs``, ``not shown in n runs`` or ``no run stored``."""
    runs = [o for o in observations if o.finding == finding.key and o.version == version]
    if not runs:
        return "no run stored"
    count = f"{len(runs)} run" + ("s" if len(runs) != 1 else "")
    shown = sum(o.shown for o in runs)
    return f"shown in {shown} of {count}" if shown else f"not shown in {count}"


def tally(observations: Sequence[Observation], finding: Finding, version: str) -> str:
    """``reproduces (n of m runs)``, ``not seen in m runs``, ``no run stored``, or ``not applicable`` for a
    finding no scenario shows."""
    if not finding.cases:
        return "not applicable (no scenario)"
    runs = [o for o in observations if o.finding == finding.key and o.version == version]
    if not runs:
        return "no run stored"
    shown = sum(o.shown for o in runs)
    count = f"{len(runs)} run" + ("s" if len(runs) != 1 else "")
    return f"reproduces ({shown} of {count})" if shown else f"not seen in {count}"
