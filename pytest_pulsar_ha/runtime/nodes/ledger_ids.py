"""Ledger ids disjoint per cluster, so that a message's (ledger, entry) position names the one cluster that stored
it: which cluster delivered a received message is then read from storage without ambiguity.

Pulsar numbers ledgers per cluster, from the same start on every cluster of an environment, so a replicated entry
often sits at the same (ledger, entry) on two clusters and the delivering cluster of a receipt could not be told
(:mod:`pytest_pulsar_ha.workload.storage_lookup` said "unknown"). Pulsar's ledger id generator
(``PulsarLedgerIdGenerator``) switches to 63-bit ids once ``<ledgers root>/idgen-long`` exists and takes their high
32 bits from the largest ``HOB-<n>`` node below it. Before a standalone's first start, :func:`seed_ledger_ids`
creates ``/ledgers/idgen-long/HOB-<k>`` in its (not yet opened) RocksDB metadata store with Pulsar's own metadata
API (``SeedLedgerIds.java``, compiled with ecj and run by the runtime's Java from its own jars), k being the
cluster's place in the environment plus one: its ledger ids are then ``(k << 32) | n``, disjoint from every other
cluster's (:mod:`pytest_pulsar_ha.runtime.ledger_owners` reads a ledger id's cluster from them).

Multi-broker clusters (ZooKeeper) and the docker and external backends keep Pulsar's numbering.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from pytest_pulsar_ha.errors import StartupError

SEED_SOURCE = Path(__file__).with_name("SeedLedgerIds.java")
LEDGERS_ROOT = "/ledgers"
SEED_TIMEOUT_S = 120.0


def seed_command(java: Path, pulsar_home: Path, classes: Path, store_url: str, high_bits: int) -> list[str]:
    classpath = f"{classes}:{pulsar_home / 'lib'}/*"
    return [str(java), "-cp", classpath, SEED_SOURCE.stem, store_url, LEDGERS_ROOT, str(high_bits)]


def seed_classes(java: Path, pulsar_home: Path, log_path: Path) -> Path:
    """``SeedLedgerIds`` compiled against the runtime's jars (with ecj, cached: no javac needed, so a Java runtime
    without ``jdk.compiler`` runs it too). Raises :class:`StartupError` when it does not compile."""
    from pytest_pulsar_ha.errors import ProvisioningError
    from pytest_pulsar_ha.provisioning.cache import default_cache_dir
    from pytest_pulsar_ha.provisioning.ecj import compiled_class_dir

    try:
        return compiled_class_dir(java, SEED_SOURCE, pulsar_home / "lib", default_cache_dir(), lambda _: None)
    except ProvisioningError as exc:
        log_path.write_text(f"$ ecj {SEED_SOURCE} against {pulsar_home / 'lib'}\n{exc}\n")
        tail = "\n".join(str(exc).strip().splitlines()[-12:])
        raise StartupError(
            f"could not seed the ledger ids: {SEED_SOURCE.name} did not compile ({log_path}):\n{tail}"
        ) from None


def seed_ledger_ids(java: Path, pulsar_home: Path, metadata_dir: Path, high_bits: int, log_path: Path) -> None:
    """Create the high-order ledger id node ``high_bits`` in the RocksDB metadata store at ``metadata_dir`` (before
    the standalone opens it). Raises :class:`StartupError` with the seed's output when it fails."""
    if high_bits < 1:
        raise ValueError(f"high bits must be at least 1, not {high_bits}")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    classes = seed_classes(java, pulsar_home, log_path)
    command = seed_command(java, pulsar_home, classes, f"rocksdb://{metadata_dir}", high_bits)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=SEED_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise StartupError(f"seeding the ledger ids in {metadata_dir} took over {SEED_TIMEOUT_S:.0f}s") from exc
    log_path.write_text(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}")
    if done.returncode != 0 or "seeded " not in done.stdout:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-12:])
        raise StartupError(
            f"could not seed the ledger ids in {metadata_dir} (exit {done.returncode}); its output ({log_path}):\n"
            f"{tail}\nhint: the seed runs Pulsar's own metadata API from {pulsar_home / 'lib'}"
        )
