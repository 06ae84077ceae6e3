"""Every route x the seven personas of Ironic's RBAC tests, against the
table of what Ironic 39 answers them (tests/data/ironic_policy_personas
.yaml, written from Ironic's policy defaults).

In-process, under ``auth_strategy = keystone`` with the identity headers
keystonemiddleware sets. A cell is ``ok`` when the answer is neither 401,
403 nor 404 (the policy let the request through; what the route then
does is other tests' business), else the status. One test per route
family, each on objects of its own.
"""

from __future__ import annotations

import itertools
import pathlib
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from ironside.db import allocations as allocations_db
from ironside.db import history as history_db
from ironside.db import inspection_rules as inspection_rules_db
from ironside.db import nodes as nodes_db
from ironside.drivers import base as drivers_base
from tests import utils
from tests.unit.api.conftest import identity

TABLE = yaml.safe_load((pathlib.Path(__file__).parents[2] / 'data' /
                        'ironic_policy_personas.yaml').read_text())
PERSONAS = TABLE.pop('personas')
OWNER = 'p1'
HEADERS = {
    'system_admin': identity(['admin', 'manager', 'member', 'reader'],
                             system=True),
    'system_member': identity(['member', 'reader'], system=True),
    'system_reader': identity(['reader'], system=True),
    'project_admin': identity(['admin', 'manager', 'member', 'reader'],
                              project=OWNER),
    'project_member': identity(['member', 'reader'], project=OWNER),
    'project_reader': identity(['reader'], project=OWNER),
    'other_project': identity(['admin', 'manager', 'member', 'reader'],
                              project='p9'),
}
ADMIN = HEADERS['system_admin']
_PLACEHOLDER = re.compile(r'{(\w+)}')
VIF = 'vif-walker'
TRAIT = 'CUSTOM_WALK'


class Objects:
    """One of each object the routes name, made by a system admin."""

    def __init__(self, api) -> None:
        self.api = api
        self.names: dict[str, str] = {
            'driver': 'fake-hardware', 'conductor': 'test-conductor',
            'trait': TRAIT, 'vif': VIF, 'indicator': 'led@system',
            'bios_setting': 'walker'}
        self.names['node'] = self.node()
        node = self.names['node']
        for kind in ('port', 'portgroup', 'chassis', 'allocation',
                     'deploy_template', 'volume_connector', 'volume_target',
                     'runbook', 'inspection_rule'):
            self.names[kind] = self.make(kind)
        self.request('PUT', '/v1/nodes/%s/traits/%s' % (node, TRAIT))
        self.request('POST', '/v1/nodes/%s/vifs' % node, {'id': VIF})
        row = nodes_db.get_node(node)
        history_db.record(row.id, 'walked', 'test')
        self.names['history_event'] = self.request(
            'GET', '/v1/nodes/%s/history' % node)['history'][0]['uuid']
        inspection_rules_db.store_inventory(row.id, {'cpu': {}}, {})
        allocations_db.attach_node(
            allocations_db.id_for(self.names['allocation']), row)

    def request(self, method: str, path: str, body: Any = None) -> Any:
        response = self.api.request(method, path, body=body, headers=ADMIN)
        assert response.status_code < 300, (method, path, response.text)
        return response.json if response.content else None

    def node(self) -> str:
        node = self.request('POST', '/v1/nodes', utils.fake_node_values(
            owner=OWNER))['uuid']
        utils.update_node(node, {
            'power_state': 'power off',
            'driver_internal_info': {drivers_base.BIOS_SETTINGS_KEY: {
                'walker': 'on'}}})
        return node

    def make(self, kind: str) -> str:
        """A new object of ``kind``; its UUID."""
        node = self.names['node']
        mac = _new_mac()
        name = 'CUSTOM_' + uuid.uuid4().hex[:8].upper()
        made = {
            'port': lambda: ('/v1/ports', {'node_uuid': node,
                                           'address': mac}),
            'portgroup': lambda: ('/v1/portgroups', {'node_uuid': node,
                                                     'address': mac}),
            'chassis': lambda: ('/v1/chassis', {}),
            'allocation': lambda: ('/v1/allocations', {
                'resource_class': 'walker', 'owner': OWNER}),
            'deploy_template': lambda: ('/v1/deploy_templates', {
                'name': name, 'steps': [{
                    'interface': 'deploy', 'step': 'deploy', 'args': {},
                    'priority': 10}]}),
            'volume_connector': lambda: ('/v1/volume/connectors', {
                'node_uuid': node, 'type': 'iqn',
                'connector_id': 'iqn.2026-11.org.example:' + name.lower()}),
            'volume_target': lambda: ('/v1/volume/targets', {
                'node_uuid': node, 'volume_type': 'iscsi',
                'boot_index': next(_BOOT_INDEXES),
                'volume_id': name}),
            'runbook': lambda: ('/v1/runbooks', {
                'name': name, 'owner': OWNER, 'steps': [{
                    'interface': 'deploy', 'step': 'erase_devices',
                    'args': {}, 'order': 0}]}),
            'inspection_rule': lambda: ('/v1/inspection_rules', {
                'actions': [{'op': 'log', 'args': {'msg': 'walked'}}]}),
        }[kind]
        path, body = made()
        return self.request('POST', path, body)['uuid']

    def path(self, template: str, names: dict[str, str]) -> str:
        return _PLACEHOLDER.sub(lambda m: names[m.group(1)], template)


# A node's volume targets need distinct boot indexes: drawn at random,
# two of the hundreds made here met.
_BOOT_INDEXES = itertools.count()


def _new_mac() -> str:
    return '52:54:00:%02x:%02x:%02x' % tuple(uuid.uuid4().bytes[:3])


# What each writing route is sent: valid, changing nothing later routes
# need (several personas send it in turn).
BODIES: dict[str, Callable[[dict[str, str]], Any]] = {
    'POST /v1/nodes': lambda names: utils.fake_node_values(),
    'PATCH /v1/nodes/{node}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'PUT /v1/nodes/{node}/maintenance': lambda names: {'reason': 'walk'},
    'PUT /v1/nodes/{node}/management/boot_device': lambda names: {
        'boot_device': 'pxe'},
    'PUT /v1/nodes/{node}/management/inject_nmi': lambda names: {},
    'PUT /v1/nodes/{node}/states/boot_mode': lambda names: {
        'target': 'uefi'},
    'PUT /v1/nodes/{node}/states/secure_boot': lambda names: {
        'target': False},
    'PUT /v1/nodes/{node}/states/power': lambda names: {
        'target': 'power off'},
    'PUT /v1/nodes/{node}/states/provision': lambda names: {
        'target': 'manage'},
    'PUT /v1/nodes/{node}/states/raid': lambda names: {
        'logical_disks': []},
    'PUT /v1/nodes/{node}/states/console': lambda names: {
        'enabled': False},
    'PUT /v1/nodes/{node}/management/indicators/{indicator}':
        lambda names: {'state': 'OFF'},
    'PUT /v1/nodes/{node}/traits': lambda names: {'traits': [TRAIT]},
    'POST /v1/nodes/{node}/vifs': lambda names: {'id': VIF},
    'POST /v1/nodes/{node}/vmedia': lambda names: {
        'device_type': 'cdrom', 'image_url': 'http://127.0.0.1/walk.iso'},
    'POST /v1/ports': lambda names: {'node_uuid': names['node'],
                                     'address': _new_mac()},
    'PATCH /v1/ports/{port}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'POST /v1/portgroups': lambda names: {'node_uuid': names['node'],
                                          'address': _new_mac()},
    'PATCH /v1/portgroups/{portgroup}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'POST /v1/chassis': lambda names: {},
    'PATCH /v1/chassis/{chassis}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'POST /v1/allocations': lambda names: {'resource_class': 'walker'},
    'PATCH /v1/allocations/{allocation}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'POST /v1/deploy_templates': lambda names: {
        'name': 'CUSTOM_' + uuid.uuid4().hex[:8].upper(), 'steps': [{
            'interface': 'deploy', 'step': 'deploy', 'args': {},
            'priority': 10}]},
    'PATCH /v1/deploy_templates/{deploy_template}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'POST /v1/volume/connectors': lambda names: {
        'node_uuid': names['node'], 'type': 'iqn',
        'connector_id': 'iqn.2026-11.org.example:' + uuid.uuid4().hex},
    'PATCH /v1/volume/connectors/{volume_connector}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'POST /v1/volume/targets': lambda names: {
        'node_uuid': names['node'], 'volume_type': 'iscsi',
        'boot_index': next(_BOOT_INDEXES),
        'volume_id': uuid.uuid4().hex},
    'PATCH /v1/volume/targets/{volume_target}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'POST /v1/runbooks': lambda names: {
        'name': 'CUSTOM_' + uuid.uuid4().hex[:8].upper(), 'steps': [{
            'interface': 'deploy', 'step': 'erase_devices', 'args': {},
            'order': 0}]},
    'PATCH /v1/runbooks/{runbook}': lambda names: [
        {'op': 'add', 'path': '/extra/persona', 'value': 'walked'}],
    'PUT /v1/runbooks/{runbook}/traits': lambda names: {'traits': [TRAIT]},
    'POST /v1/inspection_rules': lambda names: {
        'actions': [{'op': 'log', 'args': {'msg': 'walked'}}]},
    'PATCH /v1/inspection_rules/{inspection_rule}': lambda names: [
        {'op': 'replace', 'path': '/description', 'value': 'walked'}],
}


def _fresh(objects: Objects, kind: str) -> dict[str, str]:
    return {kind: objects.make(kind) if kind != 'node' else objects.node()}


def _allocated(objects: Objects) -> dict[str, str]:
    node = objects.node()
    allocation = objects.make('allocation')
    allocations_db.attach_node(allocations_db.id_for(allocation),
                               nodes_db.get_node(node))
    return {'node': node}


# What a DELETE consumes, made again before each persona sends it.
PREPARE: dict[str, Callable[[Objects], dict[str, str]]] = {
    'DELETE /v1/nodes/{node}': lambda o: _fresh(o, 'node'),
    'DELETE /v1/nodes/{node}/maintenance': lambda o: o.request(
        'PUT', '/v1/nodes/%s/maintenance' % o.names['node']) or {},
    'DELETE /v1/nodes/{node}/traits/{trait}': lambda o: o.request(
        'PUT', '/v1/nodes/%s/traits/%s' % (o.names['node'], TRAIT)) or {},
    'DELETE /v1/nodes/{node}/vifs/{vif}': lambda o: _attach_vif(o),
    'DELETE /v1/nodes/{node}/allocation': _allocated,
    'DELETE /v1/runbooks/{runbook}/traits/{trait}': lambda o: o.request(
        'PUT', '/v1/runbooks/%s/traits/%s' % (o.names['runbook'],
                                              TRAIT)) or {},
}
for _kind in ('port', 'portgroup', 'chassis', 'allocation',
              'deploy_template', 'volume_connector', 'volume_target',
              'runbook', 'inspection_rule'):
    _template = {'volume_connector': '/v1/volume/connectors/{%s}',
                 'volume_target': '/v1/volume/targets/{%s}',
                 'chassis': '/v1/chassis/{%s}'}.get(
        _kind, '/v1/%ss/{%%s}' % _kind) % _kind
    PREPARE['DELETE ' + _template] = lambda o, k=_kind: _fresh(o, k)


def _attach_vif(objects: Objects) -> dict[str, str]:
    node = objects.names['node']
    listed = objects.request('GET', '/v1/nodes/%s/vifs' % node)['vifs']
    if VIF not in [vif['id'] for vif in listed]:
        objects.request('POST', '/v1/nodes/%s/vifs' % node, {'id': VIF})
    return {}


def _outcome(status: int) -> Any:
    return status if status in (401, 403, 404) else 'ok'


def _routes(family: str) -> list[str]:
    """The family's routes, those that delete a whole collection last."""
    routes = list(TABLE[family])
    return sorted(routes, key=lambda route: route.startswith('DELETE') and
                  not route.endswith('}'))


@pytest.mark.parametrize('family', sorted(TABLE))
def test_personas_get_what_ironic_gives_them(api, keystone, family):
    objects = Objects(api)
    differences = []
    for route in _routes(family):
        method, template = route.split(' ', 1)
        for persona, expected in zip(PERSONAS, TABLE[family][route],
                                     strict=True):
            names = dict(objects.names)
            names.update(PREPARE.get(route, lambda o: {})(objects))
            body = BODIES.get(route, lambda n: None)(names)
            response = api.request(method, objects.path(template, names),
                                   body=body, headers=HEADERS[persona])
            if _outcome(response.status_code) != expected:
                differences.append('%s as %s: %s, Ironic %s (%s)' % (
                    route, persona, response.status_code, expected,
                    response.text[:200]))
    assert not differences, '\n'.join(differences)
