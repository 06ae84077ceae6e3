"""The openstacksdk calls of Nova's Ironic driver, replayed in its order.

Read from nova/virt/ironic/driver.py: the same proxy methods, fields,
patches and bodies, and the same judgement of each answer (what Nova
treats as success, failure or "already done"). The SDK authenticates as
Nova's ``[ironic]`` section does where Ironic enforces scope (devstack's):
a password, a system-scoped admin, Ironside's endpoint from Keystone's
catalog (conftest).
"""

from __future__ import annotations

import base64
import gzip
import json
import uuid

import pytest
from openstack import exceptions as os_exc

from tests.functional.acceptance.conftest import available_node
from tests.functional.acceptance.conftest import sdk_wait_state
from tests.functional.acceptance.conftest import unique
from tests.utils import wait_for

pytestmark = pytest.mark.functional

# nova.virt.ironic.driver._NODE_FIELDS
NODE_FIELDS = ('uuid', 'power_state', 'target_power_state',
               'provision_state', 'target_provision_state', 'last_error',
               'maintenance', 'properties', 'instance_uuid', 'traits',
               'resource_class')
# What nova.virt.ironic.driver._UNPROVISION_STATES names.
UNPROVISION = {'active', 'deploy failed', 'error', 'wait call-back',
               'deploying', 'deploy hold'}


def _configdrive(marker: str) -> str:
    """Nova's shape: a gzipped ISO, base64-encoded (here, fake bytes)."""
    return base64.b64encode(gzip.compress(
        ('ISO9660 config-2 %s' % marker).encode() * 64)).decode()


def _by_instance(sdk, instance: str):
    """Nova's instance lookup: 0 or 1 nodes, the fields it reads."""
    nodes = list(sdk.baremetal.nodes(instance_id=instance,
                                     fields=NODE_FIELDS))
    assert len(nodes) <= 1
    return nodes[0] if nodes else None


def _wait_active(sdk, instance: str):
    """driver._wait_for_active: done, failed or aborted."""
    def judged():
        node = _by_instance(sdk, instance)
        if node.provision_state == 'active':
            return node
        assert node.provision_state != 'deploy failed', node.last_error
        assert node.target_provision_state not in ('deleted', 'available')
        assert node.provision_state not in (None, 'available')
        return None
    return wait_for(judged, timeout=60, interval=0.1, what='active')


def _wait_power(sdk, instance: str):
    """driver._wait_for_power_state: until target_power_state is null."""
    return wait_for(
        lambda: (lambda n: n if n.target_power_state is None else None)(
            _by_instance(sdk, instance)),
        timeout=30, interval=0.1, what='power change')


def _deploy_patch(instance: str, image: str) -> list[dict]:
    """patcher.GenericDriverFields.get_deploy_patch: strings, add ops."""
    values = {'image_source': image, 'root_gb': '40', 'swap_mb': '0',
              'display_name': 'vm-1', 'vcpus': '2', 'nova_host_id': 'cmp1',
              'memory_mb': '4096', 'local_gb': '40',
              'project_id': uuid.uuid4().hex, 'project_name': 'demo',
              'user_id': uuid.uuid4().hex, 'user_name': 'demo',
              'flavor_name': 'bm.small', 'fixed_ips': '[]',
              'floating_ips': '[]',
              'capabilities': json.dumps({'boot_mode': 'uefi'}),
              'traits': ['CUSTOM_GOLD']}
    return [{'op': 'add', 'path': '/instance_info/%s' % key, 'value': value}
            for key, value in values.items()]


def test_resource_reporting_sees_what_nova_reads(sdk):
    node = available_node(sdk, name=unique('nova-rt'))
    sdk.baremetal.add_node_trait(node, 'CUSTOM_GOLD')
    listed = {n.id: n for n in sdk.baremetal.nodes(fields=NODE_FIELDS)}
    seen = listed[node.id]
    # Schedulable: not in maintenance, power known, available, unused.
    assert seen.is_maintenance is False
    assert seen.power_state not in ('error', None)
    assert seen.provision_state == 'available'
    assert seen.instance_id is None
    assert seen.resource_class == 'baremetal'
    assert seen.traits == ['CUSTOM_GOLD']
    assert {'cpus', 'memory_mb', 'local_gb', 'cpu_arch'} <= set(
        seen.properties)
    single = sdk.baremetal.get_node(node.id, fields=NODE_FIELDS)
    assert single.provision_state == 'available'
    assert single.properties == seen.properties
    # is_node_deleted / node_is_available: a gone node is a 404.
    with pytest.raises(os_exc.NotFoundException):
        sdk.baremetal.get_node(str(uuid.uuid4()), fields=NODE_FIELDS)
    assert _by_instance(sdk, str(uuid.uuid4())) is None


def test_spawn_power_reboot_rebuild_destroy(sdk, ironside):
    node = available_node(sdk, name=unique('nova'), driver_info={
        'fake_step_delays': {'deploy.deploy': 1}, 'fake_power_delay': 0.5})
    sdk.baremetal.create_port(node_id=node.id, address='52:54:00:30:00:01')
    instance = str(uuid.uuid4())

    # prepare_for_spawn: claim the node; a second claim is a 409.
    node = sdk.baremetal.get_node(node.id, fields=NODE_FIELDS)
    sdk.baremetal.update_node(node, retry_on_conflict=False,
                              instance_id=instance)
    other = sdk.baremetal.get_node(node.id, fields=NODE_FIELDS)
    with pytest.raises(os_exc.ConflictException):
        sdk.baremetal.update_node(other, retry_on_conflict=False,
                                  instance_id=str(uuid.uuid4()))

    # plug_vifs: a repeated attach is a 409, which Nova takes as done.
    vif = str(uuid.uuid4())
    sdk.baremetal.attach_vif_to_node(node, vif, retry_on_conflict=False)
    with pytest.raises(os_exc.ConflictException):
        sdk.baremetal.attach_vif_to_node(node, vif, retry_on_conflict=False)
    # A second VIF with no free port left: 400, a failed plug for Nova.
    with pytest.raises(os_exc.BadRequestException):
        sdk.baremetal.attach_vif_to_node(node, str(uuid.uuid4()),
                                         retry_on_conflict=False)

    # spawn: instance_info, validate, configdrive, active, wait.
    sdk.baremetal.patch_node(node, _deploy_patch(instance,
                                                 'http://img/disk.qcow2'))
    checks = sdk.baremetal.validate_node(node.id, required=None)
    for interface in ('deploy', 'power', 'storage'):
        assert checks[interface].result is True, checks[interface].reason
    ports = list(sdk.baremetal.ports(node=node.id, details=True))
    assert ports[0].internal_info['tenant_vif_port_id'] == vif
    assert list(sdk.baremetal.port_groups(node=node.id, details=True)) == []
    configdrive = _configdrive(instance)
    sdk.baremetal.set_node_provision_state(node.id, 'active',
                                           config_drive=configdrive)
    moving = _by_instance(sdk, instance)
    assert moving.provision_state in ('deploying', 'wait call-back')
    assert moving.target_provision_state == 'active'
    active = _wait_active(sdk, instance)
    assert active.power_state == 'power on'
    full = sdk.baremetal.get_node(node.id)
    assert full.instance_info['image_source'] == 'http://img/disk.qcow2'
    assert full.instance_info.get('configdrive', '******') == '******'

    # power_off (soft first, as Nova does with a timeout), power_on.
    sdk.baremetal.set_node_power_state(node.id, 'soft power off',
                                       timeout=30)
    assert _by_instance(sdk, instance).target_power_state == 'power off'
    assert _wait_power(sdk, instance).power_state == 'power off'
    sdk.baremetal.set_node_power_state(node.id, 'power on')
    assert _wait_power(sdk, instance).power_state == 'power on'
    # reboot: soft, and the hard one Nova falls back to.
    for target in ('soft rebooting', 'rebooting'):
        sdk.baremetal.set_node_power_state(node.id, target)
        assert _wait_power(sdk, instance).power_state == 'power on'

    # rebuild: instance_info again (preserve_ephemeral), new configdrive.
    patch = _deploy_patch(instance, 'http://img/disk2.qcow2')
    patch.append({'op': 'add', 'path': '/instance_info/preserve_ephemeral',
                  'value': 'False'})
    sdk.baremetal.patch_node(node, patch)
    rebuild_drive = _configdrive('rebuild-' + instance)
    sdk.baremetal.set_node_provision_state(node.id, 'rebuild',
                                           config_drive=rebuild_drive)
    _wait_active(sdk, instance)
    assert sdk.baremetal.get_node(node.id).instance_info[
        'image_source'] == 'http://img/disk2.qcow2'

    # destroy: undeploy from an unprovision state, then wait until the
    # instance lookup finds nothing. Nova clears nothing itself.
    assert _by_instance(sdk, instance).provision_state in UNPROVISION
    sdk.baremetal.set_node_provision_state(node.id, 'deleted')
    def unprovisioned():
        # One lookup a poll: between two, the node may lose its instance.
        found = _by_instance(sdk, instance)
        return found is None or found.provision_state in (
            'cleaning', 'clean wait', 'clean failed', 'available')
    wait_for(unprovisioned, timeout=60, interval=0.1, what='unprovision')
    done = sdk_wait_state(sdk, node.id, 'available')
    assert done.instance_id is None
    assert done.instance_info == {}
    assert sdk.baremetal.list_node_vifs(node.id) == []
    port = sdk.baremetal.get_port(ports[0].id)
    assert 'tenant_vif_port_id' not in port.internal_info

    # The configdrives were never echoed back nor logged.
    history = ironside.api('GET', '/v1/nodes/%s/history' % node.id)[1]
    for secret in (configdrive, rebuild_drive):
        assert secret not in json.dumps(history)
        assert secret not in ironside.log()


def test_cleanup_after_a_failed_spawn(sdk):
    """driver._cleanup_deploy: VIF detach (400 ignored), instance cleared."""
    node = available_node(sdk, name=unique('nova-fail'), driver_info={
        'fake_fail_steps': ['deploy.write_image']})
    instance = str(uuid.uuid4())
    sdk.baremetal.update_node(node, retry_on_conflict=False,
                              instance_id=instance)
    vif = str(uuid.uuid4())
    sdk.baremetal.attach_vif_to_node(node, vif, retry_on_conflict=False)
    sdk.baremetal.patch_node(node, _deploy_patch(instance, 'http://i/x'))
    sdk.baremetal.set_node_provision_state(node.id, 'active',
                                           config_drive=_configdrive('x'))
    failed = wait_for(
        lambda: (lambda n: n if n.provision_state == 'deploy failed'
                 else None)(_by_instance(sdk, instance)),
        timeout=60, interval=0.1, what='deploy failed')
    assert 'deploy.write_image' in failed.last_error
    # From deploy failed Nova unprovisions, then cleans up.
    sdk.baremetal.set_node_provision_state(node.id, 'deleted')
    sdk_wait_state(sdk, node.id, 'available')
    # Teardown detached the VIF already: Nova's detach gets a 400.
    with pytest.raises(os_exc.BadRequestException):
        sdk.baremetal.detach_vif_from_node(node.id, vif,
                                           ignore_missing=False)
    # _remove_instance_info_from_node, on the node as Nova last read it.
    node = sdk.baremetal.get_node(node.id, fields=NODE_FIELDS)
    sdk.baremetal.update_node(node, instance_id=None, instance_info={})
    node = sdk.baremetal.get_node(node.id)
    assert (node.instance_id, node.instance_info) == (None, {})
