"""/v1/nodes/{node}/management/indicators (API 1.63), fake-hardware."""

from __future__ import annotations

from tests.unit.api.conftest import error_of


def _path(node, indicator=''):
    path = '/v1/nodes/%s/management/indicators' % node['uuid']
    return path + ('/' + indicator if indicator else '')


def test_list_get_and_set(api, create_node):
    node = create_node()
    listed = api.get(_path(node)).json['indicators']
    assert [(i['name'], i['component'], i['readonly']) for i in listed] == [
        ('led@chassis', 'chassis', False), ('led@system', 'system', False)]
    assert listed[1]['states'] == ['OFF', 'ON', 'BLINKING']
    assert listed[1]['links'][0]['href'].endswith(
        '/management/indicators/led@system')
    assert api.get(_path(node, 'led@system')).json == {'state': 'OFF'}
    response = api.put(_path(node, 'led@system'), {'state': 'BLINKING'})
    assert response.status_code == 204
    assert api.get(_path(node, 'led@system')).json == {'state': 'BLINKING'}
    assert api.get(_path(node, 'led@chassis')).json == {'state': 'OFF'}


def test_not_found_below_1_63(api, create_node):
    node = create_node()
    assert api.get(_path(node), version='1.62').status_code == 404
    assert api.get(_path(node, 'led@system'),
                   version='1.62').status_code == 404
    assert api.put(_path(node, 'led@system'), {'state': 'ON'},
                   version='1.62').status_code == 404


def test_bad_indicators_and_states(api, create_node):
    node = create_node()
    response = api.get(_path(node, 'nothing-here'))
    assert response.status_code == 400
    assert error_of(response) == 'Malformed indicator name "nothing-here"'
    response = api.get(_path(node, 'fan@system'))
    assert response.status_code == 404
    assert error_of(response) == 'Indicator fan@system not found'
    response = api.put(_path(node, 'led@system'), {'state': 'GREEN'})
    assert response.status_code == 400
    assert 'Invalid indicator state GREEN' in error_of(response)
    response = api.put(_path(node, 'led@system'), {'state': 'UNKNOWN'})
    assert response.status_code == 400
    assert 'cannot be set to UNKNOWN' in error_of(response)
    response = api.put(_path(node, 'led@system'), {})
    assert error_of(response) == 'Missing mandatory parameter: state'
