"""The ``pulsar-ha`` command: provision, smoke-test the environment, serve a URL provider, reap leftovers, migrate
(PIP-188, :mod:`pytest_pulsar_ha.cli.migrate`), sync metadata (PIP-136, :mod:`pytest_pulsar_ha.cli.metadata_sync`)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pytest_pulsar_ha.cli.findings import add_findings_parser
from pytest_pulsar_ha.cli.metadata_sync import add_metadata_sync_parser
from pytest_pulsar_ha.cli.migrate import add_migrate_parser
from pytest_pulsar_ha.cli.mutate import add_mutate_parser
from pytest_pulsar_ha.cli.nightly import add_nightly_parser
from pytest_pulsar_ha.cli.warm import add_warm_parsers
from pytest_pulsar_ha.errors import PulsarHaError
from pytest_pulsar_ha.provisioning import DEFAULT_PULSAR_VERSION, default_cache_dir, ensure_pulsar, ensure_toxiproxy
from pytest_pulsar_ha.runtime.backends import build_environment
from pytest_pulsar_ha.settings import HaSettings, check_heap, check_version, parse_substitutions
from pytest_pulsar_ha.settings.clusters import parse_brokers, parse_clusters

if TYPE_CHECKING:
    from pytest_pulsar_ha.runtime.environment import PulsarHaEnvironment


SUBSTITUTE_HELP = (
    "group:artifact=version[,...]: pin dependencies of a runtime assembled from Maven artifacts (labelled as not the "
    "release)"
)


def _say(message: str) -> None:
    print(message, flush=True)


def _settings(args: argparse.Namespace) -> HaSettings:
    brokers = parse_brokers(getattr(args, "brokers", "1"), "--brokers")
    specs = parse_clusters(args.clusters, "--clusters")
    return HaSettings(
        clusters=tuple(dataclasses.replace(spec, brokers=brokers) for spec in specs),
        pulsar_version=check_version(args.pulsar_version, "--pulsar-version"),
        pulsar_substitutions=parse_substitutions(args.pulsar_substitute, "--pulsar-substitute"),
        heap=check_heap(args.heap, "--heap"),
    )


def cmd_provision(args: argparse.Namespace) -> int:
    cache = default_cache_dir()
    pins = dict(parse_substitutions(args.pulsar_substitute, "--pulsar-substitute"))
    version = check_version(args.pulsar_version, "--pulsar-version")
    from pytest_pulsar_ha.runtime.clock import FAKETIME_LIBRARIES

    if args.toolchains_only:
        from pytest_pulsar_ha.provisioning.toolchains import ensure_toolchains

        for line in ensure_toolchains(version, cache, _say, FAKETIME_LIBRARIES):
            _say(line)
        return 0
    from concurrent.futures import ThreadPoolExecutor

    from pytest_pulsar_ha.provisioning.java_driver import ensure_java_driver
    from pytest_pulsar_ha.provisioning.pip_tools import ensure_faketime

    # toxiproxy's first build (go install: minutes of CPU) runs beside Pulsar's assembly (mostly downloads) and
    # the Java driver's compile; the wheels either may install go through one pip at a time (pip_tools)
    with ThreadPoolExecutor(1, thread_name_prefix="provision-toxiproxy") as beside:
        building = beside.submit(ensure_toxiproxy, cache, _say)
        dist = ensure_pulsar(version, cache, _say, pins)
        driver = ensure_java_driver(dist.version, cache, _say)  # for scenarios with client kind java
        from pytest_pulsar_ha.runtime.embedded import compile_ledger_id_seed

        compile_ledger_id_seed(dist.java, dist.home, cache / "seed-ledger-ids.log")  # not at the first start
        faketime = ensure_faketime(_say, FAKETIME_LIBRARIES)  # the system's, else the wheel's: for clock faults
        toxiproxy = building.result()
    _say(
        f"Pulsar {dist.label}: {dist.home}\nJava: {dist.java}\ntoxiproxy: {toxiproxy}\n"
        f"Java client driver (pulsar-client {driver.client_version}): {driver.home}\nlibfaketime: {faketime}"
    )
    if args.docker_image:
        from pytest_pulsar_ha.provisioning.docker_image import build_local_images

        pulsar_image, toxiproxy_image = build_local_images(dist, toxiproxy, cache, _say)
        _say(f"docker images: {pulsar_image} (--pulsar-ha-image), {toxiproxy_image} (--pulsar-ha-toxiproxy-image)")
    return 0


def cmd_reap(args: argparse.Namespace) -> int:
    reaped = HaSettings().registry().reap_orphans()
    for record in reaped:
        _say(f"killed leftover {record.name} (pgid {record.pgid}): {record.command}")
    _say(f"{len(reaped)} leftover process group(s) reaped")
    from pytest_pulsar_ha.cli.warm import remove_stale
    from pytest_pulsar_ha.warm.state import WarmStore

    for digest in remove_stale(WarmStore(default_cache_dir())):
        _say(f"removed the stale warm environment {digest} (its keeper is gone)")
    from pytest_pulsar_ha.runtime.docker.reaper import reap_if_engine

    containers = reap_if_engine()  # the docker backend's, by label; nothing when no engine answers
    for container in containers:
        _say(f"removed leftover container {container.name} of run {container.run_id} (owner pid {container.owner_pid})")
    if containers:
        _say(f"{len(containers)} leftover container(s) removed")
    return 0


def cmd_smoke(args: argparse.Namespace) -> int:
    """Start the clusters, prove replication every way through the proxies, stop; print a report."""
    from pytest_pulsar_ha.workload.replication_probe import prove_replication

    settings = _settings(args)
    _say(settings.describe())
    env = build_environment(settings, progress=_say)
    with env:
        _say(f"started {', '.join(env.names)} in {env.startup_seconds:.1f}s (work dir {env.work_dir})")
        for cluster in env.clusters.values():
            _say(f"  {cluster.name}: service {cluster.service_url}  admin {cluster.admin_url}")
            for broker in cluster.brokers:
                _say(f"    broker {broker.id}: service {broker.service_url}")
        namespace = env.create_geo_namespace()
        results = prove_replication(env, namespace)
        workload_line, workload_ok = _smoke_workload(env, namespace)
    ok = all(r.ok for r in results) and workload_ok
    _say("\nreplication report")
    for r in results:
        status = f"delivered in {r.seconds * 1000:.0f} ms" if r.ok else f"NOT delivered: {r.error}"
        _say(f"  {r.source:>12} -> {r.target:<12} {status}")
    _say(f"\n{workload_line}")
    _say(f"\n{'PASS' if ok else 'FAIL'}: replication and the workload {'work' if ok else 'do not work'}")
    return 0 if ok else 1


SMOKE_ACKS = 40


def _smoke_workload(env: PulsarHaEnvironment, namespace: str) -> tuple[str, bool]:
    """The one-topic workload for a few seconds on the first cluster: every acknowledged send received?"""
    from pytest_pulsar_ha.workload.one_topic import OneTopicWorkload

    name = env.names[0]
    client = env.client(name, operation_timeout_seconds=30)
    try:
        work = OneTopicWorkload(client, f"persistent://{namespace}/smoke").start()
        try:
            work.wait_for_acks(SMOKE_ACKS, timeout=60)
        finally:
            work.stop(drain_timeout=30)
        work.attribute(env)
    except Exception as exc:  # reported, like the replication directions
        return f"workload on {name}: FAILED: {type(exc).__name__}: {exc}", False
    finally:
        client.close()
    acks, lost = work.acks, work.lost()
    by = sorted({a.cluster or "unknown" for a in acks})
    line = f"workload on {name}: {len(acks)} sends acknowledged (by {', '.join(by)}), {len(lost)} lost"
    return line, not lost and by == [name]


def cmd_url_provider(args: argparse.Namespace) -> int:
    """Serve the PIP-121 JSON of the active cluster until interrupted; switch with POST /admin/switch/<name>."""
    from pulsar_ha_providers import UrlProviderService

    clusters: dict[str, dict[str, str]] = {}
    for item in args.cluster:
        name, sep, url = item.partition("=")
        if not sep or not name or not url:
            raise PulsarHaError(f"--cluster {item!r}: expected NAME=pulsar://host:port")
        clusters[name] = {"serviceUrl": url}
    host, _, port = args.listen.rpartition(":")
    active = args.active or next(iter(clusters))
    try:
        service = UrlProviderService(
            clusters, active, host=host or "127.0.0.1", port=int(port), admin_token=args.admin_token
        )
    except ValueError as exc:
        raise PulsarHaError(str(exc)) from None
    with service:
        _say(
            f"URL provider on {service.url} (active: {active}); "
            f"switch with: curl -X POST {service.url}admin/switch/NAME"
        )
        while True:
            time.sleep(3600)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pulsar-ha", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    provision = sub.add_parser("provision", help="fetch Pulsar and toxiproxy, build the Java client driver (once)")
    provision.add_argument("--pulsar-version", default=DEFAULT_PULSAR_VERSION)
    provision.add_argument("--pulsar-substitute", default="", help=SUBSTITUTE_HELP)
    provision.add_argument(
        "--docker-image",
        action="store_true",
        help="also build local images for the docker backend from them (no registry needed; root and debootstrap)",
    )
    provision.add_argument(
        "--toolchains-only",
        action="store_true",
        help="only install the wheels that stand in for a missing Java, Go or libfaketime (pip, into this "
        "environment), so that a later provision runs no pip (make's set-up runs it beside the heavy pip install)",
    )
    provision.set_defaults(func=cmd_provision)
    smoke = sub.add_parser("smoke", help="start the clusters, prove replication both ways, stop")
    smoke.add_argument("--clusters", default="2", help="count or comma list of names")
    smoke.add_argument(
        "--brokers", default="1", help="brokers per cluster (1: a standalone; 2 or more: ZooKeeper, bookie, brokers)"
    )
    smoke.add_argument("--pulsar-version", default=DEFAULT_PULSAR_VERSION)
    smoke.add_argument("--pulsar-substitute", default="", help=SUBSTITUTE_HELP)
    smoke.add_argument("--heap", default="512m")
    smoke.set_defaults(func=cmd_smoke)
    provider = sub.add_parser("url-provider", help="serve a PIP-121 URL provider for ControlledClusterFailover")
    provider.add_argument("--cluster", action="append", required=True, help="NAME=pulsar://host:port (repeat)")
    provider.add_argument("--active", help="the cluster served first (default: the first --cluster)")
    provider.add_argument("--listen", default="127.0.0.1:8089", help="HOST:PORT to listen on")
    provider.add_argument("--admin-token", help="require 'Authorization: Bearer TOKEN' on switches")
    provider.set_defaults(func=cmd_url_provider)
    reap = sub.add_parser("reap", help="kill processes (and remove containers) left by a run that was killed")
    reap.set_defaults(func=cmd_reap)
    add_migrate_parser(sub)
    add_metadata_sync_parser(sub)
    add_nightly_parser(sub)
    add_findings_parser(sub)
    add_mutate_parser(sub)
    add_warm_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    started = time.monotonic()
    try:
        code: int = args.func(args)
    except PulsarHaError as exc:
        print(f"pulsar-ha: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pulsar-ha: interrupted; every started process was stopped", file=sys.stderr)
        return 130
    if not getattr(args, "json", False):  # --json output is one JSON document
        print(f"({time.monotonic() - started:.0f}s)")
    return code
