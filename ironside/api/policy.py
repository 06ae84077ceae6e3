"""Who may do what: oslo.policy rules with Ironic's personas.

The rules and their defaults are Ironic's, so a policy file written for
Ironic works here. System-scoped admins, members and readers act on
everything; a project acts on the nodes it owns (``node.owner``) or
leases (``node.lessee``), and lists only those.

Rules are enforced only with ``[DEFAULT]auth_strategy = keystone``;
``noauth`` and ``http_basic`` have no roles to check, so every request
passes (as in Ironic).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from ironside.common import exception
from ironside.common.conf import CONF

LOG = logging.getLogger(__name__)

SYSTEM_ADMIN = 'role:admin and system_scope:all'
SYSTEM_MEMBER = '(role:member and system_scope:all) or rule:service_role'
SYSTEM_READER = ('(role:reader and system_scope:all) or '
                 '(role:service and system_scope:all) or rule:service_role')
SYSTEM_SERVICE = 'role:service and system_scope:all'
PROJECT_SERVICE = 'role:service and project_id:%(node.owner)s'

PROJECT_ADMIN = 'role:admin and project_id:%(node.owner)s'
PROJECT_MEMBER = ('role:member and (project_id:%(node.owner)s or '
                  'project_id:%(node.lessee)s)')
PROJECT_READER = ('role:reader and (project_id:%(node.owner)s or '
                  'project_id:%(node.lessee)s)')
OWNER_ADMIN = 'role:admin and project_id:%(node.owner)s'
OWNER_MANAGER = 'role:manager and project_id:%(node.owner)s'
OWNER_MEMBER = 'role:member and project_id:%(node.owner)s'
OWNER_READER = 'role:reader and project_id:%(node.owner)s'
LESSEE_ADMIN = 'role:admin and project_id:%(node.lessee)s'
LESSEE_MANAGER = 'role:manager and project_id:%(node.lessee)s'
ALLOCATION_OWNER_MEMBER = 'role:member and project_id:%(allocation.owner)s'
ALLOCATION_OWNER_READER = 'role:reader and project_id:%(allocation.owner)s'
RUNBOOK_OWNER_MANAGER = 'role:manager and project_id:%(runbook.owner)s'
RUNBOOK_OWNER_READER = 'role:reader and project_id:%(runbook.owner)s'


def _any(*rules: str) -> str:
    return ' or '.join('(%s)' % rule for rule in rules)


SYSTEM_OR_PROJECT_MEMBER = _any(SYSTEM_MEMBER, PROJECT_MEMBER,
                                SYSTEM_SERVICE)
SYSTEM_OR_PROJECT_READER = _any(SYSTEM_READER, PROJECT_READER,
                                PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, LESSEE_ADMIN,
    LESSEE_MANAGER, PROJECT_SERVICE)
SYSTEM_ADMIN_OR_OWNER_ADMIN = _any(SYSTEM_ADMIN, SYSTEM_SERVICE, OWNER_ADMIN,
                                   OWNER_MANAGER, PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_ADMIN = _any(SYSTEM_MEMBER, SYSTEM_SERVICE,
                                    OWNER_ADMIN, OWNER_MANAGER,
                                    PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_MEMBER = _any(SYSTEM_MEMBER, SYSTEM_SERVICE,
                                     OWNER_MEMBER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_READER = _any(SYSTEM_READER, SYSTEM_SERVICE, OWNER_READER,
                              PROJECT_SERVICE)
API_READER = '(role:reader) or (role:service)'
ALLOCATION_MEMBER = _any(SYSTEM_MEMBER, ALLOCATION_OWNER_MEMBER)
ALLOCATION_READER = _any(SYSTEM_READER, ALLOCATION_OWNER_READER)
ALLOCATION_CREATOR = _any(SYSTEM_MEMBER, 'role:member')
SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN = _any(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_ADMIN, OWNER_MANAGER, LESSEE_ADMIN,
    LESSEE_MANAGER, PROJECT_SERVICE)
# A volume target's properties may hold credentials.
TARGET_PROPERTIES_READER = _any(SYSTEM_READER, 'role:admin')
RUNBOOK_ADMIN = _any(SYSTEM_MEMBER, RUNBOOK_OWNER_MANAGER, 'role:service')
RUNBOOK_READER = _any(SYSTEM_READER, RUNBOOK_OWNER_READER, 'role:service')
RUNBOOK_CREATOR = _any(SYSTEM_MEMBER, 'role:manager', 'role:service')

SCOPES = ['system', 'project']


def _rule(name: str, check: str, description: str,
          operations: list[tuple[str, str]],
          scope_types: list[str] | None = None
          ) -> policy.DocumentedRuleDefault:
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations],
        scope_types=scope_types or SCOPES)


NODE = '/nodes/{node_ident}'

_GENERAL = [
    policy.RuleDefault('service_role',
                       'role:service and project_name:service',
                       description='A service user (such as Nova) acting '
                                   'from the service project.'),
    policy.RuleDefault('show_password', '!',
                       description='Show secrets of node driver_info in '
                                   'answers instead of "******".'),
    policy.RuleDefault('show_instance_secrets', '!',
                       description='Show secrets of node instance_info in '
                                   'answers instead of "******".'),
]

_NODE = [
    _rule('baremetal:node:create', _any(SYSTEM_ADMIN, SYSTEM_SERVICE),
          'Create a node', [('POST', '/nodes')]),
    _rule('baremetal:node:list', API_READER,
          'List the nodes the caller may see',
          [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    _rule('baremetal:node:list_all', SYSTEM_READER,
          'List every node, whoever owns it',
          [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    _rule('baremetal:node:get', SYSTEM_OR_PROJECT_READER,
          'Show a node', [('GET', NODE)]),
    _rule('baremetal:node:get:filter_threshold', SYSTEM_READER,
          'Callers not matching this see some fields of nodes redacted, '
          'per the rules below', [('GET', NODE)]),
    _rule('baremetal:node:get:last_error', SYSTEM_OR_OWNER_READER,
          'See the last_error of a node', [('GET', NODE)]),
    _rule('baremetal:node:get:reservation', SYSTEM_OR_OWNER_READER,
          'See which conductor holds a node', [('GET', NODE)]),
    _rule('baremetal:node:get:driver_internal_info', SYSTEM_OR_OWNER_READER,
          'See the driver_internal_info of a node', [('GET', NODE)]),
    _rule('baremetal:node:get:driver_info', SYSTEM_OR_OWNER_READER,
          'See the driver_info of a node', [('GET', NODE)]),
    _rule('baremetal:node:update', SYSTEM_OR_PROJECT_MEMBER,
          'Update node fields no other rule covers', [('PATCH', NODE)]),
    _rule('baremetal:node:update:driver_info', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Update driver_info', [('PATCH', NODE)]),
    _rule('baremetal:node:update:properties', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Update properties', [('PATCH', NODE)]),
    _rule('baremetal:node:update:chassis_uuid', SYSTEM_ADMIN,
          'Update chassis_uuid', [('PATCH', NODE)]),
    _rule('baremetal:node:update:instance_uuid',
          SYSTEM_MEMBER_OR_OWNER_MEMBER, 'Update instance_uuid',
          [('PATCH', NODE)]),
    _rule('baremetal:node:update:lessee', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Update lessee', [('PATCH', NODE)]),
    _rule('baremetal:node:update:owner', SYSTEM_MEMBER, 'Update owner',
          [('PATCH', NODE)]),
    _rule('baremetal:node:update:driver_interfaces',
          SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Update the driver and the *_interface fields', [('PATCH', NODE)]),
    _rule('baremetal:node:update:network_data',
          SYSTEM_MEMBER_OR_OWNER_MEMBER, 'Update network_data',
          [('PATCH', NODE)]),
    _rule('baremetal:node:update:conductor_group', SYSTEM_MEMBER,
          'Update conductor_group', [('PATCH', NODE)]),
    _rule('baremetal:node:update:name', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Update name', [('PATCH', NODE)]),
    _rule('baremetal:node:update:retired', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Update retired and retired_reason', [('PATCH', NODE)]),
    _rule('baremetal:node:update:shard', SYSTEM_ADMIN, 'Update shard',
          [('PATCH', NODE)]),
    _rule('baremetal:node:update:parent_node', SYSTEM_MEMBER,
          'Update parent_node', [('PATCH', NODE)]),
    _rule('baremetal:node:update:disable_power_off', SYSTEM_ADMIN,
          'Update disable_power_off', [('PATCH', NODE)]),
    _rule('baremetal:node:update_extra', SYSTEM_OR_PROJECT_MEMBER,
          'Update extra', [('PATCH', NODE)]),
    _rule('baremetal:node:update_instance_info',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Update instance_info and instance_name', [('PATCH', NODE)]),
    _rule('baremetal:node:update_owner_provisioned', SYSTEM_ADMIN,
          'Change the owner of an active node', [('PATCH', NODE)]),
    _rule('baremetal:node:disable_cleaning', SYSTEM_ADMIN,
          'Set automated_clean to false', [('PATCH', NODE)]),
    _rule('baremetal:node:delete', SYSTEM_ADMIN, 'Delete a node',
          [('DELETE', NODE)]),
    _rule('baremetal:node:validate', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Validate the interfaces of a node',
          [('GET', NODE + '/validate')]),
    _rule('baremetal:node:set_maintenance',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Put a node into maintenance', [('PUT', NODE + '/maintenance')]),
    _rule('baremetal:node:clear_maintenance',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Take a node out of maintenance',
          [('DELETE', NODE + '/maintenance')]),
    _rule('baremetal:node:get_boot_device', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Show the boot device of a node',
          [('GET', NODE + '/management/boot_device'),
           ('GET', NODE + '/management/boot_device/supported')]),
    _rule('baremetal:node:set_boot_device', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Set the boot device of a node',
          [('PUT', NODE + '/management/boot_device')]),
    _rule('baremetal:node:inject_nmi', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Inject an NMI into a node',
          [('PUT', NODE + '/management/inject_nmi')]),
    _rule('baremetal:node:get_states', SYSTEM_OR_PROJECT_READER,
          'Show the states of a node', [('GET', NODE + '/states')]),
    _rule('baremetal:node:set_power_state', SYSTEM_OR_PROJECT_MEMBER,
          'Change the power state of a node',
          [('PUT', NODE + '/states/power')]),
    _rule('baremetal:node:set_provision_state',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Change the provision state of a node',
          [('PUT', NODE + '/states/provision')]),
    _rule('baremetal:node:set_provision_state:clean_steps',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Clean a node with chosen clean steps',
          [('PUT', NODE + '/states/provision')]),
    _rule('baremetal:node:set_raid_state', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Set the target RAID configuration of a node',
          [('PUT', NODE + '/states/raid')]),
    _rule('baremetal:node:get_indicator_state', SYSTEM_OR_OWNER_READER,
          'Show the indicators of a node and their states',
          [('GET', NODE + '/management/indicators'),
           ('GET', NODE + '/management/indicators/{indicator}')]),
    _rule('baremetal:node:set_indicator_state',
          SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Change the state of an indicator of a node',
          [('PUT', NODE + '/management/indicators/{indicator}')]),
    _rule('baremetal:node:set_boot_mode', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Change the boot mode of a node',
          [('PUT', NODE + '/states/boot_mode')]),
    _rule('baremetal:node:set_secure_boot', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Change the secure boot state of a node',
          [('PUT', NODE + '/states/secure_boot')]),
    _rule('baremetal:node:get_console', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Show the console of a node', [('GET', NODE + '/states/console')]),
    _rule('baremetal:node:set_console_state', SYSTEM_MEMBER_OR_OWNER_MEMBER,
          'Enable or disable the console of a node',
          [('PUT', NODE + '/states/console')]),
    _rule('baremetal:node:vif:list', SYSTEM_OR_PROJECT_READER,
          'List the VIFs of a node', [('GET', NODE + '/vifs')]),
    _rule('baremetal:node:vif:attach',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN, 'Attach a VIF to a node',
          [('POST', NODE + '/vifs')]),
    _rule('baremetal:node:vif:detach',
          SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Detach a VIF from a node',
          [('DELETE', NODE + '/vifs/{node_vif_ident}')]),
    _rule('baremetal:node:traits:list', SYSTEM_OR_PROJECT_READER,
          'List the traits of a node', [('GET', NODE + '/traits')]),
    _rule('baremetal:node:traits:set', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Add or replace traits of a node',
          [('PUT', NODE + '/traits'), ('PUT', NODE + '/traits/{trait}')]),
    _rule('baremetal:node:traits:delete', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Remove traits of a node',
          [('DELETE', NODE + '/traits'),
           ('DELETE', NODE + '/traits/{trait}')]),
    _rule('baremetal:node:bios:get', SYSTEM_OR_PROJECT_READER,
          'Show the BIOS settings of a node', [('GET', NODE + '/bios')]),
    _rule('baremetal:node:firmware:get', SYSTEM_OR_PROJECT_READER,
          'Show the firmware components of a node',
          [('GET', NODE + '/firmware')]),
    _rule('baremetal:node:vmedia:attach', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Attach virtual media to a node', [('POST', NODE + '/vmedia')]),
    _rule('baremetal:node:vmedia:detach', SYSTEM_MEMBER_OR_OWNER_ADMIN,
          'Detach virtual media from a node',
          [('DELETE', NODE + '/vmedia')]),
    _rule('baremetal:node:vmedia:get', SYSTEM_OR_PROJECT_READER,
          'Show the virtual media of a node', [('GET', NODE + '/vmedia')]),
    _rule('baremetal:node:history:get', SYSTEM_OR_OWNER_READER,
          'Show the history of a node', [('GET', NODE + '/history')]),
    _rule('baremetal:node:inventory:get', SYSTEM_OR_OWNER_READER,
          'Show what the last inspection of a node found',
          [('GET', NODE + '/inventory')]),
    _rule('baremetal:shards:get', SYSTEM_READER, 'List shards',
          [('GET', '/shards')]),
]


def _crud(kind: str, path: str, read: str, create: str, update: str,
          delete: str, listing: tuple[str, str] | None = None
          ) -> list[policy.DocumentedRuleDefault]:
    one = '%s/{%s_ident}' % (path, kind)
    rules = [
        _rule('baremetal:%s:get' % kind, read, 'Show a %s' % kind,
              [('GET', path), ('GET', one)]),
        _rule('baremetal:%s:create' % kind, create, 'Create a %s' % kind,
              [('POST', path)]),
        _rule('baremetal:%s:update' % kind, update, 'Update a %s' % kind,
              [('PATCH', one)]),
        _rule('baremetal:%s:delete' % kind, delete, 'Delete a %s' % kind,
              [('DELETE', one)]),
    ]
    if listing:
        rules += [
            _rule('baremetal:%s:list' % kind, listing[0],
                  'List the %ss the caller may see' % kind, [('GET', path)]),
            _rule('baremetal:%s:list_all' % kind, listing[1],
                  'List every %s' % kind, [('GET', path)]),
        ]
    return rules


_VOLUMES = [('GET', '/volume/connectors'), ('GET', '/volume/targets'),
            ('GET', NODE + '/volume/connectors'),
            ('GET', NODE + '/volume/targets')]
_VOLUME = [
    _rule('baremetal:volume:list_all', SYSTEM_READER,
          'List every volume connector and target', _VOLUMES),
    _rule('baremetal:volume:list', API_READER,
          'List the volume connectors and targets of the nodes the caller '
          'may see', _VOLUMES),
    _rule('baremetal:volume:get', SYSTEM_OR_PROJECT_READER,
          'Show volume connectors and targets',
          [('GET', '/volume'), ('GET', '/volume/connectors/{connector_ident}'),
           ('GET', '/volume/targets/{target_ident}'),
           ('GET', NODE + '/volume')] + _VOLUMES),
    _rule('baremetal:volume:create', SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
          'Create volume connectors and targets',
          [('POST', '/volume/connectors'), ('POST', '/volume/targets')]),
    _rule('baremetal:volume:update', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
          'Update volume connectors and targets',
          [('PATCH', '/volume/connectors/{connector_ident}'),
           ('PATCH', '/volume/targets/{target_ident}')]),
    _rule('baremetal:volume:delete', SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
          'Delete volume connectors and targets',
          [('DELETE', '/volume/connectors/{connector_ident}'),
           ('DELETE', '/volume/targets/{target_ident}')]),
    _rule('baremetal:volume:view_target_properties',
          TARGET_PROPERTIES_READER,
          'See the properties of volume targets (they may hold secrets)',
          [('GET', '/volume/targets/{target_ident}')]),
]
_RUNBOOK_ONE = '/runbooks/{runbook_ident}'
_RUNBOOK = [
    _rule('baremetal:runbook:get', RUNBOOK_READER, 'Show a runbook',
          [('GET', _RUNBOOK_ONE), ('GET', _RUNBOOK_ONE + '/traits')]),
    _rule('baremetal:runbook:list', API_READER,
          'List the runbooks the caller owns and the public ones',
          [('GET', '/runbooks')]),
    _rule('baremetal:runbook:list_all', SYSTEM_READER, 'List every runbook',
          [('GET', '/runbooks')]),
    _rule('baremetal:runbook:create', RUNBOOK_CREATOR, 'Create a runbook',
          [('POST', '/runbooks')]),
    _rule('baremetal:runbook:delete', RUNBOOK_ADMIN, 'Delete a runbook',
          [('DELETE', _RUNBOOK_ONE)]),
    _rule('baremetal:runbook:update', RUNBOOK_ADMIN,
          'Update a runbook, or its traits',
          [('PATCH', _RUNBOOK_ONE), ('PUT', _RUNBOOK_ONE + '/traits'),
           ('PUT', _RUNBOOK_ONE + '/traits/{trait}'),
           ('DELETE', _RUNBOOK_ONE + '/traits'),
           ('DELETE', _RUNBOOK_ONE + '/traits/{trait}')]),
    _rule('baremetal:runbook:update:public', SYSTEM_MEMBER,
          'Make a runbook public or private', [('PATCH', _RUNBOOK_ONE)]),
    _rule('baremetal:runbook:update:owner', SYSTEM_MEMBER,
          'Change the owner of a runbook', [('PATCH', _RUNBOOK_ONE)]),
    _rule('baremetal:runbook:use', RUNBOOK_ADMIN,
          'Run a runbook on a node', [('PUT', NODE + '/states/provision')]),
]


_OTHERS = (
    _crud('port', '/ports', SYSTEM_OR_PROJECT_READER,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, SYSTEM_MEMBER_OR_OWNER_ADMIN,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, (API_READER, SYSTEM_READER)) +
    _crud('portgroup', '/portgroups', SYSTEM_OR_PROJECT_READER,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, SYSTEM_MEMBER_OR_OWNER_ADMIN,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, (API_READER, SYSTEM_READER)) +
    _crud('chassis', '/chassis', SYSTEM_READER, SYSTEM_ADMIN, SYSTEM_MEMBER,
          SYSTEM_ADMIN) +
    _crud('deploy_template', '/deploy_templates', SYSTEM_READER,
          SYSTEM_ADMIN, SYSTEM_ADMIN, SYSTEM_ADMIN) +
    _crud('inspection_rule', '/inspection_rules', SYSTEM_READER,
          SYSTEM_ADMIN, SYSTEM_ADMIN, SYSTEM_ADMIN) +
    [_rule('baremetal:inspection_rule:list_all', SYSTEM_READER,
           'List every inspection rule', [('GET', '/inspection_rules')])] +
    _crud('allocation', '/allocations', ALLOCATION_READER,
          ALLOCATION_CREATOR, ALLOCATION_MEMBER, ALLOCATION_MEMBER,
          (API_READER, SYSTEM_READER)) +
    [
        _rule('baremetal:allocation:create_restricted', SYSTEM_MEMBER,
              'Create an allocation for another project or none',
              [('POST', '/allocations')]),
        _rule('baremetal:driver:get', SYSTEM_READER, 'Show drivers',
              [('GET', '/drivers'), ('GET', '/drivers/{driver_name}')]),
        _rule('baremetal:driver:get_properties', SYSTEM_READER,
              'Show the driver_info properties of a driver',
              [('GET', '/drivers/{driver_name}/properties')]),
        _rule('baremetal:driver:get_raid_logical_disk_properties',
              SYSTEM_READER,
              'Show the properties a logical disk of a RAID configuration '
              'may have',
              [('GET', '/drivers/{driver_name}/raid/'
                       'logical_disk_properties')]),
        _rule('baremetal:conductor:get', SYSTEM_READER, 'Show conductors',
              [('GET', '/conductors'), ('GET', '/conductors/{hostname}')]),
    ] + _VOLUME + _RUNBOOK)


# The site API (/site/v1). Reading the site's state is a reader's; acting
# on nodes a manager's or an admin's; the design and stored strategies
# are the whole site's, so they are the system's. Each node an action
# or a node query touches is checked further with the node rules above
# (baremetal:node:get to see it, baremetal:node:set_provision_state to
# act on it, baremetal:node:list_all to see every node): a project sees
# and acts only on the nodes it owns or leases.
SITE_READER = API_READER
SITE_MANAGER = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, 'role:manager',
                    'role:admin')
_SITE_ONE_ACTION = '/site/v1/actions/{action_uuid}'
_SITE_STRATEGY = '/site/v1/strategies/{name}'
_SITE = [
    _rule('baremetal:site:get', SITE_READER,
          'See what the site API offers', [('GET', '/site/v1')]),
    _rule('baremetal:site:web:get', SITE_READER,
          'Load the site web view and its assets (under keystone they are '
          'served without a token: they hold no data)',
          [('GET', '/site'), ('GET', '/site/static/{name}')]),
    _rule('baremetal:site:strategy:get', SITE_READER,
          'List and show stored deployment strategies',
          [('GET', '/site/v1/strategies'), ('GET', _SITE_STRATEGY)]),
    _rule('baremetal:site:strategy:validate', SITE_READER,
          'Validate a deployment strategy (nothing is stored)',
          [('POST', '/site/v1/strategies/validate')]),
    _rule('baremetal:site:strategy:create', SYSTEM_MEMBER,
          'Store a deployment strategy', [('POST', '/site/v1/strategies')]),
    _rule('baremetal:site:strategy:delete', SYSTEM_MEMBER,
          'Delete a stored deployment strategy',
          [('DELETE', _SITE_STRATEGY)]),
    _rule('baremetal:site:action:list', SITE_READER,
          'List the site actions whose nodes the caller may all see',
          [('GET', '/site/v1/actions')]),
    _rule('baremetal:site:action:list_all', SYSTEM_READER,
          'List every site action', [('GET', '/site/v1/actions')]),
    _rule('baremetal:site:action:get', SITE_READER,
          'Show a site action and its report (each of its nodes must '
          'pass baremetal:node:get)', [('GET', _SITE_ONE_ACTION)]),
    _rule('baremetal:site:action:create', SITE_MANAGER,
          'Start a site action (each of its nodes must pass '
          'baremetal:node:set_provision_state)',
          [('POST', '/site/v1/actions')]),
    _rule('baremetal:site:action:abort', SITE_MANAGER,
          'Abort a site action (each of its nodes must pass '
          'baremetal:node:set_provision_state)',
          [('POST', _SITE_ONE_ACTION + '/abort')]),
    _rule('baremetal:site:node:filter', SITE_READER,
          'List the nodes selectors select, among those the caller may '
          'see', [('POST', '/site/v1/nodes/filter')]),
    _rule('baremetal:site:node:status', SITE_READER,
          'Show the states of nodes, among those the caller may see',
          [('GET', '/site/v1/nodes/status')]),
    _rule('baremetal:site:task:get', SYSTEM_READER,
          'List the tasks of a stored design version',
          [('GET', '/site/v1/tasks')]),
    _rule('baremetal:site:task:validate', SITE_READER,
          'List or validate the tasks of task graphs given in the request '
          '(nothing is stored)',
          [('POST', '/site/v1/tasks'), ('POST', '/site/v1/tasks/validate')]),
    _rule('baremetal:site:design:get', SYSTEM_READER,
          'Show the site design: the buffer, documents, rendered versions '
          'and diffs (secrets masked)',
          [('GET', '/site/v1/designs/buffer'),
           ('GET', '/site/v1/designs/documents'),
           ('GET', '/site/v1/designs/rendered'),
           ('GET', '/site/v1/designs/diff')]),
    _rule('baremetal:site:design:update', SYSTEM_ADMIN,
          'Stage, discard and commit the site design',
          [('POST', '/site/v1/designs/buffer/{collection}'),
           ('DELETE', '/site/v1/designs/buffer'),
           ('POST', '/site/v1/designs/commit')]),
    _rule('baremetal:site:revision:get', SYSTEM_READER,
          'List and show design revisions',
          [('GET', '/site/v1/revisions'),
           ('GET', '/site/v1/revisions/{revision}')]),
]


def list_rules() -> list[policy.RuleDefault]:
    """Every rule, for the enforcer and oslopolicy-sample-generator."""
    return _GENERAL + _NODE + _OTHERS + _SITE


_ENFORCER: policy.Enforcer | None = None
_LOCK = threading.Lock()


def get_enforcer() -> policy.Enforcer:
    global _ENFORCER
    if _ENFORCER is None:
        with _LOCK:
            if _ENFORCER is None:
                enforcer = policy.Enforcer(CONF)
                enforcer.suppress_default_change_warnings = True
                enforcer.register_defaults(list_rules())
                _ENFORCER = enforcer
    return _ENFORCER


def reset() -> None:
    global _ENFORCER
    with _LOCK:
        _ENFORCER = None
        _DECISIONS.clear()


def get_oslo_policy_enforcer() -> policy.Enforcer:
    """For oslopolicy-* commands, which pass their own options in argv."""
    args = []
    argv = sys.argv[1:]
    skip = False
    for index, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg.lstrip('-').split('=')[0] in ('namespace', 'output-file',
                                             'format'):
            skip = '=' not in arg and index + 1 < len(argv)
            continue
        args.append(arg)
    try:
        CONF(args, project='ironside')
    except cfg.Error:
        CONF([], project='ironside')
    return get_enforcer()


def enforced() -> bool:
    return CONF.auth_strategy == 'keystone'


def check(rule: str, context, target: dict[str, Any] | None = None) -> bool:
    """Whether ``context`` passes ``rule`` (always, without keystone)."""
    if not enforced():
        return True
    return evaluate(rule, context, target)


# Decisions are remembered this many seconds: oslo.policy looks for its
# policy files on disk at every check, which costs more than a node show.
DECISION_TTL = 5.0
_DECISIONS: dict[tuple, tuple[float, bool]] = {}


def _decision_key(rule: str, creds: dict, target: dict) -> tuple:
    return (rule, tuple(sorted(creds.get('roles') or ())),
            creds.get('project_id'), creds.get('system_scope'),
            creds.get('domain_id'), creds.get('user_id'),
            tuple(sorted(target.items())))


def evaluate(rule: str, context, target: dict[str, Any] | None = None
             ) -> bool:
    """Whether ``context`` passes ``rule``, whatever the auth strategy.

    For the rules that unmask secrets (``show_password``...), which hold
    even when nobody is authenticated.
    """
    target = dict(target or {})
    creds = context.to_policy_values()
    key = _decision_key(rule, creds, target)
    now = time.monotonic()
    found = _DECISIONS.get(key)
    if found is not None and now - found[0] < DECISION_TTL:
        return found[1]
    allowed = bool(get_enforcer().enforce(rule, target, creds))
    if len(_DECISIONS) > 10000:
        _DECISIONS.clear()
    _DECISIONS[key] = (now, allowed)
    return allowed


def authorize(rule: str, context, target: dict[str, Any] | None = None
              ) -> None:
    """403 unless ``context`` passes ``rule``."""
    if not check(rule, context, target):
        LOG.info('Refused %s to user %s of project %s', rule,
                 getattr(context, 'user_id', None),
                 getattr(context, 'project_id', None))
        raise exception.NotAuthorized(
            'Access was denied to the following resource: %s' % rule)


def runbook_target(owner: str | None) -> dict[str, Any]:
    """The target of a runbook rule; an unset owner matches no project."""
    return {'runbook.owner': owner} if owner else {}


def node_target(owner: str | None, lessee: str | None) -> dict[str, Any]:
    """The target of a node rule; unset owner/lessee match no project."""
    target = {}
    if owner:
        target['node.owner'] = owner
    if lessee:
        target['node.lessee'] = lessee
    return target
