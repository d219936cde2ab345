"""How often a killed ``pulsar standalone`` restarts into Pulsar's bookie-registration lock loop, and whether the
embedded backend's graceful second start recovers it (``pytest_pulsar_ha.runtime.nodes.registration_loop``).

Each round: send 20 messages to a fresh topic, SIGKILL the standalone, start it again (the backend's own
``start``: ready, then checked for the loop and restarted once more if it loops), then read the 20 messages
back through a new subscription and time the first ack of a new send. Prints a line per round and the totals.

    python benchmarks/restart_after_kill.py --rounds 10
"""

from __future__ import annotations

import argparse
import time
import uuid

from pytest_pulsar_ha.runtime.backends import build_environment
from pytest_pulsar_ha.settings import HaSettings
from pytest_pulsar_ha.settings.clusters import parse_clusters
from pytest_pulsar_ha.workload.client_setup import create_with_retries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import pulsar

    settings = HaSettings(clusters=tuple(parse_clusters("1", "--clusters")))
    env = build_environment(settings, progress=print)
    loops = failures = 0
    with env:
        cluster = env.cluster(env.names[0])
        namespace = env.create_geo_namespace()
        node = cluster.node
        for round_no in range(1, args.rounds + 1):
            topic = f"persistent://{namespace}/round-{round_no}"
            payloads = {f"{round_no}-{i}-{uuid.uuid4()}".encode() for i in range(20)}
            client = env.client(cluster.name, operation_timeout_seconds=10)
            try:
                producer = create_with_retries(lambda: client.create_producer(topic))  # noqa: B023
                for payload in payloads:
                    producer.send(payload)
            finally:
                client.close()
            before = getattr(node, "restarts_after_lock_loop", 0)
            cluster.kill()
            began = time.monotonic()
            cluster.start()
            started = time.monotonic() - began
            looped = getattr(node, "restarts_after_lock_loop", 0) - before
            loops += looped
            client = env.client(cluster.name, operation_timeout_seconds=10)
            seen: set[bytes] = set()
            try:
                consumer = create_with_retries(
                    lambda: client.subscribe(topic, "check", initial_position=pulsar.InitialPosition.Earliest)  # noqa: B023
                )
                deadline = time.monotonic() + 60
                while not payloads <= seen and time.monotonic() < deadline:
                    try:
                        message = consumer.receive(timeout_millis=2000)
                    except pulsar.Timeout:
                        continue
                    seen.add(message.data())
                    consumer.acknowledge(message)
                producer = create_with_retries(lambda: client.create_producer(topic))  # noqa: B023
                sent_at = time.monotonic()
                producer.send(b"after")
                first_ack = time.monotonic() - sent_at
            finally:
                client.close()
            ok = payloads <= seen
            failures += not ok
            print(
                f"round {round_no}: start {started:.1f}s, lock loop {'yes (restarted again)' if looped else 'no'}, "
                f"read back {len(payloads & seen)}/20, first new ack {first_ack * 1000:.0f} ms",
                flush=True,
            )
    print(f"{args.rounds} kill+start rounds: {loops} lock loops caught and restarted, {failures} rounds lost data")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
