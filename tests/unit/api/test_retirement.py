"""Retirement (1.61) as Ironic: reasons, refusals, and where cleaning ends."""

from __future__ import annotations

from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.api.conftest import error_of


def _patch(api, uuid, *ops):
    return api.patch('/v1/nodes/%s' % uuid, list(ops))


def _op(path, value=None, op='replace'):
    body = {'op': op, 'path': path}
    if op != 'remove':
        body['value'] = value
    return body


def _provision(api, uuid, target):
    return api.put('/v1/nodes/%s/states/provision' % uuid,
                   {'target': target})


def _state(uuid):
    return nodes_db.get_node(uuid).provision_state


def test_reason_only_on_a_retired_node_and_cleared_on_unretire(
        api, create_node):
    uuid = create_node()['uuid']
    response = _patch(api, uuid, _op('/retired_reason', 'old'))
    assert response.status_code == 400
    assert error_of(response) == ('The retired_reason field can only be '
                                  'set when retired is True')
    response = _patch(api, uuid, _op('/retired', True),
                      _op('/retired_reason', 'EOL'))
    assert response.status_code == 200, response.text
    assert (response.json['retired'], response.json['retired_reason']) == \
        (True, 'EOL')
    response = _patch(api, uuid, _op('/retired', False))
    assert response.status_code == 200, response.text
    assert response.json['retired_reason'] is None
    assert _patch(api, uuid, _op('/retired', True), _op(
        '/retired_reason', 'x'), ).status_code == 200
    # Unretiring wins over a reason given in the same patch (as Ironic).
    response = _patch(api, uuid, _op('/retired', False),
                      _op('/retired_reason', 'still'))
    assert response.status_code == 200
    assert response.json['retired_reason'] is None


def test_retiring_an_available_node_is_409_and_provide_is_refused(
        api, available_node):
    uuid = available_node()['uuid']
    response = _patch(api, uuid, _op('/retired', True))
    assert response.status_code == 409
    assert error_of(response) == (
        "Node %s can not have 'retired' set in provision state "
        "'available', the current state is 'available'" % uuid)
    assert _provision(api, uuid, 'manage').status_code == 202
    utils.wait_for(lambda: _state(uuid) == 'manageable', what='manageable')
    assert _patch(api, uuid, _op('/retired', True)).status_code == 200
    response = _provision(api, uuid, 'provide')
    assert response.status_code == 400
    assert error_of(response) == ("The providing operation can't be "
                                  "performed on node %s because it is "
                                  "retired." % uuid)
    assert _state(uuid) == 'manageable'


def test_a_retired_node_is_cleaned_into_manageable(api, available_node):
    uuid = available_node()['uuid']
    assert _provision(api, uuid, 'active').status_code == 202
    utils.wait_for(lambda: _state(uuid) == 'active', what='active')
    assert _patch(api, uuid, _op('/retired', True)).status_code == 200
    assert _provision(api, uuid, 'deleted').status_code == 202
    utils.wait_for(lambda: _state(uuid) in ('manageable', 'available',
                                            'clean failed'),
                   what='tear down and cleaning to end')
    node = nodes_db.get_node(uuid)
    assert node.provision_state == 'manageable', node.last_error
    assert node.target_provision_state is None
    assert node.retired
