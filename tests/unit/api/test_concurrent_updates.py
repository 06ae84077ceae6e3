"""Concurrent read-modify-write requests lose nothing (issue 17, finding 1).

Before the compare-and-set, each PATCH sent its whole ``extra`` computed
from what it read, and the last write won: ten PATCHes answered 200 and
one key was kept. Now a 200 means the change is stored and the rest are
409, over HTTP against the API and an in-process conductor.

A node's data fields are merged (issue 26): concurrent PATCHes of
different keys all land with 200, and PATCHes that really conflict (a
``remove`` of a key another one removed) fail as they would one after
another.
"""

from __future__ import annotations

import concurrent.futures
import json
import urllib.error
import urllib.request

import pytest

from ironside.db import nodes as nodes_db
from tests.functional.fixtures import clients

WRITERS = 16


@pytest.fixture
def endpoint(rpc):
    with clients.serve_api(rpc) as url:
        yield url


def _request(method: str, url: str, body=None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        'Content-Type': 'application/json',
        'X-OpenStack-Ironic-API-Version': '1.115'})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read() or b'{}')
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b'{}')


def _storm(url: str) -> dict[str, int]:
    """WRITERS concurrent ``add /extra/k<i>``; the status of each key."""
    def add(i: int) -> tuple[str, int]:
        status, _ = _request('PATCH', url, [
            {'op': 'add', 'path': '/extra/k%d' % i, 'value': i}])
        return 'k%d' % i, status
    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        return dict(pool.map(add, range(WRITERS)))


def _check(statuses: dict[str, int], extra: dict) -> None:
    assert set(statuses.values()) <= {200, 409}, statuses
    stored = {key for key, status in statuses.items() if status == 200}
    assert stored, 'no PATCH succeeded'
    assert stored <= set(extra), (
        'acknowledged but lost: %s' % sorted(stored - set(extra)))
    assert set(extra) <= set(statuses)


@pytest.mark.parametrize('resource', ['nodes', 'ports', 'chassis'])
def test_every_acknowledged_patch_is_stored(endpoint, resource):
    status, node = _request('POST', endpoint + '/v1/nodes',
                            {'driver': 'fake-hardware', 'name': 'cas'})
    assert status == 201
    if resource == 'nodes':
        url = endpoint + '/v1/nodes/' + node['uuid']
    elif resource == 'ports':
        status, port = _request('POST', endpoint + '/v1/ports', {
            'node_uuid': node['uuid'], 'address': '52:54:00:00:00:01'})
        assert status == 201
        url = endpoint + '/v1/ports/' + port['uuid']
    else:
        status, chassis = _request('POST', endpoint + '/v1/chassis', {})
        assert status == 201
        url = endpoint + '/v1/chassis/' + chassis['uuid']
    statuses = _storm(url)
    status, shown = _request('GET', url)
    assert status == 200
    _check(statuses, shown['extra'])
    if resource == 'nodes':
        assert set(statuses.values()) == {200}, statuses
        assert shown['extra'] == {'k%d' % i: i for i in range(WRITERS)}


def _node(endpoint: str, **fields) -> str:
    status, node = _request('POST', endpoint + '/v1/nodes',
                            {'driver': 'fake-hardware', **fields})
    assert status == 201, node
    return endpoint + '/v1/nodes/' + node['uuid']


def _at_once(url: str, patches: list[list[dict]]) -> list[tuple[int, dict]]:
    with concurrent.futures.ThreadPoolExecutor(len(patches)) as pool:
        return list(pool.map(lambda p: _request('PATCH', url, p), patches))


def test_a_remove_of_a_key_gone_meanwhile_fails_and_writes_nothing(
        endpoint):
    """Every PATCH removes the same key and adds its own: one finds the
    key and lands whole; the others find it gone (400, as they would one
    after another), and none of their keys is written."""
    url = _node(endpoint, extra={'a': 1, 'b': 2})
    answers = _at_once(url, [[{'op': 'remove', 'path': '/extra/a'},
                              {'op': 'add', 'path': '/extra/by%d' % i,
                               'value': i}] for i in range(WRITERS)])
    statuses = [status for status, _ in answers]
    assert sorted(statuses) == [200] + [400] * (WRITERS - 1), answers
    assert all('/extra/a' in body['error_message']
               for status, body in answers if status == 400)
    _, shown = _request('GET', url)
    assert shown['extra'] == {'b': 2, 'by%d' % statuses.index(200):
                              statuses.index(200)}


def test_a_patch_of_a_node_a_conductor_holds_names_the_holder(endpoint):
    """409 naming the host, after the conductor's own lock waits."""
    url = _node(endpoint, extra={})
    nodes_db.reserve_node('conductor-busy', url.rsplit('/', 1)[1])
    status, body = _request('PATCH', url, [
        {'op': 'add', 'path': '/extra/k', 'value': 1}])
    assert status == 409
    assert 'conductor-busy' in body['error_message']
    _, shown = _request('GET', url)
    assert shown['extra'] == {}


def test_a_stale_write_is_refused_with_409_and_changes_nothing(
        endpoint, rpc):
    """The mechanism, without threads: a write computed from a value
    another request has since changed."""
    status, node = _request('POST', endpoint + '/v1/nodes',
                            {'driver': 'fake-hardware',
                             'extra': {'a': 1}})
    assert status == 201
    rpc.update_node(None, node['uuid'], {'extra': {'a': 1, 'b': 2}})
    from ironside.common import exception
    with pytest.raises(exception.ChangedMeanwhile) as caught:
        rpc.update_node(None, node['uuid'], {'extra': {'a': 1, 'c': 3}},
                        expected={'extra': {'a': 1}})
    assert 'extra' in str(caught.value)
    _, shown = _request('GET', endpoint + '/v1/nodes/' + node['uuid'])
    assert shown['extra'] == {'a': 1, 'b': 2}
