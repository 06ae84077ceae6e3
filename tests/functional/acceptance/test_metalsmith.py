"""metalsmith deploy and undeploy on fake-hardware nodes.

The image is an HTTP whole-disk image with its checksum given, so
metalsmith needs no Glance and downloads nothing: the fake deploy
interface never fetches it.
"""

from __future__ import annotations

import json

import metalsmith
import pytest
from metalsmith import _cmd
from metalsmith import instance_config
from metalsmith import sources

from tests.functional.acceptance.conftest import available_node
from tests.functional.acceptance.conftest import unique
from tests.functional.fixtures.clients import command_context

pytestmark = pytest.mark.functional

IMAGE = 'http://images.example.com/disk.qcow2'
CHECKSUM = 'a' * 64


@pytest.fixture(scope='module')
def provisioner(sdk):
    return metalsmith.Provisioner(cloud_region=sdk.config)


def test_python_api_deploy_and_undeploy(provisioner, sdk):
    node = available_node(sdk, name=unique('ms'))
    sdk.baremetal.add_node_trait(node, 'CUSTOM_MS')
    reserved = provisioner.reserve_node('baremetal', traits=['CUSTOM_MS'],
                                        candidates=[node.id],
                                        hostname='web-1')
    assert reserved.id == node.id
    config = instance_config.GenericConfig(
        ssh_keys=['ssh-ed25519 AAAA test'], user_data='#!/bin/true')
    instance = provisioner.provision_node(
        reserved, sources.HttpWholeDiskImage(IMAGE, checksum=CHECKSUM),
        config=config, hostname='web-1', wait=60)
    assert instance.state == metalsmith.InstanceState.ACTIVE
    assert instance.hostname == 'web-1'
    assert instance.node.id == node.id
    shown = sdk.baremetal.get_node(node.id)
    assert shown.provision_state == 'active'
    assert shown.instance_info['image_source'] == IMAGE
    assert shown.instance_info['image_checksum'] == CHECKSUM
    assert shown.instance_info['traits'] == ['CUSTOM_MS']
    assert shown.instance_info.get('configdrive', '******') == '******'
    assert [i.hostname for i in provisioner.list_instances()
            if i.node.id == node.id] == ['web-1']
    assert provisioner.show_instance('web-1').node.id == node.id
    provisioner.unprovision_node('web-1', wait=60)
    node = sdk.baremetal.get_node(node.id)
    assert node.provision_state == 'available'
    assert node.allocation_id is None
    assert node.instance_id is None
    assert node.instance_info == {}
    assert list(sdk.baremetal.allocations(node=node.id)) == []


def _metalsmith_cli(ironside, *args: str) -> dict | None:
    """``metalsmith ...`` in-process, with the clients' OS_* variables
    (Keystone's system admin); its JSON output.

    Its deploy output lists the instance's IPs from Neutron, which a
    standalone Ironic (or Ironside) has not: deploy runs with --quiet.
    """
    with command_context(ironside.endpoint, ironside.client_auth) as (
            out, _):
        _cmd.main(list(args))
    text = out.getvalue()
    return json.loads(text) if text.strip() else None


def test_cli_deploy_and_undeploy(sdk, ironside):
    node = available_node(sdk, name=unique('mscli'))
    _metalsmith_cli(
        ironside, '--quiet', 'deploy', '--resource-class', 'baremetal',
        '--candidate', node.id, '--image', IMAGE, '--image-checksum',
        CHECKSUM, '--hostname', 'db-1', '--wait', '60')
    deployed = sdk.baremetal.get_node(node.id)
    assert deployed.provision_state == 'active'
    assert sdk.baremetal.get_allocation('db-1').node_id == node.id
    undeployed = _metalsmith_cli(ironside, '--format', 'json', 'undeploy',
                                 'db-1', '--wait', '60')
    assert undeployed['node']['provision_state'] == 'available'
    assert sdk.baremetal.get_node(node.id).instance_id is None
