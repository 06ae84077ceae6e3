"""Fixtures for functional tests: real processes over the network."""

from __future__ import annotations

import pytest

from tests.functional.fixtures.ironside_process import IronsideProcess


@pytest.fixture
def ironside(tmp_path):
    """An all-in-one Ironside on a free port, with SQLite in tmp_path."""
    process = IronsideProcess(tmp_path)
    process.start()
    yield process
    code = process.stop()
    assert code == 0, 'ironside did not stop cleanly:\n%s' % process.log()
