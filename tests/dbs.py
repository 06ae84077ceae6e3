"""Test databases on SQLite, PostgreSQL and MariaDB.

``IRONSIDE_TEST_DB`` picks the backend: ``sqlite`` (default),
``postgresql`` or ``mysql``. Each test session gets a database of its own
(a temporary file, or a freshly created database with a random name on
the server), so runs in parallel never meet. With ``CI=true`` a server
that cannot be reached fails the run instead of skipping.
"""

from __future__ import annotations

import os
import tempfile
import uuid

import sqlalchemy as sa

SERVER_URLS = {
    'postgresql': os.environ.get(
        'IRONSIDE_TEST_POSTGRESQL_URL',
        'postgresql+psycopg2://postgres@127.0.0.1:5432/postgres'),
    'mysql': os.environ.get(
        'IRONSIDE_TEST_MYSQL_URL',
        'mysql+pymysql://root@127.0.0.1:3306/test'),
}


def backend() -> str:
    return os.environ.get('IRONSIDE_TEST_DB', 'sqlite')


def in_ci() -> bool:
    return os.environ.get('CI', '').lower() in ('1', 'true', 'yes')


class ServiceUnavailable(Exception):
    pass


class TestDatabase:
    """A database of one backend that exists for one test session."""

    def __init__(self, kind: str | None = None) -> None:
        self.kind = kind or backend()
        self.name = 'ironside_test_%s' % uuid.uuid4().hex[:10]
        self._tmpdir = None
        if self.kind == 'sqlite':
            self._tmpdir = tempfile.TemporaryDirectory(prefix='ironside-db-')
            self.url = 'sqlite:///%s/%s.sqlite' % (self._tmpdir.name,
                                                   self.name)
            return
        server = SERVER_URLS[self.kind]
        admin = sa.create_engine(server, isolation_level='AUTOCOMMIT')
        try:
            with admin.connect() as conn:
                conn.execute(sa.text('CREATE DATABASE %s' % self.name))
        except sa.exc.OperationalError as exc:
            raise ServiceUnavailable('%s is not reachable at %s: %s'
                                     % (self.kind, server, exc)) from exc
        finally:
            admin.dispose()
        self.url = str(sa.engine.make_url(server).set(
            database=self.name).render_as_string(hide_password=False))
        if self.kind == 'mysql':
            self.url += '?charset=utf8mb4'

    def drop(self) -> None:
        if self.kind == 'sqlite':
            self._tmpdir.cleanup()
            return
        admin = sa.create_engine(SERVER_URLS[self.kind],
                                 isolation_level='AUTOCOMMIT')
        try:
            with admin.connect() as conn:
                if self.kind == 'postgresql':
                    conn.execute(sa.text(
                        'DROP DATABASE IF EXISTS %s WITH (FORCE)'
                        % self.name))
                else:
                    conn.execute(sa.text('DROP DATABASE IF EXISTS %s'
                                         % self.name))
        finally:
            admin.dispose()


def engines() -> set[sa.Engine]:
    """The writers' engine and the readers' (one and the same but on a
    SQLite file and on PostgreSQL)."""
    from ironside.db import session as db_session

    return {db_session.get_engine(),
            db_session._facade().reader.get_engine()}


def truncate_all(engine: sa.Engine) -> None:
    """Empty every table, keeping the schema (much faster than migrating)."""
    from ironside.db import models

    tables = [t.name for t in reversed(models.Base.metadata.sorted_tables)]
    with engine.begin() as conn:
        existing = set(sa.inspect(conn).get_table_names())
        if engine.dialect.name == 'postgresql':
            # DELETE, not TRUNCATE: a TRUNCATE of forty tables makes new
            # files for each (0.3 s a test); these tables hold a few rows.
            # The ids start again at 1, as after TRUNCATE ... RESTART
            # IDENTITY.
            for table in tables:
                if table in existing:
                    conn.execute(sa.text('DELETE FROM %s' % table))
            sequences = conn.execute(sa.text(
                "SELECT sequencename FROM pg_sequences "
                "WHERE schemaname = current_schema() "
                "AND last_value IS NOT NULL")).scalars().all()
            for sequence in sequences:
                conn.execute(sa.text("SELECT setval('%s', 1, false)"
                                     % sequence))
            return
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('SET FOREIGN_KEY_CHECKS=0'))
        for table in tables + sorted(existing - set(tables) -
                                     {'alembic_version'}):
            if table in existing:
                conn.execute(sa.text('DELETE FROM %s' % table))
        if engine.dialect.name == 'mysql':
            conn.execute(sa.text('SET FOREIGN_KEY_CHECKS=1'))
