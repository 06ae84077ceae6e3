"""Vendor passthru through the real clients: ``openstack baremetal node
passthru`` / ``driver passthru`` (python-ironicclient) and openstacksdk's
node vendor passthru calls, against a real Ironside running the fake
vendor interface's methods."""

from __future__ import annotations

import ast

import pytest

from tests.functional.acceptance.conftest import BOTH_DEPLOYMENTS
from tests.functional.acceptance.conftest import unique
from tests.utils import wait_for

pytestmark = [pytest.mark.functional, BOTH_DEPLOYMENTS]


def _node(sdk):
    return sdk.baremetal.create_node(
        driver='fake-hardware', name=unique('vendor'),
        resource_class='baremetal')


def _first_method_outcome(sdk, node_id):
    return sdk.baremetal.get_node(node_id).driver_internal_info.get(
        'fake_vendor')


def test_cli_node_passthru_list_and_call(cli, sdk):
    node = _node(sdk)
    listed = {m['Name']: m for m in cli('node', 'passthru', 'list',
                                        node.name, '-f', 'json')}
    assert set(listed) == {'first_method', 'second_method', 'fake_log'}
    assert listed['first_method']['Async'] is True
    assert listed['first_method']['Supported HTTP methods'] == 'POST'
    assert listed['fake_log']['Response is attachment'] is True
    # Asynchronous: accepted, and the method runs afterwards.
    out = cli('node', 'passthru', 'call', node.name, 'first_method',
              '--arg', 'bar=baz')
    assert out.strip() == ''
    assert wait_for(lambda: _first_method_outcome(sdk, node.id),
                    interval=0.1) == {
        'first_method': {'bar': 'baz', 'result': True}}
    # Synchronous: the CLI prints what the method returned.
    out = cli('node', 'passthru', 'call', node.name, 'second_method',
              '--arg', 'bar=kazoo', '--http-method', 'POST')
    assert ast.literal_eval(out.strip()) == {
        'http_method': 'POST', 'bar': 'kazoo', 'result': True,
        'first_method': {'bar': 'baz', 'result': True}}
    failure = cli('node', 'passthru', 'call', node.name, 'nope',
                  check=False)
    assert failure.code == 1
    assert 'No handler for method nope' in failure.stderr
    failure = cli('node', 'passthru', 'call', node.name, 'first_method',
                  check=False)
    assert "Parameter 'bar' not passed to method 'first_method'." in \
        failure.stderr


def test_cli_driver_passthru_list_and_call(cli):
    listed = cli('driver', 'passthru', 'list', 'fake-hardware', '-f',
                 'json')
    # (ironicclient labels these columns by field name)
    assert {m['name']: m['async'] for m in listed} == {
        'first_method': False, 'second_method': True}
    # An asynchronous method: accepted, nothing to show. (ironicclient's
    # "driver passthru call" cannot show a synchronous method's JSON
    # object: it reads it as a driver to load; the SDK test and the unit
    # tests read those answers.)
    out = cli('driver', 'passthru', 'call', 'fake-hardware',
              'second_method', '--arg', 'bar=baz')
    assert out.strip() == ''
    failure = cli('driver', 'passthru', 'call', 'fake-hardware',
                  'second_method', check=False)
    assert "Parameter 'bar' not passed to method 'second_method'." in \
        failure.stderr
    failure = cli('driver', 'passthru', 'call', 'fake-hardware',
                  'first_method', '--http-method', 'GET', check=False)
    assert 'The method first_method does not support HTTP GET' in \
        failure.stderr


def test_sdk_node_vendor_passthru(sdk):
    node = _node(sdk)
    methods = sdk.baremetal.list_node_vendor_passthru(node)
    assert methods['second_method']['http_methods'] == ['GET', 'POST']
    response = sdk.baremetal.call_node_vendor_passthru(
        node, 'POST', 'first_method', {'bar': 'qux'})
    assert response.status_code == 202
    assert wait_for(lambda: _first_method_outcome(sdk, node.id),
                    interval=0.1) == {
        'first_method': {'bar': 'qux', 'result': False}}
    response = sdk.baremetal.call_node_vendor_passthru(
        node, 'POST', 'second_method', {'bar': 'kazoo'})
    assert response.status_code == 200
    assert response.json() == {
        'http_method': 'POST', 'bar': 'kazoo', 'result': True,
        'first_method': {'bar': 'qux', 'result': False}}
    response = sdk.baremetal.call_node_vendor_passthru(node, 'GET',
                                                       'fake_log')
    assert response.text == 'fake BMC log of node %s\n' % node.id
