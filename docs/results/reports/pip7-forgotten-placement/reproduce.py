#!/usr/bin/env python3
"""PIP-7: the load manager's leader forgets a namespace it placed on another broker before that broker reports it.

One Pulsar cluster of 4 brokers (one ZooKeeper, one bookie) in 2 failure domains, ``rack-1`` (brokers 0, 1) and
``rack-2`` (brokers 2, 3), with ``failureDomainsEnabled=true`` and ``ModularLoadManagerImpl``. Each trial makes a
fresh anti-affinity group of two fresh namespaces, A and B, and looks one topic of each up through the leader:
A first, B second. PIP-7's rule puts B in the domain that holds fewer namespaces of the group: the other domain
than A's.

Suspected mechanism (a source reading of 4.2.4): the leader counts a group's namespaces per broker in
``brokerToNamespaceToBundleRange``. A placement adds the bundle there as preallocated to its broker
(``ModularLoadManagerImpl.preallocateBundle``). Any broker's load report written to the metadata store makes the
leader rebuild that count (``handleDataNotification`` -> ``updateAll`` -> ``updateBundleData``), from each
broker's reported bundles (``lastStats``) plus the preallocations that survive; a preallocation survives only
where the leader itself owns the bundle (``pulsar.getNamespaceService().getOwnedServiceUnits()`` is the
leader's own ownership). So a bundle placed on another broker, not yet in that broker's report, is forgotten at
the next rebuild, and B is placed as if A did not exist: in A's domain about half of the time.

What happens between the two look-ups is the trial's kind (``--kinds``, each run in turn, ``--trials`` of each):

* ``report``: after A's look-up, a topic of a filler namespace (in no group) is created on its owner, which
  makes that broker write a load report (its bundle count changed); once some broker's report is later than A's
  placement, B is looked up. Only A's look-up is made (no topic of A loaded), so A's owner has not reported A.
  Predicted: when A's owner is not the leader, B lands in A's domain about half of the time; when it is the
  leader, never.
* ``concurrent``: A and B looked up at the same instant from two threads, as clients reconnecting after an
  outage do (the leader places them one after the other; a report between the two is a narrow race).
* ``reported`` (the counter-check, as the plugin's own placement does it): a topic of A is created on its owner
  and B is looked up only once A's owner has written a report that lists A's bundle (``lastBundleGains`` no
  longer holds it). Predicted: B always in the other domain.

Per trial it prints the leader, where A and B landed, and how many brokers the leader considered for the second
of the two placements (its INFO line ``N brokers being considered for assignment of ...``: 2, the other
domain's, when the first was counted; 4 when it was forgotten). Then it unloads the trial's namespaces and
waits until no broker reports them, so that every trial starts from the same load (the placement among equal
candidates goes to the least long-term message rate, ties at random, and bundles left behind would skew it).

Reports: a broker checks every ``loadBalancerReportUpdateMinIntervalMillis`` (set to 1000 here, default 5000)
whether its load changed by more than ``loadBalancerReportUpdateThresholdPercentage`` (set to 0, default 10) and
writes its report then; its bundles and message rates are refreshed every ``statsUpdateFrequencyInSecs`` (set to
1, default 60), its host usage once a minute. So a broker whose bundles change reports within about 2 s (and
idle brokers rarely: ``concurrent`` races only those reports). A broker reports a bundle only once a topic of it
is loaded (``PulsarStats.updateStats``). By default an owned bundle loads its system topic
(``__change_events``, topic policies) soon after a look-up, and its owner then reports it: the window between a
placement and its report is that load plus up to one stats interval plus one report interval. Here
``topicLevelPoliciesEnabled`` and ``systemTopicEnabled`` are false, so a bundle that was only looked up is never
reported and the window stays open. (With both left on, the trial's clean-up did not end: the unloaded bundles
were reported again, presumably looked up again by their system topics' readers; not pursued.) Other settings as
the plugin's PIP-7 placement has them: one bundle per namespace, no load shedding, the overload threshold raised
(4 JVMs on one host report the same high CPU).

Usage: ``python3 reproduce.py [--trials N] [--kinds report,concurrent,reported] [PULSAR_HOME]``
(or ``PULSAR_HOME=... python3 reproduce.py``): a Pulsar binary distribution, or any folder whose ``bin/pulsar`` takes
``zookeeper``, ``initialize-cluster-metadata``, ``bookie`` and ``broker`` with ``$PULSAR_ZK_CONF``,
``$PULSAR_BOOKKEEPER_CONF`` and ``$PULSAR_BROKER_CONF``; ``--sequential`` runs the counter-check alone.
Needs Python 3.8+ and Java 17+ (``JAVA_HOME`` or ``java`` on the path); nothing else. It uses free ports on
127.0.0.1 and a temporary folder (printed; its logs are kept, its data removed), and stops every process it
started (each in a process group of its own). 6 JVMs: about 3 GiB of memory.

Exit status: 0 when the rule is broken in at least one trial (B in A's domain while the other domain holds no
namespace of the group), 1 when it is not, 2 on a set-up error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

CLUSTER = "cluster-a"
DOMAINS = {"rack-1": (0, 1), "rack-2": (2, 3)}
TENANT = "pip7"
TOPIC = "t"
FULL_BUNDLE = "0x00000000_0xffffffff"
KINDS = ("report", "concurrent", "reported")
GC = "-XX:+UseG1GC -XX:MaxGCPauseMillis=10"
BROKER_SETTINGS = {
    "loadManagerClassName": "org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl",
    "failureDomainsEnabled": "true",
    "defaultNumberOfNamespaceBundles": "1",
    "loadBalancerReportUpdateMinIntervalMillis": "1000",
    "loadBalancerReportUpdateThresholdPercentage": "0",
    "statsUpdateFrequencyInSecs": "1",
    "statsUpdateInitialDelayInSecs": "1",
    "loadBalancerBrokerOverloadedThresholdPercentage": "10000",
    "loadBalancerSheddingEnabled": "false",
    "loadBalancerOverrideBrokerNicSpeedGbps": "1",
    "brokerDeleteInactiveTopicsEnabled": "false",
    "functionsWorkerEnabled": "false",
    "topicLevelPoliciesEnabled": "false",
    "systemTopicEnabled": "false",
    "managedLedgerDefaultEnsembleSize": "1",
    "managedLedgerDefaultWriteQuorum": "1",
    "managedLedgerDefaultAckQuorum": "1",
    "managedLedgerCacheSizeMB": "32",
}


class SetupError(Exception):
    """Anything that keeps the reproduction from running (exit status 2)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def write_conf(template: Path | None, target: Path, settings: dict[str, str]) -> None:
    """The template with each key of ``settings`` replaced in place (appended when absent): a key given twice
    would be a list to the bookie's configuration reader."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = template.read_text().splitlines() if template is not None and template.is_file() else []
    left = dict(settings)
    out = []
    for line in lines:
        key = line.split("=", 1)[0].strip()
        if "=" in line and not line.lstrip().startswith("#") and key in left:
            out.append(f"{key}={left.pop(key)}")
        else:
            out.append(line)
    out += ["", "# reproduce.py"] + [f"{key}={value}" for key, value in left.items()]
    target.write_text("\n".join(out) + "\n")


def http(method: str, url: str, body: Any = None, raw: str | None = None, timeout: float = 30) -> tuple[int, str]:
    data = raw.encode() if raw is not None else None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as answer:
            return answer.status, answer.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")
    except OSError as exc:
        return 0, str(exc)


def call(method: str, url: str, body: Any = None, raw: str | None = None, ok: tuple[int, ...] = (200, 204)) -> Any:
    status, text = http(method, url, body, raw)
    if status not in ok:
        raise SetupError(f"{method} {url} answered {status}: {text[:300]}")
    return json.loads(text) if text.strip() else None


def wait_for(what: str, check: Any, timeout_s: float, step_s: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SetupError(f"{what}: not within {timeout_s:.0f}s")
        time.sleep(step_s)


class Process:
    """One ``bin/pulsar <command>`` in a session (process group) of its own, its output in ``logs/``."""

    def __init__(self, home: Path, name: str, work: Path) -> None:
        self.home, self.name, self.dir = home, name, work / name
        self.logs = self.dir / "logs"
        self.logs.mkdir(parents=True)
        self.process: subprocess.Popen[bytes] | None = None

    def env(self, extra: dict[str, str]) -> dict[str, str]:
        return dict(
            os.environ,
            PULSAR_LOG_DIR=str(self.logs),
            PULSAR_LOG_FILE=f"{self.name}.log",
            PULSAR_GC=GC,
            BOOKIE_GC=GC,
            **extra,
        )

    def start(self, command: list[str], extra: dict[str, str]) -> None:
        with (self.logs / "stdout.log").open("ab") as out:
            self.process = subprocess.Popen(
                [str(self.home / "bin" / "pulsar"), *command],
                cwd=self.dir,
                env=self.env(extra),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def check_alive(self) -> None:
        if self.process is None or self.process.poll() is not None:
            raise SetupError(f"{self.name} exited; see {self.logs}")

    def stop(self, grace_s: float = 20.0) -> None:
        """SIGTERM to the process group, SIGKILL after ``grace_s``."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            pass


class Broker(Process):
    def __init__(self, home: Path, index: int, work: Path) -> None:
        super().__init__(home, f"broker-{index}", work)
        self.index = index
        self.web_port, self.broker_port = free_port(), free_port()
        self.domain = next(d for d, members in DOMAINS.items() if index in members)

    @property
    def id(self) -> str:
        return f"127.0.0.1:{self.web_port}"

    @property
    def url(self) -> str:
        return f"http://{self.id}"

    def label(self) -> str:
        return f"broker {self.index} ({self.domain})"


class Cluster:
    """ZooKeeper, the cluster's metadata, one bookie, 4 brokers started one after the other."""

    def __init__(self, home: Path, work: Path, started: list[Process]) -> None:
        self.home, self.work, self.started = home, work, started
        self.zk_port, self.bookie_port, self.bookie_http = free_port(), free_port(), free_port()
        self.store = f"zk:127.0.0.1:{self.zk_port}/{CLUSTER}"
        self.brokers = [Broker(home, i, work) for i in range(4)]

    def start(self) -> None:
        zookeeper = Process(self.home, "zookeeper", self.work)
        conf = zookeeper.dir / "conf" / "zookeeper.conf"
        write_conf(
            None,
            conf,
            {
                "tickTime": "2000",
                "initLimit": "10",
                "syncLimit": "5",
                "dataDir": str(zookeeper.dir / "data"),
                "clientPort": str(self.zk_port),
                "clientPortAddress": "127.0.0.1",
                "admin.enableServer": "false",
                "forceSync": "no",
                "maxClientCnxns": "0",
            },
        )
        self.started.append(zookeeper)
        zookeeper.start(["zookeeper"], {"PULSAR_ZK_CONF": str(conf), "PULSAR_MEM": "-Xms32m -Xmx128m"})
        wait_for("ZooKeeper", lambda: self.zk_ok(zookeeper), 120)
        log(f"ZooKeeper on 127.0.0.1:{self.zk_port}")

        init = Process(self.home, "initialize", self.work)
        self.started.append(init)
        init.start(
            [
                "initialize-cluster-metadata",
                "--cluster",
                CLUSTER,
                "--metadata-store",
                self.store,
                "--configuration-metadata-store",
                self.store,
                "--web-service-url",
                "http://" + ",".join(b.id for b in self.brokers),
                "--broker-service-url",
                "pulsar://" + ",".join(f"127.0.0.1:{b.broker_port}" for b in self.brokers),
            ],
            {"PULSAR_MEM": "-Xms32m -Xmx256m"},
        )
        if init.process is None:
            raise SetupError("initialize-cluster-metadata did not start")
        try:
            if init.process.wait(240) != 0:
                raise SetupError(f"initialize-cluster-metadata failed; see {init.logs}")
        except subprocess.TimeoutExpired:
            raise SetupError(f"initialize-cluster-metadata still running after 240s; see {init.logs}") from None
        log(f"cluster metadata written ({self.store})")

        bookie = Process(self.home, "bookie", self.work)
        conf = bookie.dir / "conf" / "bookkeeper.conf"
        write_conf(
            self.home / "conf" / "bookkeeper.conf",
            conf,
            {
                "bookiePort": str(self.bookie_port),
                "advertisedAddress": "127.0.0.1",
                "allowLoopback": "true",
                "journalDirectory": str(bookie.dir / "data" / "journal"),
                "ledgerDirectories": str(bookie.dir / "data" / "ledgers"),
                "metadataServiceUri": f"metadata-store:{self.store}",
                "zkServers": f"127.0.0.1:{self.zk_port}",
                "httpServerEnabled": "true",
                "httpServerHost": "127.0.0.1",
                "httpServerPort": str(self.bookie_http),
                "prometheusStatsHttpAddress": "127.0.0.1",
                "prometheusStatsHttpPort": str(free_port()),
                "autoRecoveryDaemonEnabled": "false",
                "dbStorage_writeCacheMaxSizeMb": "32",
                "dbStorage_readAheadCacheMaxSizeMb": "32",
                "journalSyncData": "false",
                "diskUsageThreshold": "0.99",
                "diskUsageWarnThreshold": "0.98",
            },
        )
        self.started.append(bookie)
        mem = "-Xms64m -Xmx256m -XX:MaxDirectMemorySize=256m"
        bookie.start(["bookie"], {"PULSAR_BOOKKEEPER_CONF": str(conf), "BOOKIE_MEM": mem, "PULSAR_MEM": mem})

        def bookie_ready() -> bool:
            bookie.check_alive()
            return http("GET", f"http://127.0.0.1:{self.bookie_http}/api/v1/bookie/is_ready")[0] == 200

        wait_for("the bookie", bookie_ready, 180)
        log(f"bookie on 127.0.0.1:{self.bookie_port}")

        for broker in self.brokers:
            conf = broker.dir / "conf" / "broker.conf"
            settings = dict(
                BROKER_SETTINGS,
                clusterName=CLUSTER,
                metadataStoreUrl=self.store,
                configurationMetadataStoreUrl=self.store,
                bindAddress="127.0.0.1",
                advertisedAddress="127.0.0.1",
                brokerServicePort=str(broker.broker_port),
                webServicePort=str(broker.web_port),
            )
            write_conf(self.home / "conf" / "broker.conf", conf, settings)
            self.started.append(broker)
            mem = "-Xms128m -Xmx512m -XX:MaxDirectMemorySize=256m"
            broker.start(["broker"], {"PULSAR_BROKER_CONF": str(conf), "PULSAR_MEM": mem})

            def ready(broker: Broker = broker) -> bool:
                broker.check_alive()
                listed = http("GET", f"{broker.url}/admin/v2/brokers/{CLUSTER}")
                return http("GET", f"{broker.url}/admin/v2/brokers/health")[0] == 200 and broker.id in listed[1]

            wait_for(broker.name, ready, 300, 1)
            log(f"{broker.label()} ready: {broker.id}")

    def zk_ok(self, zookeeper: Process) -> bool:
        zookeeper.check_alive()
        try:
            with socket.create_connection(("127.0.0.1", self.zk_port), timeout=2):
                return True
        except OSError:
            return False

    def by_id(self, broker_id: str) -> Broker:
        return next(b for b in self.brokers if b.id == broker_id)

    def leader(self) -> Broker:
        answer = call("GET", f"{self.brokers[0].url}/admin/v2/brokers/leaderBroker")
        found = answer.get("brokerId") or urllib.parse.urlparse(answer.get("serviceUrl", "")).netloc
        return self.by_id(found)


# --- the trials ---------------------------------------------------------------------------------------------------


def lookup(via: Broker, namespace: str) -> str:
    """``GET /lookup/v2/topic/...`` through ``via`` (redirects followed): the owner's broker id."""
    answer = call("GET", f"{via.url}/lookup/v2/topic/persistent/{namespace}/{TOPIC}")
    return urllib.parse.urlparse(str(answer["httpUrl"])).netloc


def load_report(broker: Broker) -> dict[str, Any]:
    status, text = http("GET", f"{broker.url}/admin/v2/broker-stats/load-report")
    return json.loads(text) if status == 200 else {}


def reported(report: dict[str, Any], namespace: str) -> bool:
    """The report as last written lists the namespace's bundle (listed, and no longer an unwritten gain)."""
    bundle = f"{namespace}/{FULL_BUNDLE}"
    listed = bundle in set(report.get("bundles") or []) | set((report.get("lastStats") or {}).keys())
    return listed and bundle not in set(report.get("lastBundleGains") or [])


def prepare(cluster: Cluster, plan: list[tuple[int, str]]) -> None:
    """A tenant, then per trial two namespaces in a group of their own (set through the leader, so that its
    policy cache holds them), made before the first trial."""
    leader = cluster.leader()
    body = {"adminRoles": [], "allowedClusters": [CLUSTER]}
    call("PUT", f"{leader.url}/admin/v2/tenants/{TENANT}", body, ok=(200, 204, 409))
    for number, _kind in plan:
        call("PUT", f"{leader.url}/admin/v2/namespaces/{TENANT}/filler-{number}", {}, ok=(200, 204))
        for side in ("a", "b"):
            namespace = f"{TENANT}/trial-{number}-{side}"
            call("PUT", f"{leader.url}/admin/v2/namespaces/{namespace}", {}, ok=(200, 204))
            call("POST", f"{leader.url}/admin/v2/namespaces/{namespace}/antiAffinity", raw=f"group-{number}")
    time.sleep(3)


def second_placement(cluster: Cluster, a: str, b: str) -> tuple[str, str]:
    """Which of A and B the leader placed second, and how many brokers it considered for it, from its INFO lines
    (``N brokers being considered for assignment of ...``, in the order written): 2 when the first one was
    counted, 4 when it was forgotten. ``?`` where the lines are missing."""
    needles = {ns: f" brokers being considered for assignment of {ns}/{FULL_BUNDLE}" for ns in (a, b)}
    for broker in cluster.brokers:
        for path in sorted(p for p in broker.logs.glob("*.log") if p.is_file()):
            found = [
                (ns, line[: -len(needle)].split()[-1])
                for line in path.read_text(errors="replace").splitlines()
                for ns, needle in needles.items()
                if line.endswith(needle)
            ]
            if len(found) >= 2:
                return found[-1]
    return "?", "?"


def clean_up(cluster: Cluster, leader: Broker, namespaces: list[str]) -> None:
    """Unload the trial's namespaces and wait until no broker reports them (so that each trial starts from the
    same load: the placement strategy prefers the broker with the least long-term message rate, which bundles
    left behind would skew)."""
    for namespace in namespaces:
        call("PUT", f"{leader.url}/admin/v2/namespaces/{namespace}/unload", ok=(200, 204, 404, 412))

    def gone() -> bool:
        for broker in cluster.brokers:
            report = load_report(broker)
            listed = set(report.get("bundles") or []) | set((report.get("lastStats") or {}).keys())
            if any(b.split("/" + FULL_BUNDLE)[0] in namespaces for b in listed):
                return False
        return True

    wait_for("the trial's bundles out of every report", gone, 60, 0.5)
    time.sleep(1.0)


def trial(cluster: Cluster, number: int, kind: str) -> tuple[bool, bool, bool]:
    """One trial; returns (the rule was broken, the first placed went to a broker other than the leader, the
    leader considered all 4 brokers for the second placement)."""
    a, b = f"{TENANT}/trial-{number}-a", f"{TENANT}/trial-{number}-b"
    leader = cluster.leader()
    between = ""
    if kind == "concurrent":
        owners: dict[str, str] = {}
        errors: list[BaseException] = []
        barrier = threading.Barrier(2)

        def look(namespace: str) -> None:
            barrier.wait()
            try:
                owners[namespace] = lookup(leader, namespace)
            except BaseException as exc:  # re-raised below
                errors.append(exc)

        threads = [threading.Thread(target=look, args=(ns,)) for ns in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        owner_a, owner_b = cluster.by_id(owners[a]), cluster.by_id(owners[b])
        between = "looked up at the same instant"
    else:
        owner_a = cluster.by_id(lookup(leader, a))
        placed_ms = time.time() * 1000
        if kind == "report":
            filler = f"{TENANT}/filler-{number}"
            loader = cluster.by_id(lookup(leader, filler))
            call("PUT", f"{loader.url}/admin/v2/persistent/{filler}/{TOPIC}", {}, ok=(200, 204, 409))

            def report_after() -> Broker | None:
                for broker in cluster.brokers:
                    if load_report(broker).get("lastUpdate", 0) > placed_ms:
                        return broker
                return None

            writer = wait_for("a load report after A's placement", report_after, 60, 0.1)
            time.sleep(0.5)  # the leader's notification and rebuild
            listed = reported(load_report(owner_a), a)
            between = (
                f"a filler topic loaded on {loader.label()}; then {writer.label()} wrote a report; "
                f"A's owner reports A: {'yes' if listed else 'no'}"
            )
        else:
            call("PUT", f"{owner_a.url}/admin/v2/persistent/{a}/{TOPIC}", {}, ok=(200, 204, 409))
            wait_for(f"{owner_a.label()}'s report listing {a}", lambda: reported(load_report(owner_a), a), 60, 0.2)
            time.sleep(1.0)  # the leader's notification and rebuild
            between = "then A's owner wrote a report listing A"
        owner_b = cluster.by_id(lookup(leader, b))
    broken = owner_a.domain == owner_b.domain
    clean_up(cluster, leader, [a, b, f"{TENANT}/filler-{number}"])
    # read after the clean-up: the leader's log lines are written asynchronously
    second, considered = second_placement(cluster, a, b)
    label = {a: "B", b: "A"}.get(second, "?") + " first" if kind == "concurrent" else "A first"
    where = "the same broker" if owner_a is owner_b else "the same domain" if broken else "different domains"
    verdict = f"BROKEN: both in {owner_a.domain}, the other domain holds none" if broken else "as the rule says"
    log(
        f"trial {number} ({kind}): leader {leader.label()}; A on {owner_a.label()}"
        f"{' = the leader' if owner_a is leader else ''}; {between}; B on {owner_b.label()}: {where} ({verdict}); "
        f"the leader placed {label} and considered {considered} brokers for the second"
    )
    first_owner = owner_b if second == a else owner_a
    return broken, first_owner is not leader, considered == "4"


def reproduce(home: Path, work: Path, started: list[Process], trials: int, kinds: list[str]) -> int:
    cluster = Cluster(home, work, started)
    cluster.start()
    version = http("GET", f"{cluster.brokers[0].url}/admin/v2/brokers/version")[1].strip()
    leader = cluster.leader()
    for domain, members in DOMAINS.items():
        body = {"brokers": [cluster.brokers[i].id for i in members]}
        call("POST", f"{leader.url}/admin/v2/clusters/{CLUSTER}/failureDomains/{domain}", body)
    domains = call("GET", f"{leader.url}/admin/v2/clusters/{CLUSTER}/failureDomains")
    log(
        f"brokers answer {version}; failure domains "
        + "; ".join(f"{d}: {sorted(v.get('brokers') or [])}" for d, v in sorted(domains.items()))
        + f"; leader {leader.label()}; topic policies (system topics) off"
    )
    plan = [(round_ * len(kinds) + i + 1, kind) for round_ in range(trials) for i, kind in enumerate(kinds)]
    prepare(cluster, plan)
    results: dict[str, list[tuple[bool, bool, bool]]] = {kind: [] for kind in kinds}
    for number, kind in plan:
        results[kind].append(trial(cluster, number, kind))
    summary = []
    for kind in kinds:
        done = results[kind]
        broken = sum(1 for b, _, _ in done if b)
        elsewhere = [b for b, other, _ in done if other]
        forgotten = [b for b, _, all_four in done if all_four]
        summary.append(
            f"{kind}: broken in {broken} of {len(done)} trials "
            f"({sum(elsewhere)} of the {len(elsewhere)} where the first placed went to a broker other than the "
            "leader; "
            f"the first placement forgotten, all 4 brokers considered for the second, in {len(forgotten)}, "
            f"of which broken {sum(forgotten)})"
        )
    log("summary: " + "; ".join(summary))
    return 0 if any(b for done in results.values() for b, _, _ in done) else 1


def pulsar_home(given: str) -> Path:
    given = given or os.environ.get("PULSAR_HOME", "")
    if not given:
        raise SetupError("give the Pulsar home: reproduce.py PULSAR_HOME (or set PULSAR_HOME)")
    home = Path(given).expanduser().resolve()
    if not (home / "bin" / "pulsar").is_file() or not (home / "conf" / "broker.conf").is_file():
        raise SetupError(f"{home}: no bin/pulsar and conf/broker.conf (a Pulsar binary distribution?)")
    return home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", nargs="?", default="", help="PULSAR_HOME")
    parser.add_argument("--trials", type=int, default=8, help="trials of each kind (default 8)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma separated, of " + ", ".join(KINDS))
    parser.add_argument("--sequential", action="store_true", help="the counter-check alone (--kinds reported)")
    args = parser.parse_args()
    kinds = ["reported"] if args.sequential else [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not kinds or set(kinds) - set(KINDS) or args.trials < 1:
        parser.error(f"--kinds: some of {', '.join(KINDS)}; --trials: at least 1")

    def interrupted(signum: int, _frame: Any) -> None:
        print(f"interrupted by signal {signum}", file=sys.stderr)
        raise SystemExit(2)

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    try:
        home = pulsar_home(args.home)
    except SetupError as exc:
        print(f"set-up error: {exc}", file=sys.stderr)
        sys.exit(2)
    work = Path(tempfile.mkdtemp(prefix="pip7-reproduce-"))
    log(f"Pulsar home {home}; work folder {work}; {args.trials} trial(s) of each of {', '.join(kinds)}")
    started: list[Process] = []
    status = 2
    try:
        status = reproduce(home, work, started, args.trials, kinds)
    except SetupError as exc:
        print(f"set-up error: {exc}", file=sys.stderr)
    except Exception as exc:  # anything unforeseen is a failed set-up, never "not shown"
        print(f"set-up error: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        brokers = [p for p in started if isinstance(p, Broker)]
        threads = [threading.Thread(target=p.stop) for p in brokers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for process in reversed([p for p in started if p not in brokers]):
            process.stop(grace_s=10)
        for process in started:
            shutil.rmtree(process.dir / "data", ignore_errors=True)
        log(f"stopped every process; logs kept under {work}")
    sys.exit(status)


if __name__ == "__main__":
    main()
