"""A pytest plugin for tests/docs/test_kept_out_table.py: prints each selected item's node id and marks."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    for item in session.items:
        marks = ",".join(sorted({mark.name for mark in item.iter_markers()}))
        print(f"KEPT-OUT {item.nodeid} {marks}")
