"""The task graph examples of the granular deployment spec
(``specs/001_…txt``), as the spec writes them, typos included.

The spec's text lost its line breaks when it was stored; the YAML below
puts them back (one key per line, the spec's nesting) and changes
nothing else: ``primar-controller``, ``puppet_manifests``,
``/etc/pupppet``, the stray ``16`` and the references to tasks the
examples do not define are the spec's own.
"""

# "Usage of graph in nailgun": the groups...
USAGE_GROUPS = '''\
- id: deploy
  type: stage
- id: primary-controller
  type: group
  role: [primar-controller]
  required_for: [deploy]
  parameters:
    strategy:
      type: one_by_one
- id: controller
  type: group
  role: [controller]
  requires: [primary-controller]
  required_for: [deploy]
  parameters:
    strategy:
      type: parallel
      amount: 2
- id: cinder
  type: group
  role: [cinder]
  requires: [controller]
  required_for: [deploy]
  parameters:
    strategy:
      type: parallel
- id: compute
  type: group
  role: [compute]
  requires: [controller]
  required_for: [deploy]
  parameters:
    strategy:
      type: parallel
- id: network
  type: group
  role: [network]
  requires: [controller]
  required_for: [compute, deploy]
  parameters:
    strategy:
      type: parallel
'''

# ... and "there is defined tasks for each role".
USAGE_TASKS = '''\
- id: setup_services
  type: puppet
  requires: [setup_network]
  groups: [controller, primary-controller, compute, network, cinder]
  required_for: [deploy]
  parameters:
    puppet_manifests: /etc/puppet/manifests/controller.pp
    puppet_modules: /etc/puppet/modules
    timeout: 360
- id: setup_network
  type: shell
  groups: [controller, primary-controller, compute, network, cinder]
  required_for: [deploy]
  parameters:
    cmd: run_setup_network.sh
    timeout: 120
'''

USAGE = USAGE_GROUPS + USAGE_TASKS

# "For example we have several nodes for deployment".
USAGE_NODES = {
    'primary-controller': ['node-1'],
    'controller': ['node-4', 'node-2', 'node-3', 'node-5'],
    'cinder': ['node-6'],
    'network': ['node-7'],
    'compute': ['node-8'],
}

# "Pre/post_deployment task examples".
PRE_POST = '''\
- id: update_hosts
  type: puppet
  role: '*'
  stage: post_deployment
  requires: [upload_nodes_info]
  parameters:
    puppet_manifest: /etc/pupppet/modules/update_hosts_file.pp
    puppet_modules: /etc/puppet/modules 16
    timeout: 3600
    cwd: /
- id: rsync_puppet
  type: rsync
  role: '*'
  stage: pre_deployment
  parameters:
    src: /etc/pupppet/{VERSION}
    dst: /etc/puppet/modules
    timeout: 3600
'''

# "Current model will allow us to make multiple cross-reference tasks".
CROSS_REFERENCE = '''\
- id: put_compute_into_maintenance_mode
  type: puppet
  role: [primary-controller]
- id: migrate_vms_from_compute
  type: puppet
  role: [primary-controller]
  requires: [put_vm_into_maintenance_mode]
- id: reinstall_ovs
  type: puppet
  role: [compute]
  requires: [put_vm_into_maintenance_mode, migrate_vms_from_compute]
- id: make_compute_available
  role: [primary-controller]
  requires: [reinstall_vs]
'''
