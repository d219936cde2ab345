"""``pulsar-ha metadata-sync``: run the reference PIP-136 synchronizer beside one cluster, until interrupted.

Run one per cluster. Each reads its cluster's tracked tenants and their namespaces through the admin API,
publishes what changed there as Pulsar's ``MetadataEvent`` on the event topic (which must be geo-replicated
among the clusters: its namespace's replication clusters), and applies the other clusters' events by last writer
wins on origin times, ties to the cluster whose name sorts first. Its state file makes a restart neither apply
nor publish anything twice. Do not run it on a cluster where Pulsar's own synchronizer
(``configurationMetadataSyncEventTopic``) is on for the same topic.

Example (two clusters, the event namespace replicated between them):

    pulsar-ha metadata-sync --cluster east --admin-url http://east:8080 --service-url pulsar://east:6650 \\
        --tenant acme --state /var/lib/pulsar-ha/east.json
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from pytest_pulsar_ha.errors import ConfigurationError

TOKEN_VARIABLE = "PULSAR_HA_SYNC_TOKEN"


def add_metadata_sync_parser(sub: Any) -> None:
    """Register ``metadata-sync`` on the ``pulsar-ha`` subcommands."""
    from pytest_pulsar_ha.pips.metadata_sync.bootstrap import EVENT_TOPIC

    parser = sub.add_parser(
        "metadata-sync",
        help="PIP-136: run the reference metadata synchronizer beside one cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--cluster", required=True, help="this cluster's name (as the events carry it)")
    parser.add_argument("--admin-url", required=True, metavar="http://HOST:PORT")
    parser.add_argument("--service-url", required=True, metavar="pulsar://HOST:PORT")
    parser.add_argument("--tenant", action="append", required=True, help="a tenant to keep in sync (repeat)")
    parser.add_argument("--topic", default=EVENT_TOPIC, help=f"the event topic (default {EVENT_TOPIC})")
    parser.add_argument("--state", required=True, type=Path, help="the state file (created if missing)")
    parser.add_argument("--token", help=f"admin and client token (default: ${TOKEN_VARIABLE})")
    parser.add_argument("--report-every", type=float, default=30.0, help="seconds between progress lines")
    parser.set_defaults(func=cmd_metadata_sync)


def cmd_metadata_sync(args: argparse.Namespace) -> int:
    import pulsar

    from pytest_pulsar_ha.admin.client import AdminClient
    from pytest_pulsar_ha.pips.metadata_sync.documents import ClusterDocuments
    from pytest_pulsar_ha.pips.metadata_sync.reference import ReferenceSynchronizer

    if not args.admin_url.startswith(("http://", "https://")):
        raise ConfigurationError(f"--admin-url {args.admin_url!r}: expected http://HOST:PORT")
    if not args.service_url.startswith(("pulsar://", "pulsar+ssl://")):
        raise ConfigurationError(f"--service-url {args.service_url!r}: expected pulsar://HOST:PORT")
    token = args.token or os.environ.get(TOKEN_VARIABLE) or None
    options: dict[str, Any] = {"operation_timeout_seconds": 10}
    if token:
        options["authentication"] = pulsar.AuthenticationToken(token)
    client = pulsar.Client(args.service_url, **options)
    try:
        documents = ClusterDocuments(AdminClient(args.admin_url, 10.0, token), list(args.tenant))
        try:
            sync = ReferenceSynchronizer(
                args.cluster, documents, client, args.state, topic=args.topic, say=lambda m: print(m, file=sys.stderr)
            )
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from None
        print(f"syncing {', '.join(args.tenant)} of {args.cluster} through {args.topic}", flush=True)
        last = time.monotonic()
        try:
            while True:
                try:
                    sync.step()
                except Exception as exc:  # the cluster is away: keep going, say it
                    print(f"{args.cluster}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                    time.sleep(1.0)
                if time.monotonic() - last >= args.report_every:
                    c = sync.counters
                    print(f"published {c.published}, applied {c.applied}, ignored {c.ignored}", flush=True)
                    last = time.monotonic()
        finally:
            sync.close()
    finally:
        client.close()
