"""The target RAID configuration schema and the driver's disk properties."""

from __future__ import annotations

import pytest

from ironside.api.schemas import raid as raid_schemas
from ironside.db import nodes as nodes_db
from tests.unit.api.conftest import error_of


def _put(api, uuid, config, **kwargs):
    return api.put('/v1/nodes/%s/states/raid' % uuid, config, **kwargs)


@pytest.mark.parametrize('disk', [
    {'raid_level': 'JBOD', 'size_gb': 'MAX'},
    {'raid_level': '1+0', 'size_gb': 100, 'volume_name': 'root',
     'is_root_volume': True, 'share_physical_disks': False,
     'disk_type': 'ssd', 'interface_type': 'sas',
     'number_of_physical_disks': 4, 'controller': 'RAID.Integrated.1-1',
     'physical_disks': ['Disk.0', 'Disk.1', 'Disk.2', 'Disk.3']},
    {'raid_level': '5', 'size_gb': 0,
     'controller': 'c0', 'physical_disks': [{'name': 'a'}, {'name': 'b'}]},
])
def test_valid_configurations_are_stored(api, create_node, disk):
    uuid = create_node()['uuid']
    response = _put(api, uuid, {'logical_disks': [disk]})
    assert response.status_code == 204, response.text
    assert nodes_db.get_node(uuid).target_raid_config == {
        'logical_disks': [disk]}


@pytest.mark.parametrize('config, message', [
    ({'logical_disks': []}, 'should be non-empty'),
    ({'logical_disks': [{'raid_level': '7', 'size_gb': 1}]},
     "'7' is not one of"),
    ({'logical_disks': [{'raid_level': '1'}]}, "'size_gb' is a required"),
    ({'logical_disks': [{'raid_level': '1', 'size_gb': 'ALL'}]}, 'size_gb'),
    ({'logical_disks': [{'raid_level': '1', 'size_gb': 1,
                         'disk_type': 'nvme'}]}, "'nvme' is not one of"),
    ({'logical_disks': [{'raid_level': '1', 'size_gb': 1,
                         'number_of_physical_disks': 0}]},
     '0 is less than the minimum of 1'),
    ({'logical_disks': [{'raid_level': '1', 'size_gb': 1,
                         'physical_disks': ['a', 'b']}]},
     "'controller' is a dependency of 'physical_disks'"),
    ({'logical_disks': [{'raid_level': '1', 'size_gb': 1, 'colour': 'r'}]},
     "Additional properties are not allowed ('colour'"),
    ({'logical_disks': [{'raid_level': '1', 'size_gb': 1}], 'x': 1},
     'Additional properties are not allowed'),
    ({'logical_disks': [
        {'raid_level': '1', 'size_gb': 1, 'is_root_volume': True},
        {'raid_level': '0', 'size_gb': 2, 'is_root_volume': True}]},
     'cannot have more than one root volume'),
])
def test_invalid_configurations_are_400(api, create_node, config, message):
    uuid = create_node()['uuid']
    response = _put(api, uuid, config)
    assert response.status_code == 400
    assert message in error_of(response)
    assert not nodes_db.get_node(uuid).target_raid_config


def test_logical_disk_properties(api):
    path = '/v1/drivers/fake-hardware/raid/logical_disk_properties'
    response = api.get(path)
    assert response.status_code == 200, response.text
    assert response.json == raid_schemas.logical_disk_properties()
    assert set(response.json) == {
        'raid_level', 'size_gb', 'volume_name', 'is_root_volume',
        'share_physical_disks', 'disk_type', 'interface_type',
        'number_of_physical_disks', 'controller', 'physical_disks'}
    assert 'JBOD' in response.json['raid_level']
    assert api.get(path, version='1.11').status_code == 406
    response = api.get('/v1/drivers/nope/raid/logical_disk_properties')
    assert response.status_code == 404


def test_logical_disk_properties_of_a_type_without_raid_is_404(api):
    types = {d['name'] for d in api.get('/v1/drivers').json['drivers']}
    assert 'ipmi' in types
    response = api.get('/v1/drivers/ipmi/raid/logical_disk_properties')
    assert response.status_code == 404
    assert error_of(response) == ('Driver ipmi does not support raid '
                                  '(disabled or not implemented).')
