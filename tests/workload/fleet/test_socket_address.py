"""The fleet's Unix socket binds however deep the evidence folder is (a mutation session's evidence folder, named
after the case and the mutant, made it 116 bytes long: ``OSError: AF_UNIX path too long``)."""

from __future__ import annotations

import contextlib
import os
from multiprocessing.connection import Listener
from pathlib import Path

from pytest_pulsar_ha.workload.fleet.handles import UNIX_PATH_MAX, socket_address


def test_a_short_evidence_folder_keeps_the_socket(tmp_path: Path) -> None:
    with contextlib.ExitStack() as stack:
        assert socket_address(tmp_path, ".fleet-1.sock", stack) == str(tmp_path / ".fleet-1.sock")


def test_a_deep_evidence_folder_binds_in_a_private_temporary_folder_removed_afterwards(tmp_path: Path) -> None:
    deep = tmp_path / ("primary-outage_production-rate__never_back-" * 3)
    deep.mkdir()
    name = ".fleet-68b5cb5f.sock"
    assert len(os.fsencode(deep / name)) > UNIX_PATH_MAX
    with contextlib.ExitStack() as stack:
        address = socket_address(deep, name, stack)
        assert len(os.fsencode(address)) <= UNIX_PATH_MAX and address.endswith(name)
        folder = Path(address).parent
        assert folder.is_dir() and oct(folder.stat().st_mode & 0o777) == "0o700"
        with Listener(address, family="AF_UNIX", authkey=b"k"):  # binds
            assert Path(address).exists()
    assert not folder.exists()
