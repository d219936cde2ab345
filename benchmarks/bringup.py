"""Environment bring-up time against starting the same number of bare ``bin/pulsar standalone`` by hand.

Prints, for 2 and 3 clusters: the harness's time to a ready environment (toxiproxy, N standalone clusters with
listeners, readiness waits, geo-replication registration), the time to start N bare standalone processes by hand
with only their ports and data dirs changed and wait for the same readiness, and the ratio; then the time to hand
a test a fresh geo-replicated namespace. Needs the package installed and Pulsar provisioned (``make setup``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from pytest_pulsar_ha import HaSettings, build_environment, parse_clusters
from pytest_pulsar_ha.ports import free_ports
from pytest_pulsar_ha.provisioning import default_cache_dir, ensure_pulsar
from pytest_pulsar_ha.readiness import AllOf, HttpWait, json_contains


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
            text = text.replace("brokerServicePort=6650", f"brokerServicePort={broker}")
            text = text.replace("webServicePort=8080", f"webServicePort={web}")
            conf.write_text(text + f"\nclusterName=bare{i}\n")
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


def harness(count: int, namespaces: int) -> tuple[float, list[float]]:
    env = build_environment(HaSettings(clusters=tuple(parse_clusters(str(count)))), progress=lambda m: None)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counts", default="2,3")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measurement (median is printed)")
    parser.add_argument("--namespaces", type=int, default=20)
    args = parser.parse_args()
    home = ensure_pulsar(HaSettings().pulsar_version, default_cache_dir(), print).home
    print(f"{'clusters':>8} {'harness s':>10} {'bare s':>8} {'ratio':>6}")
    namespace_times: list[float] = []
    for count in (int(c) for c in args.counts.split(",")):
        ours, bare = [], []
        for _ in range(args.repeat):
            startup, ns = harness(count, args.namespaces)
            ours.append(startup)
            namespace_times += ns
            bare.append(bare_standalones(count, home))
        o, b = statistics.median(ours), statistics.median(bare)
        print(f"{count:>8} {o:>10.1f} {b:>8.1f} {o / b:>6.2f}", flush=True)
    ms = sorted(t * 1000 for t in namespace_times)
    print(
        f"fresh geo_namespace: median {statistics.median(ms):.0f} ms, "
        f"p90 {ms[int(len(ms) * 0.9) - 1]:.0f} ms over {len(ms)} namespaces"
    )


if __name__ == "__main__":
    main()
