"""The conductor RPC client gives up in bounded time (issue 26), here
over oslo.messaging's in-memory driver; tests/functional/faults/
test_rpc_bounded_wait.py stops a real RabbitMQ."""

from __future__ import annotations

import re
import time

import pytest

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import rpc


@pytest.fixture
def fake_transport(conf):
    conf.set(transport_url='fake://guest:secret@broker.example:5672/')
    rpc.cleanup()
    yield
    rpc.cleanup()


def test_a_call_no_conductor_answers_is_refused_in_time(conf,
                                                        fake_transport):
    conf.set('api', rpc_response_timeout=0.3)
    client = rpc.get_client(rpc.conductor_target()).prepare(server='c1')
    started = time.monotonic()
    with pytest.raises(exception.ConductorUnreachable) as err:
        client.call(ironside_context.RequestContext(), 'get_boot_device')
    assert time.monotonic() - started < 2
    assert err.value.code == 503
    assert re.fullmatch(
        r'Conductor c1 can not be reached at message broker '
        r'broker\.example:5672 \(no answer within 0\.\ds\); please retry\.',
        err.value.message), err.value.message
    assert 'secret' not in err.value.message


def test_a_longer_timeout_is_the_callers(conf, fake_transport):
    conf.set('api', rpc_response_timeout=0.2)
    client = rpc.get_client(rpc.conductor_target()).prepare(
        server='c1', timeout=0.6)
    started = time.monotonic()
    with pytest.raises(exception.ConductorUnreachable):
        client.call(ironside_context.RequestContext(), 'get_boot_device')
    assert 0.6 <= time.monotonic() - started < 2
