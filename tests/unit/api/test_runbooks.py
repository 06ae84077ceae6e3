"""Runbooks (1.92): CRUD, and running one by manual cleaning."""

from __future__ import annotations

import pytest

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of

BIOS_STEP = {'interface': 'bios', 'step': 'apply_configuration',
             'args': {'settings': [{'name': 'ProcTurboMode',
                                    'value': 'Disabled'}]},
             'order': 1}


def _runbook(**values):
    body = {'name': 'CUSTOM_TUNE', 'steps': [dict(BIOS_STEP)]}
    body.update(values)
    return body


def test_runbook_crud(api):
    response = api.post('/v1/runbooks', _runbook(extra={'team': 'hw'}))
    assert response.status_code == 201, response.text
    created = response.json
    assert response.headers['location'].endswith(
        '/v1/runbooks/%s' % created['uuid'])
    assert created['name'] == 'CUSTOM_TUNE'
    assert created['steps'] == [BIOS_STEP]
    assert created['public'] is False
    assert created['owner'] is None
    assert created['disable_ramdisk'] is False
    assert created['extra'] == {'team': 'hw'}
    for ident in (created['uuid'], 'CUSTOM_TUNE'):
        assert api.get('/v1/runbooks/%s' % ident).json['uuid'] == \
            created['uuid']
    listed = api.get('/v1/runbooks').json['runbooks']
    assert listed == [{'uuid': created['uuid'], 'name': 'CUSTOM_TUNE',
                       'links': created['links']}]
    assert 'steps' in api.get('/v1/runbooks', detail='True').json[
        'runbooks'][0]
    assert set(api.get('/v1/runbooks/CUSTOM_TUNE', fields='name,public'
                       ).json) == {'name', 'public', 'links'}
    response = api.patch('/v1/runbooks/CUSTOM_TUNE', [
        {'op': 'replace', 'path': '/name', 'value': 'CUSTOM_TUNED'},
        {'op': 'add', 'path': '/steps/-', 'value': {
            'interface': 'bios', 'step': 'factory_reset', 'order': 0}},
        {'op': 'replace', 'path': '/public', 'value': True}])
    assert response.status_code == 200, response.text
    patched = response.json
    assert patched['name'] == 'CUSTOM_TUNED'
    assert [s['step'] for s in patched['steps']] == [
        'factory_reset', 'apply_configuration']
    assert patched['public'] is True
    response = api.patch('/v1/runbooks/CUSTOM_TUNED', [
        {'op': 'replace', 'path': '/owner', 'value': 'p1'}])
    assert response.status_code == 400
    assert 'There cannot be an owner for a public runbook' in \
        error_of(response)
    response = api.patch('/v1/runbooks/CUSTOM_TUNED', [
        {'op': 'replace', 'path': '/owner', 'value': 'p1'},
        {'op': 'replace', 'path': '/public', 'value': False}])
    assert response.status_code == 200, response.text
    assert response.json['owner'] == 'p1'
    assert api.delete('/v1/runbooks/CUSTOM_TUNED').status_code == 204
    assert api.get('/v1/runbooks/CUSTOM_TUNED').status_code == 404


@pytest.mark.parametrize('body, message', [
    (_runbook(name='a/b'), "runbook: 'a/b' does not match"),
    (_runbook(steps=[]), 'runbook: [] should be non-empty'),
    (_runbook(steps=[{'interface': 'bios', 'step': 'x'}]),
     "'order' is a required property"),
    (_runbook(steps=[{'interface': 'nope', 'step': 'x', 'order': 1}]),
     "'nope' is not one of"),
    (_runbook(steps=[BIOS_STEP, BIOS_STEP]), 'Duplicate deploy steps'),
    (_runbook(traits=['CUSTOM_A']), 'Additional properties are not allowed'),
])
def test_runbook_refusals(api, body, message):
    response = api.post('/v1/runbooks', body)
    assert response.status_code == 400
    assert message in error_of(response)


def test_names_before_1_112_are_traits(api):
    response = api.post('/v1/runbooks', _runbook(name='tune'),
                        version='1.111')
    assert response.status_code == 400
    assert "runbook: 'tune' is not valid" in error_of(response)
    created = api.post('/v1/runbooks', _runbook(name='tune',
                                                description='Tune it'))
    assert created.status_code == 201, created.text
    assert created.json['description'] == 'Tune it'
    assert created.json['traits'] == []
    shown = api.get('/v1/runbooks/tune', version='1.111').json
    assert 'traits' not in shown and 'description' not in shown
    response = api.post('/v1/runbooks', _runbook(
        name='CUSTOM_OLD', description='x'), version='1.111')
    assert response.status_code == 400


def test_runbook_traits(api):
    api.post('/v1/runbooks', _runbook())
    path = '/v1/runbooks/CUSTOM_TUNE/traits'
    assert api.get(path).json == {'traits': []}
    assert api.get(path, version='1.111').status_code == 404
    assert api.put(path + '/CUSTOM_A').status_code == 204
    assert api.put(path, {'traits': ['CUSTOM_C', 'CUSTOM_B']}
                   ).status_code == 204
    assert api.get(path).json == {'traits': ['CUSTOM_B', 'CUSTOM_C']}
    assert api.put(path + '/CUSTOM_A').status_code == 204
    assert api.delete(path + '/CUSTOM_B').status_code == 204
    assert api.delete(path + '/CUSTOM_NONE').status_code == 204
    assert api.get('/v1/runbooks/CUSTOM_TUNE').json['traits'] == [
        'CUSTOM_A', 'CUSTOM_C']
    assert api.put(path + '/lower').status_code == 400
    assert api.put(path, {'nope': 1}).status_code == 400
    assert api.delete(path).status_code == 204
    assert api.get(path).json == {'traits': []}
    assert api.get('/v1/runbooks/CUSTOM_NONE/traits').status_code == 404


def test_runbook_conflicts_versions_and_masking(api):
    # The one list of secret words (common.secrets), as in node views.
    step = dict(BIOS_STEP, args={'settings': [], 'password': 'secret',
                                 'bmc_credential': 'c'})
    created = api.post('/v1/runbooks', _runbook(steps=[step])).json
    assert created['steps'][0]['args'] == {'settings': [],
                                           'password': '******',
                                           'bmc_credential': '******'}
    response = api.post('/v1/runbooks', _runbook())
    assert response.status_code == 409
    assert error_of(response) == ('A runbook with name CUSTOM_TUNE '
                                  'already exists.')
    assert api.get('/v1/runbooks', version='1.91').status_code == 404
    assert api.get('/v1/runbooks/CUSTOM_TUNE',
                   version='1.91').status_code == 404
    assert api.post('/v1/runbooks', _runbook(name='CUSTOM_B'),
                    version='1.91').status_code == 405
    for verb in ('get', 'patch', 'delete'):
        response = api.request(verb.upper(), '/v1/runbooks/CUSTOM_NONE',
                               body=[] if verb == 'patch' else None)
        assert response.status_code == 404, verb
        assert error_of(response) == ('Runbook with name or uuid '
                                      'CUSTOM_NONE could not be found.')


def _state(uuid):
    return nodes_db.get_node(uuid).provision_state


def test_running_a_runbook_by_manual_cleaning(api, create_node):
    """Before 1.112 (the SDK's node version) a node trait named like the
    runbook approves it; from 1.112 one of the runbook's own traits."""
    runbook = api.post('/v1/runbooks', _runbook()).json
    uuid = create_node()['uuid']
    api.put('/v1/nodes/%s/states/provision' % uuid, {'target': 'manage'})
    utils.wait_for(lambda: _state(uuid) == 'manageable', what='manageable')
    path = '/v1/nodes/%s/states/provision' % uuid
    body = {'target': 'clean', 'runbook': 'CUSTOM_TUNE'}
    response = api.put(path, body, version='1.109')
    assert response.status_code == 400
    assert error_of(response) == (
        'This runbook has not been approved for use on this node %s. '
        'Please ask an administrator to add it to your node traits.' % uuid)
    assert api.put('/v1/nodes/%s/traits/CUSTOM_TUNE' % uuid
                   ).status_code == 204
    assert api.put(path, body, version='1.91').status_code == 406
    response = api.put(path, dict(body, clean_steps=[
        {'interface': 'bios', 'step': 'factory_reset'}]), version='1.109')
    assert response.status_code == 400
    assert 'either "clean_steps" or a runbook' in error_of(response)
    response = api.put(path, {'target': 'clean', 'runbook': 'CUSTOM_NOPE'})
    assert response.status_code == 404
    # At 1.112 and later the runbook's own traits decide.
    response = api.put(path, body)
    assert response.status_code == 400
    assert error_of(response) == (
        'Runbook %s has no traits configured. Please ask an administrator '
        'to add traits to the runbook.' % runbook['uuid'])
    api.put('/v1/runbooks/CUSTOM_TUNE/traits/CUSTOM_RACK_7')
    response = api.put(path, body)
    assert response.status_code == 400
    assert "does not have any of the runbook's traits" in error_of(response)

    def bios():
        return {(b['name'], b['value']) for b in api.get(
            '/v1/nodes/%s/bios' % uuid).json['bios']}

    # By UUID as well as by name, at the SDK's version.
    response = api.put(path, dict(body, runbook=runbook['uuid']),
                       version='1.109')
    assert response.status_code == 202, response.text
    utils.wait_for(lambda: bios() == {('ProcTurboMode', 'Disabled')}
                   and _state(uuid) == 'manageable',
                   what='the runbook to run and cleaning to end')
    assert nodes_db.get_node(uuid).last_error is None
    # And at the latest, once the node has one of the runbook's traits.
    api.put('/v1/nodes/%s/traits/CUSTOM_RACK_7' % uuid)
    api.patch('/v1/runbooks/CUSTOM_TUNE', [{
        'op': 'replace', 'path': '/steps/0/args/settings/0/value',
        'value': 'Enabled'}])
    response = api.put(path, body)
    assert response.status_code == 202, response.text
    utils.wait_for(lambda: bios() == {('ProcTurboMode', 'Enabled')}
                   and _state(uuid) == 'manageable',
                   what='the runbook to run again')


def test_a_runbook_needs_clean_or_service(api, create_node):
    api.post('/v1/runbooks', _runbook())
    uuid = create_node()['uuid']
    api.put('/v1/nodes/%s/traits/CUSTOM_TUNE' % uuid)
    api.put('/v1/nodes/%s/states/provision' % uuid, {'target': 'manage'})
    utils.wait_for(lambda: _state(uuid) == 'manageable', what='manageable')
    response = api.put('/v1/nodes/%s/states/provision' % uuid,
                       {'target': 'provide', 'runbook': 'CUSTOM_TUNE'},
                       version='1.109')
    assert response.status_code == 400
    assert error_of(response) == (
        'A runbook can only be provided when setting target provision '
        'state to clean or service')
