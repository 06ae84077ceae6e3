"""A database blip loses no outcome and leaves no node locked (issue 17,
finding 2).

Before, a worker that could not write when it finished logged "Could
not record the failure of node ..." and kept the lock for good. Now the
writes that record a node's outcome and free its lock ride the outage
out, and the API answers 503 with Retry-After meanwhile.

The outage is injected where oslo.db raises it (DBConnectionError before
a statement): SQLite, the unit suite's database, cannot be made
unreachable. The fault tests in tests/functional/faults restart a real
PostgreSQL.
"""

from __future__ import annotations

import contextlib
import threading

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironside.api import app as api_app
from ironside.common import states
from ironside.db import nodes as nodes_db
from ironside.db import session as db_session
from tests import dbs
from tests.unit.api.conftest import ApiClient
from tests.unit.api.conftest import error_of
from tests.utils import wait_for


def _restarting():
    """What a PostgreSQL that is restarting gives a new connection: a plain
    OperationalError, which oslo.db's filters do not translate."""
    return sa.exc.OperationalError(
        'SELECT 1', {}, Exception('the database system is starting up'))


class Outage:
    """Every statement fails as if the database were away, until ended."""

    def __init__(self, error) -> None:
        self.error = error
        self.down = threading.Event()
        self.refused = 0

    def _refuse(self, *args, **kwargs) -> None:
        if self.down.is_set():
            self.refused += 1
            raise self.error()

    @contextlib.contextmanager
    def installed(self):
        engines = dbs.engines()
        for engine in engines:
            sa.event.listen(engine, 'before_cursor_execute', self._refuse)
        try:
            yield self
        finally:
            self.down.clear()
            for engine in engines:
                sa.event.remove(engine, 'before_cursor_execute',
                                self._refuse)


@pytest.fixture(params=['refused', 'restarting'])
def outage(db, request):
    error = _restarting if request.param == 'restarting' else \
        (lambda: db_exc.DBConnectionError('injected: database away'))
    with Outage(error).installed() as fault:
        yield fault


def test_api_answers_503_with_retry_after_while_the_database_is_away(
        rpc, outage):
    client = ApiClient(api_app.build_app(rpc))
    outage.down.set()
    response = client.get('/v1/nodes')
    assert response.status_code == 503
    assert response.headers['Retry-After'] == '5'
    assert error_of(response) == \
        'The database cannot be reached; please retry.'
    outage.down.clear()
    assert client.get('/v1/nodes').status_code == 200


def test_outcome_written_and_lock_freed_once_the_database_is_back(
        conductor, context, make_node, outage):
    node = make_node(provision_state=states.DEPLOYING,
                     target_provision_state=states.ACTIVE)
    with conductor.acquire(context, node.uuid, purpose='deploy') as task:
        task.process_event('done', save=False)
        outage.down.set()
        threading.Timer(1.0, outage.down.clear).start()
    # The release waited for the database instead of giving up.
    assert outage.refused >= 1
    stored = nodes_db.get_node(node.id)
    assert stored.provision_state == states.ACTIVE
    assert stored.reservation is None


def test_a_save_during_the_outage_is_not_lost(conductor, context,
                                              make_node, outage):
    node = make_node()
    with conductor.acquire(context, node.uuid) as task:
        task.node.extra = {'kept': True}
        outage.down.set()
        threading.Timer(0.5, outage.down.clear).start()
        task.save()
    wait_for(lambda: nodes_db.get_node(node.id).reservation is None,
             timeout=5)
    assert nodes_db.get_node(node.id).extra == {'kept': True}


def test_an_outage_longer_than_the_limit_gives_up(conductor, context,
                                                  make_node, outage):
    node = make_node()
    outage.down.set()
    with pytest.raises(db_session.OUTAGE_ERRORS):
        db_session.through_outage(lambda: nodes_db.get_node(node.id),
                                  'read node', timeout=0.3)


def test_an_outage_in_an_rpc_method_goes_back_as_503(conductor, context,
                                                     make_node, outage):
    """Not a RemoteError wrapping SQLAlchemy's error (the API's 500):
    what the RPC dispatcher sends back is DatabaseUnavailable."""
    from ironside.common import exception
    from ironside.common import rpc_base
    node = make_node()
    outage.down.set()
    with pytest.raises(rpc_base.ExpectedException) as caught:
        conductor.update_node(context, node.uuid, {'extra': {'a': 1}})
    sent = caught.value.exc_info[1]
    assert isinstance(sent, exception.DatabaseUnavailable)
    assert sent.code == 503
