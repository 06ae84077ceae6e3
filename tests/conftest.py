"""Fixtures shared by unit and functional tests: config and database."""

from __future__ import annotations

import pytest

from ironside.common.conf import CONF
from ironside.db import migration
from ironside.db import session as db_session
from ironside.drivers import factory
from tests import dbs


def pytest_report_header(config):
    return 'ironside test database backend: %s' % dbs.backend()


@pytest.fixture(scope='session')
def test_database():
    try:
        database = dbs.TestDatabase()
    except dbs.ServiceUnavailable as exc:
        if dbs.in_ci():
            pytest.fail('CI=true and the database is unavailable: %s' % exc)
        pytest.skip(str(exc))
    CONF([], project='ironside', default_config_files=[])
    CONF.set_override('connection', database.url, 'database')
    db_session.dispose()
    migration.upgrade()
    yield database
    db_session.dispose()
    database.drop()


@pytest.fixture
def db(test_database):
    """A migrated, empty database for one test.

    A test before it may have re-read the configuration (functional tests
    of split deployments do), which drops the session's override: set it
    again, so the test order never decides which database a test uses.
    """
    if CONF.database.connection != test_database.url:
        CONF.set_override('connection', test_database.url, 'database')
        db_session.dispose()
    dbs.truncate_all(db_session.get_engine())
    yield test_database


class ConfOverrides:
    """Option overrides for one test, all undone when it ends."""

    def __init__(self) -> None:
        self._overridden: list[tuple[str, str | None]] = []

    def set(self, group: str | None = None, **values) -> None:
        for name, value in values.items():
            CONF.set_override(name, value, group)
            self._overridden.append((name, group))

    def restore(self) -> None:
        for name, group in reversed(self._overridden):
            CONF.clear_override(name, group)
        self._overridden.clear()


@pytest.fixture(autouse=True)
def conf():
    """Set options with ``conf.set(group, name=value)``; undone after."""
    overrides = ConfOverrides()
    yield overrides
    overrides.restore()
    factory.reset_factory()
