"""Environment bring-up time against starting the same processes by hand.

Prints, for 2 and 3 clusters: the harness's time to a ready environment (toxiproxy, N standalone clusters with
listeners, readiness waits, geo-replication registration), the time to start N bare standalone processes by hand
with only their ports and data dirs changed and wait for the same readiness, and the ratio; then the time to hand
a test a fresh geo-replicated namespace. With ``--docker IMAGE`` it adds a row per cluster count for the docker
backend (each standalone in a container of IMAGE) next to the embedded one. With ``--multi`` (e.g. ``2x2,1x4``:
clusters x brokers) it adds rows for multi-broker clusters against ZooKeeper + metadata + bookie + brokers started
by hand from the same conf files, and the resident memory (RSS) of each kind of process. Needs the package
installed and Pulsar provisioned (``make setup``). With ``--reuse`` it adds the warm-environment rows: the time
from launching ``pytest`` to the start of its first test on 2 clusters without ``--pulsar-ha-reuse``, with it when
no warm environment is up (the session starts one and leaves it up), and with it again (the session attaches);
``--reuse-only`` prints only those.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pytest_pulsar_ha import ClusterSpec, HaSettings, build_environment, parse_clusters
from pytest_pulsar_ha.network.layout import ProxyLayout
from pytest_pulsar_ha.process.ports import free_ports
from pytest_pulsar_ha.process.readiness import AllOf, HttpWait, json_contains
from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_pulsar
from pytest_pulsar_ha.runtime.nodes.multi_broker import MultiBrokerNode, Service
from pytest_pulsar_ha.settings.clusters import default_names


def bare_standalones(count: int, home: Path) -> float:
    """Start ``count`` plain standalone processes at once (ports and data dirs changed), wait until all serve."""
    work = Path(tempfile.mkdtemp(prefix="bare-standalone-"))
    processes = []
    began = time.monotonic()
    try:
        waits = []
        for i in range(count):
            broker, web = free_ports(2)
            conf = work / f"s{i}.conf"
            text = (home / "conf" / "standalone.conf").read_text()
            # appended: the last of a repeated key wins, and an assembled runtime's template leaves the ports at
            # their defaults (no line to replace), so two bare standalones would take the same ports
            conf.write_text(text + f"\nbrokerServicePort={broker}\nwebServicePort={web}\nclusterName=bare{i}\n")
            env = {**os.environ, "PULSAR_STANDALONE_CONF": str(conf), "PULSAR_LOG_DIR": str(work / f"logs{i}")}
            env["PULSAR_MEM"] = "-Xms128m -Xmx512m -XX:MaxDirectMemorySize=512m"
            argv = [str(home / "bin/pulsar"), "standalone", "-nfw", "-nss"]
            argv += ["--metadata-dir", str(work / f"meta{i}"), "--bookkeeper-dir", str(work / f"bk{i}")]
            log = (work / f"out{i}.log").open("wb")
            processes.append(
                subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            )
            url = f"http://127.0.0.1:{web}/admin/v2"
            waits.append(
                AllOf(
                    timeout=300,
                    strategies=[
                        HttpWait(url=f"{url}/clusters", accept=json_contains(f"bare{i}")),
                        HttpWait(url=f"{url}/brokers/health"),
                    ],
                )
            )
        for wait in waits:
            wait.wait()
        return time.monotonic() - began
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        shutil.rmtree(work, ignore_errors=True)


def harness(count: int, namespaces: int, image: str = "") -> tuple[float, list[float]]:
    """The harness's bring-up (embedded; the docker backend on ``image`` when given) and namespace times."""
    settings = HaSettings(clusters=tuple(parse_clusters(str(count))))
    if image:
        settings = HaSettings(clusters=settings.clusters, backend="docker", image=image)
    env = build_environment(settings, progress=lambda m: None)
    began = time.monotonic()
    with env:
        startup = time.monotonic() - began
        timings = []
        for _ in range(namespaces):
            t0 = time.monotonic()
            env.create_geo_namespace()
            timings.append(time.monotonic() - t0)
    shutil.rmtree(env.work_dir, ignore_errors=True)
    return startup, timings


def _rss_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def multi_harness(clusters: int, brokers: int) -> tuple[float, dict[str, list[int]]]:
    """Bring-up of ``clusters`` clusters of ``brokers`` brokers with the harness; RSS per kind of process."""
    specs = tuple(ClusterSpec(name, brokers=brokers) for name in default_names(clusters))
    env = build_environment(HaSettings(clusters=specs), progress=lambda m: None)
    rss: dict[str, list[int]] = {"zookeeper": [], "bookie": [], "broker": []}
    with env:
        startup = env.startup_seconds or 0.0
        for cluster in env.clusters.values():
            node = cluster.node
            if isinstance(node, MultiBrokerNode):
                for service in node.services():
                    if service.process.pid:
                        rss[service.name.split()[0]].append(_rss_mb(service.process.pid))
    shutil.rmtree(env.work_dir, ignore_errors=True)
    return startup, rss


def multi_by_hand(clusters: int, brokers: int) -> float:
    """The same processes from the same conf files, started one after the other with plain Popen, no proxies."""
    from pytest_pulsar_ha.process.pid_registry import PidRegistry
    from pytest_pulsar_ha.runtime.embedded import EmbeddedBackend, EmbeddedOptions

    work = Path(tempfile.mkdtemp(prefix="bare-multi-"))
    dist = ensure_pulsar(HaSettings().pulsar_version, default_cache_dir(), print)
    backend = EmbeddedBackend(EmbeddedOptions(dist, work, PidRegistry(work / "run")))
    specs = [ClusterSpec(name, brokers=brokers) for name in default_names(clusters)]
    layout = ProxyLayout.plan(specs, iter(free_ports(ProxyLayout.port_count(specs))))
    nodes = [backend.create(spec, layout.listener_plans(spec.name)) for spec in specs]  # only writes conf files
    processes: list[subprocess.Popen[bytes]] = []

    def launch(service: Service) -> None:
        env = {**os.environ, **service.process.env}
        service.process.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = service.process.log_path.open("ab")
        processes.append(
            subprocess.Popen(
                service.process.argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        )
        service.readiness().wait()

    def bring_up(node: MultiBrokerNode) -> None:
        launch(node.zookeeper)
        store = f"zk:127.0.0.1:{node.ports.zookeeper}/{node.spec.name}"
        subprocess.run(
            [str(dist.launcher), "initialize-cluster-metadata", "--cluster", node.spec.name, "--metadata-store", store,
             "--configuration-metadata-store", store, "--web-service-url", node.web_url,
             "--broker-service-url", node.broker_url],
            env={**os.environ, "JAVA_HOME": str(dist.java.parent.parent), "PULSAR_MEM": "-Xmx256m"},
            check=True, capture_output=True,
        )  # fmt: skip
        for service in [node.bookie, *node.brokers]:
            launch(service)

    began = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=len(nodes)) as pool:
            list(pool.map(bring_up, [n for n in nodes if isinstance(n, MultiBrokerNode)]))
        return time.monotonic() - began
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        shutil.rmtree(work, ignore_errors=True)


def multi_rows(shapes: str, repeat: int) -> None:
    print(f"\n{'shape':>8} {'harness s':>10} {'by hand s':>10} {'ratio':>6}  RSS MB (zookeeper / bookie / broker)")
    for shape in shapes.split(","):
        clusters, brokers = (int(x) for x in shape.split("x"))
        ours, bare = [], []
        rss: dict[str, list[int]] = {}
        for _ in range(repeat):
            startup, rss = multi_harness(clusters, brokers)
            ours.append(startup)
            bare.append(multi_by_hand(clusters, brokers))
        o, b = statistics.median(ours), statistics.median(bare)
        memory = " / ".join(f"{max(v) if v else 0}" for v in rss.values())
        print(f"{shape:>8} {o:>10.1f} {b:>10.1f} {o / b:>6.2f}  {memory}", flush=True)


FIRST_TEST = """
import os, time

def test_first(pulsar_ha):
    with open(os.environ["BRINGUP_MARK"], "w") as out:
        out.write(repr(time.time()))
"""


def time_to_first_test(folder: Path, reuse: bool) -> float:
    """Seconds from launching pytest to the start of its first test (a test on the session's environment)."""
    mark = folder / "mark"
    mark.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(folder / "test_first.py")]
    argv += ["--pulsar-ha-clusters=bench-a,bench-b"] + (["--pulsar-ha-reuse"] if reuse else [])
    env = {**os.environ, "BRINGUP_MARK": str(mark)}
    began = time.time()
    done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not mark.exists():
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return float(mark.read_text()) - began


def reuse_rows(repeat: int) -> None:
    """Time to the first test: a fresh environment, a session that starts a warm one, sessions that attach."""
    folder = Path(tempfile.mkdtemp(prefix="bringup-reuse-"))
    (folder / "test_first.py").write_text(FIRST_TEST)
    from pytest_pulsar_ha.warm.description import EnvironmentDescription

    digest = EnvironmentDescription.of(HaSettings(clusters=tuple(parse_clusters("bench-a,bench-b")))).digest
    down = [sys.executable, "-m", "pytest_pulsar_ha", "down", digest]  # only the benchmark's own
    fresh = [time_to_first_test(folder, reuse=False) for _ in range(repeat)]
    subprocess.run(down, capture_output=True)  # one left by an interrupted run
    try:
        starting = time_to_first_test(folder, reuse=True)
        attached = [time_to_first_test(folder, reuse=True) for _ in range(max(repeat, 3))]
    finally:
        subprocess.run(down, check=True, capture_output=True)
    f, a = statistics.median(fresh), statistics.median(attached)
    print(f"\npytest launch to its first test, 2 clusters ({len(fresh)} fresh, {len(attached)} attached runs)")
    print(f"{'without --pulsar-ha-reuse':>34} {f:>6.1f} s")
    print(f"{'--pulsar-ha-reuse, none up yet':>34} {starting:>6.1f} s  (starts one, leaves it up)")
    print(f"{'--pulsar-ha-reuse, attached':>34} {a:>6.1f} s  (min {min(attached):.1f}, max {max(attached):.1f})")
    print(f"{'attached / fresh':>34} {a / f:>6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counts", default="2,3")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measurement (median is printed)")
    parser.add_argument("--namespaces", type=int, default=20)
    parser.add_argument("--multi", default="", help="multi-broker rows, clusters x brokers, e.g. 2x2,1x4")
    parser.add_argument("--multi-only", action="store_true", help="skip the standalone rows")
    parser.add_argument(
        "--docker",
        default="",
        metavar="IMAGE",
        help="docker backend rows on this image (e.g. pytest-pulsar-ha/pulsar:4.2.4-r2)",
    )
    parser.add_argument("--reuse", action="store_true", help="add the warm-environment rows (--pulsar-ha-reuse)")
    parser.add_argument("--reuse-only", action="store_true", help="print only the warm-environment rows")
    args = parser.parse_args()
    if args.reuse_only:
        reuse_rows(args.repeat)
        return
    if args.multi_only:
        multi_rows(args.multi or "2x2,1x4", args.repeat)
        return
    home = ensure_pulsar(HaSettings().pulsar_version, default_cache_dir(), print).home
    print(f"{'clusters':>8} {'harness s':>10} {'bare s':>8} {'ratio':>6}")
    namespace_times: list[float] = []
    embedded: dict[int, float] = {}
    for count in (int(c) for c in args.counts.split(",")):
        ours, bare = [], []
        for _ in range(args.repeat):
            startup, ns = harness(count, args.namespaces)
            ours.append(startup)
            namespace_times += ns
            bare.append(bare_standalones(count, home))
        o, b = statistics.median(ours), statistics.median(bare)
        embedded[count] = o
        print(f"{count:>8} {o:>10.1f} {b:>8.1f} {o / b:>6.2f}", flush=True)
    ms = sorted(t * 1000 for t in namespace_times)
    print(
        f"fresh geo_namespace: median {statistics.median(ms):.0f} ms, "
        f"p90 {ms[int(len(ms) * 0.9) - 1]:.0f} ms over {len(ms)} namespaces"
    )
    if args.docker:
        docker_rows(args.docker, embedded, args.repeat)
    if args.multi:
        multi_rows(args.multi, args.repeat)
    if args.reuse:
        reuse_rows(args.repeat)


def docker_rows(image: str, embedded: dict[int, float], repeat: int) -> None:
    """The docker backend's bring-up (a container per standalone, host networking) next to the embedded one."""
    print(f"\n{'clusters':>8} {'docker s':>10} {'embedded s':>10} {'ratio':>6}  (image {image})")
    for count, local in embedded.items():
        runs = [harness(count, 1, image)[0] for _ in range(repeat)]
        d = statistics.median(runs)
        print(f"{count:>8} {d:>10.1f} {local:>10.1f} {d / local:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
