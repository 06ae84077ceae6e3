"""Vendor methods: the decorators, their discovery on vendor interfaces,
and the conductor calling them, directly and over both RPC transports."""

from __future__ import annotations

import logging

import oslo_messaging as messaging
import pytest

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import json_rpc
from ironside.common import rpc
from ironside.common import rpc_base
from ironside.conductor import rpcapi as rpcapi_module
from ironside.db import nodes as nodes_db
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers import vendor_defs
from tests import utils


class Vendor(base.VendorInterface):
    def get_properties(self):
        return {}

    @base.passthru(['post', 'Get'], description='Say hello')
    def hello(self, task, http_method, name='world'):
        return 'hello %s' % name

    @base.passthru(['DELETE'], method='forget', async_call=False,
                   attach=True, require_exclusive_lock=False)
    @step_defs.clean_step(priority=0)
    def forget_everything(self, task, http_method=None):
        raise RuntimeError('the BMC said no')

    @base.driver_passthru(['POST'], async_call=False)
    def census(self, context, http_method):
        return {'nodes': 0}


class MoreVendor(Vendor):
    @base.passthru(['PUT'])
    def extra(self, task, http_method):
        return None


def test_decorators_record_ironic_metadata():
    routes = Vendor().vendor_routes
    assert set(routes) == {'hello', 'forget'}
    hello = dict(routes['hello'])
    assert hello.pop('func').__name__ == 'hello'
    assert hello == {'http_methods': ['POST', 'GET'], 'async': True,
                     'description': 'Say hello', 'attach': False,
                     'require_exclusive_lock': True}
    assert {k: v for k, v in routes['forget'].items() if k != 'func'} == {
        'http_methods': ['DELETE'], 'async': False, 'description': '',
        'attach': True, 'require_exclusive_lock': False}
    driver = Vendor().driver_routes
    assert set(driver) == {'census'}
    assert 'require_exclusive_lock' not in driver['census']


def test_a_vendor_method_may_be_a_step_too():
    steps = Vendor().get_clean_steps(None)
    assert [s['step'] for s in steps] == ['forget_everything']


def test_subclasses_inherit_and_add_methods():
    assert set(MoreVendor().vendor_routes) == {'hello', 'forget', 'extra'}
    assert set(Vendor().vendor_routes) == {'hello', 'forget'}


def test_the_plugin_api_is_where_ironic_has_it():
    assert base.passthru is vendor_defs.passthru
    assert base.driver_passthru is vendor_defs.driver_passthru


def test_unknown_http_methods_are_refused_when_declared():
    with pytest.raises(exception.InvalidParameterValue) as err:
        vendor_defs.passthru(['FETCH'])(lambda self, task: None)
    assert 'HTTP methods must be among GET, PUT, POST, PATCH, DELETE' in \
        str(err.value)


def test_other_errors_become_vendor_passthru_exceptions():
    func = Vendor().vendor_routes['forget']['func']
    with pytest.raises(exception.VendorPassthruException) as err:
        func(None, http_method='DELETE')
    assert err.value.code == 500
    assert str(err.value) == 'the BMC said no'


@pytest.fixture
def node(conductor):
    return nodes_db.create_node(dict(utils.fake_node_values(),
                                     vendor_interface='fake'))


@pytest.fixture
def context():
    return ironside_context.get_admin_context()


def test_an_exclusive_method_refuses_a_locked_node(rpc, node, context):
    nodes_db.reserve_node('other-conductor', node.uuid)
    with pytest.raises(exception.NodeLocked):
        rpc.vendor_passthru(context, node.uuid, 'first_method', 'POST',
                            {'bar': 'baz'})
    # A method that needs no exclusive lock runs all the same.
    answer = rpc.vendor_passthru(context, node.uuid, 'second_method',
                                 'post', {'bar': 'kazoo'})
    assert answer == {'return': {'http_method': 'POST', 'bar': 'kazoo',
                                 'result': True, 'first_method': None},
                      'async': False, 'attach': False}
    assert nodes_db.get_node(node.uuid).reservation == 'other-conductor'


def test_an_async_method_holds_the_lock_while_it_runs(conductor, node,
                                                      context, conf):
    values = {'driver_info': {'fake_step_delay': 0.5}}
    utils.update_node(node.uuid, values)
    answer = conductor.vendor_passthru(context, node.uuid, 'first_method',
                                       'POST', {'bar': 'baz'})
    assert answer == {'return': None, 'async': True, 'attach': False}
    assert nodes_db.get_node(node.uuid).reservation == 'test-conductor'
    utils.wait_for(lambda: nodes_db.get_node(node.uuid).reservation is None)
    assert nodes_db.get_node(node.uuid).driver_internal_info[
        'fake_vendor'] == {'first_method': {'bar': 'baz', 'result': True}}


def test_driver_methods_of_a_type(conductor, context):
    with pytest.raises(rpc_base.ExpectedException) as err:
        conductor.get_driver_vendor_passthru_methods(context, 'nope')
    assert isinstance(err.value.exc_info[1], exception.DriverNotFound)
    methods = conductor.get_driver_vendor_passthru_methods(
        context, 'fake-hardware')
    assert methods['first_method'] == {
        'http_methods': ['POST'], 'async': False, 'attach': False,
        'description': 'Test if the value of bar is baz'}
    assert methods['second_method']['async'] is True


def _exercise(api, node, context):
    """What the API asks, through ``api``: answers and an error."""
    answer = api.vendor_passthru(context, node.uuid, 'second_method', 'GET',
                                 {'bar': 'kazoo'})
    assert answer['return']['result'] is True
    assert answer['async'] is False
    assert set(api.get_node_vendor_passthru_methods(context, node.uuid)) \
        == {'first_method', 'second_method', 'fake_log'}
    assert api.driver_vendor_passthru(
        context, 'fake-hardware', 'first_method', 'POST',
        {'bar': 'baz'})['return'] == {'http_method': 'POST', 'bar': 'baz',
                                      'result': True}
    assert 'first_method' in api.get_driver_vendor_passthru_methods(
        context, 'fake-hardware')
    with pytest.raises(exception.InvalidParameterValue) as err:
        api.vendor_passthru(context, node.uuid, 'nope', 'POST', {})
    assert err.value.message == 'No handler for method nope'
    assert api.vendor_passthru(context, node.uuid, 'fake_log', 'GET',
                               {})['return'].startswith('fake BMC log')


def test_over_json_rpc(conductor, node, context, conf):
    server = json_rpc.JsonRpcServer(conductor, '127.0.0.1', 0)
    server.start()
    try:
        conf.set(rpc_transport='json-rpc')
        api = rpcapi_module.ConductorAPI(
            json_rpc_address=lambda host: ('127.0.0.1', server.port))
        _exercise(api, node, context)
    finally:
        server.stop()


def test_over_oslo_messaging(conductor, node, context, conf, caplog):
    """The error the conductor raises on purpose (rpc_base's
    ExpectedException, as oslo.messaging's to its server) comes back as
    itself and is not logged as a failure of the server."""
    conf.set(rpc_transport='oslo',
             transport_url='fake://guest:secret@broker.example:5672/')
    rpc.cleanup()
    server = rpc.get_server(messaging.Target(
        topic=rpc_base.TOPIC, server='test-conductor'), [conductor])
    server.start()
    try:
        with caplog.at_level(logging.ERROR, logger='oslo_messaging'):
            _exercise(rpcapi_module.ConductorAPI(), node, context)
        assert [r.getMessage() for r in caplog.records
                if r.name.startswith('oslo_messaging')] == []
    finally:
        server.stop()
        server.wait()
        rpc.cleanup()
