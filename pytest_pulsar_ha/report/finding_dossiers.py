"""What a finding's upstream report needs beyond its runs: its class, where it belongs upstream, the counter-check
that must hold beside it, the code that does it at the release's tag, the upstream threads searched for, and the
log lines that show the mechanism.

These are facts read by hand once and kept here, each with where it was read: the code pointers from the release's
source (the stored apache/pulsar sources, their line numbers checked against the line tables of the release's jars
with ``javap -l``), the upstream threads from the search tool's GitHub issue corpus on the day in ``searched``. The
figures of a report never come from here: :mod:`pytest_pulsar_ha.report.finding_reports` reads them from the stored
runs.
"""

from __future__ import annotations

from pytest_pulsar_ha.report.dossier_model import (
    CPP,
    PULSAR,
    CodePointer,
    Dossier,
    Thread,
)

__all__ = ["DOSSIERS", "dossier"]


_AMS = "pulsar-metadata/src/main/java/org/apache/pulsar/metadata/impl/AbstractMetadataStore.java"
_ROCKS = "pulsar-metadata/src/main/java/org/apache/pulsar/metadata/impl/RocksdbMetadataStore.java"
_SYNC = "pulsar-broker/src/main/java/org/apache/pulsar/broker/service/PulsarMetadataEventSynchronizer.java"
_TAG = "v4.2.4"

_SHOULD_IGNORE = CodePointer(
    _TAG,
    _AMS,
    "AbstractMetadataStore.shouldIgnoreEvent",
    (267, 305),
    "ignores a remote event when `event.getLastUpdatedTimestamp()` (its origin time, the writer's clock) is below "
    "`existingValue.getStat().getModificationTimestamp()` (when the local store last wrote the path, the local clock)",
)
_HANDLE = CodePointer(
    _TAG,
    _AMS,
    "AbstractMetadataStore.handleMetadataEvent",
    (214, 250),
    "applies a remote event with `putInternal(path, value, Optional.ofNullable(event.getExpectedVersion()), "
    "options)`: the stored value gets a new local modification time, not the event's origin time",
)
_STORE_PUT = CodePointer(
    _TAG,
    _ROCKS,
    "RocksdbMetadataStore.storePut",
    (518, 583),
    "stamps `modifiedTimestamp` with `System.currentTimeMillis()` when the put is applied (lines 540 and 557); "
    "ZooKeeper's mtime is likewise the apply time",
)
_SILENT = CodePointer(
    _TAG,
    _AMS,
    "AbstractMetadataStore.handleMetadataEvent",
    (214, 250),
    "passes the remote event's expected version to `putInternal` (line 229); when the put fails with "
    "`BadVersionException` it logs WARN `Failed to update metadata {path}` and completes the event normally "
    "(lines 236-238): no retry, no re-read, no conflict rule",
)
_ACK = CodePointer(
    _TAG,
    _SYNC,
    "PulsarMetadataEventSynchronizer.acknowledgeAfter",
    (247, 250),
    "acknowledges the event once the handler's future completes, so the dropped event is never redelivered",
)
_SEARCHED = "2026-11-29"
_PIP136_SCRIPT = (
    "starts two Pulsar standalones from a Pulsar home (its argument, or `PULSAR_HOME`), turns on PIP-136's "
    "configuration synchronizer between them, drives the writes through the admin REST API, prints what each "
    "cluster holds, and stops everything it started. It needs Python 3.8+ and Java 17+, nothing else:"
)
_PIP136_QUERIES = (
    "PIP-136 metadata sync shouldIgnoreEvent timestamp BadVersionException event ignored",
    "metadata event ignored lastUpdatedTimestamp modification timestamp replication delay last writer wins",
    "configurationMetadataSyncEventTopic metadata sync policies diverge between clusters",
    "pulsar-client-cpp pulsar-client-python namespace policy metadata sync divergence two clusters",
)

_GEO_PRODUCER = "pulsar-client/src/main/java/org/apache/pulsar/client/impl/GeoReplicationProducerImpl.java"
_REPL_RECEIPT = CodePointer(
    _TAG,
    _GEO_PRODUCER,
    "GeoReplicationProducerImpl.ackReceivedReplicatedMsg",
    (87, 190),
    "the replicator's producer matches a receipt's source position against its pending sends; a receipt for a later "
    "source entry than the pending one is logged as `Received an msg send receipt[error]` (line 185)",
)
_REPL_DROP = CodePointer(
    _TAG,
    _GEO_PRODUCER,
    "GeoReplicationProducerImpl.printWarnLogWhenCanNotDetermineDeduplication",
    (269, 272),
    "logs a source entry `dropped because Broker can not determine whether is duplicate or not`",
)


_MLM = "pulsar-broker/src/main/java/org/apache/pulsar/broker/loadbalance/impl/ModularLoadManagerImpl.java"
_LMS = "pulsar-broker/src/main/java/org/apache/pulsar/broker/loadbalance/impl/LoadManagerShared.java"
_UPDATE_BUNDLE_DATA = CodePointer(
    _TAG,
    _MLM,
    "ModularLoadManagerImpl.updateBundleData",
    (553, 614),
    "on every load report (`handleDataNotification` -> `updateAll`, lines 288-300 and 492-500) rebuilds "
    "`brokerToNamespaceToBundleRange` per broker from the bundles the broker reported (`getLastStats()`) and its "
    "preallocated bundles (lines 600-601); a preallocated bundle is removed when `getOwnedServiceUnits()` (the "
    "leader's own ownership, line 580) does not hold it (lines 588-591), so a bundle placed on another broker and "
    "not yet in that broker's report drops out of the count",
)
_PREALLOCATE = CodePointer(
    _TAG,
    _MLM,
    "ModularLoadManagerImpl.preallocateBundle",
    (890, 898),
    "a placement (`selectBrokerForAssignment`, lines 865-886) adds the bundle to the chosen broker's preallocated "
    "bundles and to `brokerToNamespaceToBundleRange`: counted until the next rebuild",
)
_SELECT_BROKER = CodePointer(
    _TAG,
    _MLM,
    "ModularLoadManagerImpl.selectBroker",
    (902, 994),
    "filters the candidates by the group's count (`LoadManagerShared.filterAntiAffinityGroupOwnedBrokers`, line "
    "916) and logs `{} brokers being considered for assignment of {}` (line 933): 2 (the other domain's) when the "
    "group's first namespace is counted, 4 when it was forgotten",
)
_ANTI_AFFINITY_FILTER = CodePointer(
    _TAG,
    _LMS,
    "LoadManagerShared.filterAntiAffinityGroupOwnedBrokers",
    (418, 457),
    "keeps the brokers of the domains, then the brokers, holding the fewest namespaces of the group, as counted in "
    "the map it is given: with the first namespace forgotten every broker holds none",
)
_PIP7_QUERIES = (
    "anti-affinity namespace placed on same broker failure domain",
    "brokerToNamespaceToBundleRange preallocated bundle updateBundleData anti-affinity",
    "ModularLoadManagerImpl preallocated bundle forgotten load report anti-affinity concurrent assignment same domain",
)


DOSSIERS: dict[str, Dossier] = {
    "pip136-apply-time-lww": Dossier(
        "broker defect",
        PULSAR,
        counter_check="metadata-sync-replication-cut[reference]",
        code=(_SHOULD_IGNORE, _HANDLE, _STORE_PUT),
        threads=(
            Thread(f"{PULSAR}#16424", "issue", "open", "PIP-136 itself: the conflict rule compares origin times"),
            Thread(f"{PULSAR}#16425", "pull request", "merged", "PIP-136's implementation (shouldIgnoreEvent)"),
        ),
        searched=_SEARCHED,
        queries=_PIP136_QUERIES,
        log_note="none: `shouldIgnoreEvent` returns without logging, so the ignored events leave no line in the "
        "broker's log; the divergence shows only in the admin API's answers (and in the synchronizer's "
        "subscription, which acknowledged every event)",
        script="reproduce.py",
        script_about=_PIP136_SCRIPT,
    ),
    "pip136-silent-no-op": Dossier(
        "broker defect",
        PULSAR,
        counter_check="metadata-sync-concurrent[reference]",
        code=(_SILENT, _ACK, _SHOULD_IGNORE),
        threads=(
            Thread(
                f"{PULSAR}#24080",
                "pull request",
                "merged",
                "not a report of this drop: the PR that met the same `BadVersionException` on remote events "
                "(released in 3.0.11 / 3.3.6); on 4.2.4 the remote event's version is still checked and a "
                "mismatch is acknowledged without being applied",
            ),
            Thread(f"{PULSAR}#16425", "pull request", "merged", "PIP-136's implementation"),
        ),
        searched=_SEARCHED,
        queries=_PIP136_QUERIES,
        log_pattern=r"Failed to update metadata /admin/policies/",
        log_note="each broker's log (logger `org.apache.pulsar.metadata.impl.AbstractMetadataStore`, WARN): one "
        "line per dropped remote event, with the `BadVersionException` as its cause; nothing else marks the drop. "
        "The plain script counts an attempt only when the clusters diverge *and* a broker logged that line: in its "
        "stored runs (`runs/`), 4 of 9 attempts on 4.2.4 and 2 of 6 on 4.0.8 diverged without it (another path: "
        "two writes stamped close together, which the origin-time rule decides), and an attempt whose drop was "
        "logged could still end with both clusters agreeing",
        script="reproduce.py",
        script_about=_PIP136_SCRIPT,
    ),
    "pip136-clock-skew": Dossier(
        "limit of the design",
        PULSAR,
        counter_check="metadata-sync-clock-ahead[reference]",
        code=(_SHOULD_IGNORE,),
        searched=_SEARCHED,
        queries=_PIP136_QUERIES,
        log_note="none: an ignored event is not logged",
    ),
    "pip188-unprepared-subscription": Dossier("intended behaviour", PULSAR),
    "pip188-client-stall-backlog": Dossier(
        "client defect", CPP, client="Python client (pulsar-client, the C++ client inside)"
    ),
    "pip188-client-stall-restart": Dossier("broker defect", PULSAR),
    "pip188-topic-migrated-deadlock": Dossier("broker defect", PULSAR),
    "java-client-25291": Dossier(
        "client defect", PULSAR, client="Java client (pulsar-client-original)", counter_check="primary-outage"
    ),
    "replicated-dedup-reload-25861": Dossier(
        "broker defect",
        PULSAR,
        counter_check="hunt-replicated-dedup-target-reload[no-reload]",
        threads=(
            Thread(f"{PULSAR}#25861", "issue", "open", "the report: the V2 watermark is not recovered on reload"),
            Thread(f"{PULSAR}#25860", "pull request", "open", "its fix"),
        ),
        searched=_SEARCHED,
        queries=("replicated messages duplicated deduplication enabled topic unload geo-replication",),
    ),
    "dedup-failover-resend": Dossier(
        "limit of the design",
        PULSAR,
        threads=(
            Thread(
                f"{PULSAR}#23697",
                "pull request",
                "merged",
                "replicated entries deduplicated by source position (V2), not by the original producer's sequence id",
            ),
        ),
        searched=_SEARCHED,
        queries=("replicated messages duplicated deduplication enabled topic unload geo-replication",),
    ),
    "cpp-client-pip121-cumulative-ids": Dossier(
        "client defect",
        CPP,
        client="Python client (pulsar-client, the C++ client inside)",
        counter_check="hunt-pip121-cumulative-ack-ids[b-ids-higher]",
        threads=(Thread(f"{PULSAR}#25291", "issue", "open", "the Java client's sibling"),),
        searched=_SEARCHED,
        queries=(
            "Java consumer keeps old cluster message ids after failover AutoClusterFailover drops message as duplicate",
            "pulsar-client-cpp consumer topic migrated clear ack grouping tracker last message id redirect cluster",
        ),
    ),
    "cpp-client-pip188-cumulative-ids": Dossier(
        "client defect",
        CPP,
        client="Python client (pulsar-client, the C++ client inside)",
        counter_check="hunt-pip188-cumulative-ack[individual-acks]",
        threads=(
            Thread(
                f"{PULSAR}#23693",
                "pull request",
                "merged",
                "the Java client's reader filtering at a blue-green switch (listed in Client Java 3.3.4's notes)",
            ),
        ),
        searched=_SEARCHED,
        queries=(
            "blue-green migration cumulative ack consumer drops messages green cluster redirect",
            "pulsar-client-cpp consumer topic migrated clear ack grouping tracker last message id redirect cluster",
        ),
    ),
    "pip136-tie-order": Dossier("broker defect", PULSAR, code=(_SHOULD_IGNORE,)),
    "lookup-coalescing-26244": Dossier("broker defect", PULSAR),
    "pip188-url-validation-26473": Dossier("broker defect", PULSAR),
    "new-topic-waits-for-remotes": Dossier("broker defect", PULSAR),
    "reloaded-topic-waits-for-remotes": Dossier(
        "broker defect",
        PULSAR,
        threads=(
            Thread(
                f"{PULSAR}#24652",
                "pull request",
                "merged",
                "PIP-433: the remote topic is checked (and created) "
                "before a replicator starts, the path a reload takes",
            ),
            Thread(
                f"{PULSAR}#26681",
                "pull request",
                "open",
                "bounds a retry loop in the same replicator start "
                "(GeoPersistentReplicator.getLocalPartitionMetadata), for a deleted local topic",
            ),
        ),
        searched="2026-11-29",
        queries=(
            "PIP-433 replicator remote topic existence check geo-replication topic creation 24652",
            "topic cannot be loaded when remote cluster is down geo-replication 4.1 getPartitionedTopicMetadata "
            "replicator timeout producer creation",
        ),
    ),
    "replicated-size-refusal-26113": Dossier(
        "broker defect",
        PULSAR,
        threads=(
            Thread(
                f"{PULSAR}#26113",
                "issue",
                "open",
                "reports it: a head-of-queue send failure that does not close the connection rewinds the replicator "
                "after later entries were stored (V2 deduplication); the trigger here: a lowered maximum message size",
            ),
            Thread(
                f"{PULSAR}#26002",
                "pull request",
                "merged",
                "a replicator stuck after a failed remote publish (its read permit not returned)",
            ),
        ),
        searched="2026-11-29",
        queries=(
            "geo-replication drops message when replicated send fails without closing connection",
            "26113 head-of-queue send failure rewinds cursor dedup high-watermark recoverNotAllowedError",
        ),
        code=(_REPL_RECEIPT, _REPL_DROP),
        log_pattern=r"send receipt\[error\]|has been dropped because",
        log_note="cluster-a's broker log, the replicator's producer (GeoReplicationProducerImpl) while cluster-b "
        "refuses entries for their size ('NotAllowedError : Exceed maximum message size', left out here): a receipt "
        "for a later source entry while a refused one is still pending ('Received an msg send receipt[error]'), then "
        "source entries 'dropped because Broker can not determine whether is duplicate or not'; stored from the first "
        "run on each version",
    ),
    "pip7-forgotten-placement": Dossier(
        "broker defect",
        PULSAR,
        counter_check="anti-affinity-spread",
        code=(_UPDATE_BUNDLE_DATA, _PREALLOCATE, _SELECT_BROKER, _ANTI_AFFINITY_FILTER),
        threads=(
            Thread(
                f"{PULSAR}#16563",
                "pull request",
                "open",
                "another flaw of the group's count (`getAntiAffinityNamespaceOwnedBrokers` counts the namespace being "
                "placed); not the forgotten preallocation",
            ),
            Thread(
                f"{PULSAR}#19260",
                "pull request",
                "closed",
                "concurrent lookups of one bundle with a bundle affinity broker, answered through "
                "`preallocatedBundleToBroker`; not the anti-affinity count",
            ),
            Thread(
                f"{PULSAR}#478",
                "issue",
                "closed",
                "preallocated bundles never cleared from the leader's map (fixed by #481, 2017); the clearing this "
                "finding meets is the rule that fix led to",
            ),
        ),
        searched="2026-11-30",
        queries=_PIP7_QUERIES,
        log_pattern=r"brokers being considered for assignment of pip7/trial-",
        log_note="the load manager's leader (broker 0 in every stored run; logger "
        "`org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl`, INFO): one line per placement of a "
        "trial's namespace (`trial-N-a`, `trial-N-b`) with the number of candidates left after the anti-affinity "
        "filter, 2 (the other domain's) when the group's first namespace is counted and 4 when it was forgotten; "
        "kept from each stored run of the plain script (`run-N-broker-0.log`), the first lines of each",
        script="reproduce.py",
        script_about="starts one Pulsar cluster from a Pulsar home (its argument, or `PULSAR_HOME`): one "
        "ZooKeeper, one bookie and 4 brokers in 2 failure domains. Each trial places a fresh anti-affinity group of "
        "two namespaces through the leader, in turn: `report` (a load report provoked between the two placements), "
        "`concurrent` (both looked up at the same instant) and `reported` (the first namespace's owner reports it "
        "before the second lookup, as the plugin's own placement does: the counter-check, which the scenario "
        "case `anti-affinity-spread` stands for on the page). It prints where each namespace landed and how many "
        "brokers the leader considered for the second, and stops everything it started. It needs Python 3.8+ and "
        "Java 17+, nothing else:",
    ),
    "standalone-restart-loop": Dossier("broker defect", PULSAR),
}


def dossier(key: str) -> Dossier:
    try:
        return DOSSIERS[key]
    except KeyError:
        raise KeyError(f"no dossier for finding {key!r}: add one to report/finding_dossiers.py") from None
