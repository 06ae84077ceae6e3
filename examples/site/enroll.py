"""Enroll the example site (inventory.yaml) into Ironside, or remove it.

    python examples/site/enroll.py                        # all healthy
    python examples/site/enroll.py --fail-prepare ntp01   # cleaning fails
    python examples/site/enroll.py --fail-deploy cmp-r2-01 \
                                   --fail-deploy cmp-r2-02
    python examples/site/enroll.py --delete               # start over

Nodes are fake-hardware; each node's rack, tags and labels go into its
``extra`` field, where the site layer's selectors read them. The failure
knobs are fake-hardware's ``driver_info``: a failing clean step fails the
prepare phase (automated cleaning runs on provide), a failing deploy step
fails the deploy phase. Running it again updates the nodes it finds.

It talks to the bare metal API with openstacksdk, at ``--endpoint``
(default ``$OS_ENDPOINT``, else http://127.0.0.1:6385) without
authentication, as the all-in-one serves it on loopback.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import time

import openstack
import yaml

HERE = pathlib.Path(__file__).resolve().parent
FAIL_PREPARE = 'deploy.erase_devices_metadata'
FAIL_DEPLOY = 'deploy.write_image'
DELETABLE = ('available', 'manageable', 'enroll')


def node_fields(entry: dict, driver: str, driver_info: dict) -> dict:
    extra = {'rack': entry['rack'], 'tags': entry.get('tags', [])}
    if entry.get('labels'):
        extra['labels'] = entry['labels']
    return {'name': entry['name'], 'driver': driver, 'extra': extra,
            'driver_info': driver_info, 'resource_class': 'baremetal'}


def driver_info_for(name: str, args) -> dict:
    info = {}
    failing = ([FAIL_PREPARE] if name in args.fail_prepare else []) + \
        ([FAIL_DEPLOY] if name in args.fail_deploy else [])
    if failing:
        info['fake_fail_steps'] = failing
    if args.write_image_seconds:
        info['fake_step_delays'] = {
            'deploy.write_image': args.write_image_seconds}
    return info


def enroll(conn, inventory: dict, args) -> None:
    existing = {n.name: n for n in conn.baremetal.nodes()}
    for entry in inventory['nodes']:
        fields = node_fields(entry, inventory['driver'],
                             driver_info_for(entry['name'], args))
        node = existing.get(entry['name'])
        if node is None:
            conn.baremetal.create_node(**fields)
            print('enrolled %s' % entry['name'])
        else:
            conn.baremetal.update_node(node, extra=fields['extra'],
                                       driver_info=fields['driver_info'])
            print('updated %s (%s)' % (entry['name'],
                                       node.provision_state))


def delete(conn, inventory: dict) -> None:
    names = {entry['name'] for entry in inventory['nodes']}
    nodes = [n for n in conn.baremetal.nodes() if n.name in names]
    for node in nodes:
        if node.is_maintenance:
            conn.baremetal.unset_node_maintenance(node)
        if node.provision_state in ('active', 'deploy failed'):
            conn.baremetal.set_node_provision_state(node, 'undeploy')
        elif node.provision_state == 'clean failed':
            conn.baremetal.set_node_provision_state(node, 'manage')
    deadline = time.monotonic() + 600
    for node in nodes:
        while node.provision_state not in DELETABLE:
            if time.monotonic() > deadline:
                raise SystemExit('node %s is still %s' % (
                    node.name, node.provision_state))
            time.sleep(1)
            node = conn.baremetal.get_node(node.id)
        conn.baremetal.delete_node(node)
        print('deleted %s' % node.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--endpoint', default=os.environ.get(
        'OS_ENDPOINT', 'http://127.0.0.1:6385'))
    parser.add_argument('--inventory', default=str(HERE / 'inventory.yaml'))
    parser.add_argument('--fail-prepare', action='append', default=[],
                        metavar='NODE', help='cleaning of NODE fails')
    parser.add_argument('--fail-deploy', action='append', default=[],
                        metavar='NODE', help='deploying NODE fails')
    parser.add_argument('--write-image-seconds', type=float, default=0,
                        help='make every deploy wait this long (to watch '
                             'the progress)')
    parser.add_argument('--delete', action='store_true',
                        help='undeploy and delete the inventory\'s nodes')
    args = parser.parse_args()
    inventory = yaml.safe_load(pathlib.Path(args.inventory).read_text())
    conn = openstack.connection.Connection(
        auth_type='none', baremetal_endpoint_override=args.endpoint,
        baremetal_api_version='1.78')
    if args.delete:
        delete(conn, inventory)
    else:
        enroll(conn, inventory, args)


if __name__ == '__main__':
    main()
