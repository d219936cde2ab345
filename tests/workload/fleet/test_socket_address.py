"""The fleet's Unix socket binds however deep the evidence folder is (a mutation session's evidence folder, named
after the case and the mutant, once made its path 116 bytes long: ``OSError: AF_UNIX path too long``): it lives in
a private temporary folder, removed once the workers have connected."""

from __future__ import annotations

import contextlib
import os
from multiprocessing.connection import Listener
from pathlib import Path

from pytest_pulsar_ha.workload.fleet.handles import socket_address


def test_the_socket_binds_in_a_private_temporary_folder_removed_afterwards() -> None:
    with contextlib.ExitStack() as stack:
        address = socket_address(stack)
        assert len(os.fsencode(address)) <= 107  # what Linux binds
        folder = Path(address).parent
        assert folder.is_dir() and oct(folder.stat().st_mode & 0o777) == "0o700"
        with Listener(address, family="AF_UNIX", authkey=b"k"):  # binds
            assert Path(address).exists()
    assert not folder.exists()


def test_two_fleets_get_two_folders() -> None:
    with contextlib.ExitStack() as stack:
        assert socket_address(stack) != socket_address(stack)
