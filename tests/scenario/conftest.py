"""Fixtures of the scenario-model tests (pytester is enabled by tests/conftest.py)."""

from __future__ import annotations

import pytest

from .helpers import INNER_CONFTEST, INNER_INI


@pytest.fixture
def scenario_dir(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory whose pytest collects `*.pulsar-ha.yaml` files with the fake runner."""
    pytester.makeconftest(INNER_CONFTEST)
    pytester.makeini(INNER_INI)
    return pytester
