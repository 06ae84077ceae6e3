"""Concurrent PATCHes of different keys of one idle node all land
(issue 26): ``ironside-api`` and a conductor over RabbitMQ and
PostgreSQL, as the issue found them (38-88 % refused with 409 before).
"""

from __future__ import annotations

import concurrent.futures
import time

import pytest

from tests.functional.fixtures import ironside_process
from tests.functional.fixtures import services

pytestmark = [pytest.mark.functional, services.OVER_RABBITMQ]

PATCHES = 200


@pytest.fixture
def api(tmp_path):
    yield from ironside_process.serve_split(tmp_path, 'postgresql')


def test_concurrent_patches_of_different_keys_all_land(api):
    status, node = api.api('POST', '/v1/nodes', {'driver': 'fake-hardware',
                                                 'name': 'edited'})
    assert status == 201, node
    path = '/v1/nodes/' + node['uuid']

    def add(i: int) -> tuple[int, object]:
        return api.api('PATCH', path, [{'op': 'add', 'path': '/extra/k%d' % i,
                                        'value': i}])

    began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(PATCHES) as pool:
        answers = list(pool.map(add, range(PATCHES)))
    took = time.monotonic() - began
    refused = [(i, answer) for i, answer in enumerate(answers)
               if answer[0] != 200]
    assert refused == [], refused[:5]
    status, shown = api.api('GET', path)
    assert status == 200
    assert shown['extra'] == {'k%d' % i: i for i in range(PATCHES)}
    assert took < 30, '%d PATCHes took %.1f s' % (PATCHES, took)
