"""Ironic's policy rules and their defaults, so that a policy file
written for Ironic works here.

System-scoped admins, members and readers act on everything; a project
acts on the nodes it owns (``node.owner``) or leases (``node.lessee``).
Each rule also carries the default Ironic had before scopes
(``policy_legacy``), which ``[oslo_policy] enforce_new_defaults = false``
brings back. Rules that Ironside has no route for yet are registered all
the same (vendor passthru, events), so that a policy file naming them
loads and the sample lists them.
"""

from __future__ import annotations

from oslo_policy import policy

from ironside.api import policy_legacy

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


def any_of(*checks: str) -> str:
    return ' or '.join('(%s)' % check for check in checks)


SYSTEM_OR_PROJECT_MEMBER = any_of(SYSTEM_MEMBER, PROJECT_MEMBER,
                                  SYSTEM_SERVICE)
SYSTEM_OR_PROJECT_READER = any_of(SYSTEM_READER, PROJECT_READER,
                                  PROJECT_SERVICE)
SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN = any_of(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_MEMBER, LESSEE_ADMIN,
    LESSEE_MANAGER, PROJECT_SERVICE)
SYSTEM_ADMIN_OR_OWNER_ADMIN = any_of(SYSTEM_ADMIN, SYSTEM_SERVICE, OWNER_ADMIN,
                                     OWNER_MANAGER, PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_ADMIN = any_of(SYSTEM_MEMBER, SYSTEM_SERVICE,
                                      OWNER_ADMIN, OWNER_MANAGER,
                                      PROJECT_SERVICE)
SYSTEM_MEMBER_OR_OWNER_MEMBER = any_of(SYSTEM_MEMBER, SYSTEM_SERVICE,
                                       OWNER_MEMBER, PROJECT_SERVICE)
SYSTEM_OR_OWNER_READER = any_of(SYSTEM_READER, SYSTEM_SERVICE, OWNER_READER,
                                PROJECT_SERVICE)
API_READER = '(role:reader) or (role:service)'
SELF_OWNED_CREATOR = '(role:admin) or (role:service)'
ALLOCATION_MEMBER = any_of(SYSTEM_MEMBER, ALLOCATION_OWNER_MEMBER)
ALLOCATION_READER = any_of(SYSTEM_READER, ALLOCATION_OWNER_READER)
ALLOCATION_CREATOR = any_of(SYSTEM_MEMBER, 'role:member')
SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN = any_of(
    SYSTEM_MEMBER, SYSTEM_SERVICE, OWNER_ADMIN, OWNER_MANAGER, LESSEE_ADMIN,
    LESSEE_MANAGER, PROJECT_SERVICE)
# A volume target's properties may hold credentials.
TARGET_PROPERTIES_READER = any_of(SYSTEM_READER, 'role:admin')
RUNBOOK_ADMIN = any_of(SYSTEM_MEMBER, RUNBOOK_OWNER_MANAGER, 'role:service')
RUNBOOK_READER = any_of(SYSTEM_READER, RUNBOOK_OWNER_READER, 'role:service')
RUNBOOK_CREATOR = any_of(SYSTEM_MEMBER, 'role:manager', 'role:service')

SCOPES = ['system', 'project']
SYSTEM = ['system']
# Ironic's rules for the routes that take no credentials: the empty
# check string lets every request through.
ANYONE = ''


def rule(name: str, check: str, description: str,
         operations: list[tuple[str, str]],
         scope_types: list[str] | None = None
         ) -> policy.DocumentedRuleDefault:
    """A documented rule, with the deprecated default Ironic gives it."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'path': path, 'method': method}
                    for method, path in operations],
        scope_types=scope_types or SCOPES,
        deprecated_rule=policy_legacy.deprecated(name))



NODE = '/nodes/{node_ident}'

_GENERAL = [
    # config.service_project_name is in the target only with
    # [DEFAULT]rbac_service_role_elevated_access: without it this rule
    # matches nobody and a service user acts within its own project.
    policy.RuleDefault('service_role',
                       'role:service and '
                       'project_name:%(config.service_project_name)s',
                       description='A service user (such as Nova) of the '
                                   'service project, which acts on every '
                                   'node when [DEFAULT]rbac_service_role_'
                                   'elevated_access is set.'),
    policy.RuleDefault('show_password', '!',
                       description='Show secrets of node driver_info in '
                                   'answers instead of "******".'),
    policy.RuleDefault('show_instance_secrets', '!',
                       description='Show secrets of node instance_info in '
                                   'answers instead of "******".'),
]

_NODE = [
    rule('baremetal:node:create', any_of(SYSTEM_ADMIN, SYSTEM_SERVICE),
         'Create a node', [('POST', '/nodes')]),
    rule('baremetal:node:create:self_owned_node', SELF_OWNED_CREATOR,
         'Create a node owned by the caller\'s project (with '
         '[api]project_admin_can_manage_own_nodes)', [('POST', '/nodes')]),
    rule('baremetal:node:list', API_READER,
         'List the nodes the caller may see',
         [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    rule('baremetal:node:list_all', SYSTEM_READER,
         'List every node, whoever owns it',
         [('GET', '/nodes'), ('GET', '/nodes/detail')]),
    rule('baremetal:node:get', SYSTEM_OR_PROJECT_READER,
         'Show a node', [('GET', NODE)]),
    rule('baremetal:node:get:filter_threshold', SYSTEM_READER,
         'Callers not matching this see some fields of nodes redacted, '
         'per the rules below', [('GET', NODE)]),
    rule('baremetal:node:get:last_error', SYSTEM_OR_OWNER_READER,
         'See the last_error of a node', [('GET', NODE)]),
    rule('baremetal:node:get:reservation', SYSTEM_OR_OWNER_READER,
         'See which conductor holds a node', [('GET', NODE)]),
    rule('baremetal:node:get:driver_internal_info', SYSTEM_OR_OWNER_READER,
         'See the driver_internal_info of a node', [('GET', NODE)]),
    rule('baremetal:node:get:driver_info', SYSTEM_OR_OWNER_READER,
         'See the driver_info of a node', [('GET', NODE)]),
    rule('baremetal:node:update', SYSTEM_OR_PROJECT_MEMBER,
         'Update node fields no other rule covers', [('PATCH', NODE)]),
    rule('baremetal:node:update:driver_info', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Update driver_info', [('PATCH', NODE)]),
    rule('baremetal:node:update:properties', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Update properties', [('PATCH', NODE)]),
    rule('baremetal:node:update:chassis_uuid', SYSTEM_ADMIN,
         'Update chassis_uuid', [('PATCH', NODE)]),
    rule('baremetal:node:update:instance_uuid',
         SYSTEM_MEMBER_OR_OWNER_MEMBER, 'Update instance_uuid',
         [('PATCH', NODE)]),
    rule('baremetal:node:update:lessee', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Update lessee', [('PATCH', NODE)]),
    rule('baremetal:node:update:owner', SYSTEM_MEMBER, 'Update owner',
         [('PATCH', NODE)]),
    rule('baremetal:node:update:driver_interfaces',
         SYSTEM_MEMBER_OR_OWNER_ADMIN,
         'Update the driver and the *_interface fields', [('PATCH', NODE)]),
    rule('baremetal:node:update:network_data',
         SYSTEM_MEMBER_OR_OWNER_MEMBER, 'Update network_data',
         [('PATCH', NODE)]),
    rule('baremetal:node:update:conductor_group', SYSTEM_MEMBER,
         'Update conductor_group', [('PATCH', NODE)]),
    rule('baremetal:node:update:name', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Update name', [('PATCH', NODE)]),
    rule('baremetal:node:update:retired', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Update retired and retired_reason', [('PATCH', NODE)]),
    rule('baremetal:node:update:shard', SYSTEM_ADMIN, 'Update shard',
         [('PATCH', NODE)]),
    rule('baremetal:node:update:parent_node', SYSTEM_MEMBER,
         'Update parent_node', [('PATCH', NODE)]),
    rule('baremetal:node:update:disable_power_off', SYSTEM_ADMIN,
         'Update disable_power_off', [('PATCH', NODE)]),
    rule('baremetal:node:update_extra', SYSTEM_OR_PROJECT_MEMBER,
         'Update extra', [('PATCH', NODE)]),
    rule('baremetal:node:update_instance_info',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Update instance_info and instance_name', [('PATCH', NODE)]),
    rule('baremetal:node:update_owner_provisioned', SYSTEM_ADMIN,
         'Change the owner of an active node', [('PATCH', NODE)], SYSTEM),
    rule('baremetal:node:disable_cleaning', SYSTEM_ADMIN,
         'Set automated_clean to false', [('PATCH', NODE)]),
    rule('baremetal:node:delete', SYSTEM_ADMIN, 'Delete a node',
         [('DELETE', NODE)]),
    rule('baremetal:node:delete:self_owned_node', PROJECT_ADMIN,
         'Delete a node the caller\'s project owns (with '
         '[api]project_admin_can_manage_own_nodes)', [('DELETE', NODE)]),
    rule('baremetal:node:validate', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Validate the interfaces of a node',
         [('GET', NODE + '/validate')]),
    rule('baremetal:node:set_maintenance',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Put a node into maintenance', [('PUT', NODE + '/maintenance')]),
    rule('baremetal:node:clear_maintenance',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Take a node out of maintenance',
         [('DELETE', NODE + '/maintenance')]),
    rule('baremetal:node:get_boot_device', SYSTEM_MEMBER_OR_OWNER_ADMIN,
         'Show the boot device of a node',
         [('GET', NODE + '/management/boot_device'),
          ('GET', NODE + '/management/boot_device/supported')]),
    rule('baremetal:node:set_boot_device', SYSTEM_MEMBER_OR_OWNER_ADMIN,
         'Set the boot device of a node',
         [('PUT', NODE + '/management/boot_device')]),
    rule('baremetal:node:inject_nmi', SYSTEM_MEMBER_OR_OWNER_ADMIN,
         'Inject an NMI into a node',
         [('PUT', NODE + '/management/inject_nmi')]),
    rule('baremetal:node:get_states', SYSTEM_OR_PROJECT_READER,
         'Show the states of a node', [('GET', NODE + '/states')]),
    rule('baremetal:node:set_power_state', SYSTEM_OR_PROJECT_MEMBER,
         'Change the power state of a node',
         [('PUT', NODE + '/states/power')]),
    rule('baremetal:node:set_provision_state',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Change the provision state of a node',
         [('PUT', NODE + '/states/provision')]),
    rule('baremetal:node:set_provision_state:clean_steps',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Clean a node with chosen clean steps',
         [('PUT', NODE + '/states/provision')]),
    rule('baremetal:node:set_provision_state:service_steps',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Service a node with chosen service steps',
         [('PUT', NODE + '/states/provision')]),
    rule('baremetal:node:set_raid_state', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Set the target RAID configuration of a node',
         [('PUT', NODE + '/states/raid')]),
    rule('baremetal:node:get_indicator_state', SYSTEM_OR_PROJECT_READER,
         'Show the indicators of a node and their states',
         [('GET', NODE + '/management/indicators'),
          ('GET', NODE + '/management/indicators/{indicator}')]),
    rule('baremetal:node:set_indicator_state',
         SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Change the state of an indicator of a node',
         [('PUT', NODE + '/management/indicators/{indicator}')]),
    rule('baremetal:node:set_boot_mode', SYSTEM_OR_PROJECT_MEMBER,
         'Change the boot mode of a node',
         [('PUT', NODE + '/states/boot_mode')]),
    rule('baremetal:node:set_secure_boot', SYSTEM_OR_PROJECT_MEMBER,
         'Change the secure boot state of a node',
         [('PUT', NODE + '/states/secure_boot')]),
    rule('baremetal:node:get_console', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Show the console of a node', [('GET', NODE + '/states/console')]),
    rule('baremetal:node:set_console_state', SYSTEM_MEMBER_OR_OWNER_MEMBER,
         'Enable or disable the console of a node',
         [('PUT', NODE + '/states/console')]),
    rule('baremetal:node:vif:list', SYSTEM_OR_PROJECT_READER,
         'List the VIFs of a node', [('GET', NODE + '/vifs')]),
    rule('baremetal:node:vif:attach',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN, 'Attach a VIF to a node',
         [('POST', NODE + '/vifs')]),
    rule('baremetal:node:vif:detach',
         SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Detach a VIF from a node',
         [('DELETE', NODE + '/vifs/{node_vif_ident}')]),
    rule('baremetal:node:traits:list', SYSTEM_OR_PROJECT_READER,
         'List the traits of a node', [('GET', NODE + '/traits')]),
    rule('baremetal:node:traits:set', SYSTEM_MEMBER_OR_OWNER_ADMIN,
         'Add or replace traits of a node',
         [('PUT', NODE + '/traits'), ('PUT', NODE + '/traits/{trait}')]),
    rule('baremetal:node:traits:delete', SYSTEM_MEMBER_OR_OWNER_ADMIN,
         'Remove traits of a node',
         [('DELETE', NODE + '/traits'),
          ('DELETE', NODE + '/traits/{trait}')]),
    rule('baremetal:node:bios:get', SYSTEM_OR_PROJECT_READER,
         'Show the BIOS settings of a node',
         [('GET', NODE + '/bios'), ('GET', NODE + '/bios/{setting}')]),
    rule('baremetal:node:firmware:get', SYSTEM_OR_PROJECT_READER,
         'Show the firmware components of a node',
         [('GET', NODE + '/firmware')]),
    rule('baremetal:node:vmedia:attach', SYSTEM_OR_PROJECT_MEMBER,
         'Attach virtual media to a node', [('POST', NODE + '/vmedia')]),
    rule('baremetal:node:vmedia:detach', SYSTEM_OR_PROJECT_MEMBER,
         'Detach virtual media from a node',
         [('DELETE', NODE + '/vmedia')]),
    rule('baremetal:node:vmedia:get', SYSTEM_OR_PROJECT_READER,
         'Show the virtual media of a node', [('GET', NODE + '/vmedia')]),
    rule('baremetal:node:history:get', SYSTEM_OR_OWNER_READER,
         'Show the history of a node',
         [('GET', NODE + '/history'),
          ('GET', NODE + '/history/{event_ident}')]),
    rule('baremetal:node:inventory:get', SYSTEM_OR_OWNER_READER,
         'Show what the last inspection of a node found',
         [('GET', NODE + '/inventory')]),
    rule('baremetal:shards:get', SYSTEM_READER, 'List shards',
         [('GET', '/shards')]),
]


def _crud(kind: str, path: str, read: str, create: str, update: str,
          delete: str, listing: tuple[str, str] | None = None,
          scope_types: list[str] | None = None
          ) -> list[policy.DocumentedRuleDefault]:
    one = '%s/{%s_ident}' % (path, kind)
    rules = [
        rule('baremetal:%s:get' % kind, read, 'Show a %s' % kind,
             [('GET', path), ('GET', one)], scope_types),
        rule('baremetal:%s:create' % kind, create, 'Create a %s' % kind,
             [('POST', path)], scope_types),
        rule('baremetal:%s:update' % kind, update, 'Update a %s' % kind,
             [('PATCH', one)], scope_types),
        rule('baremetal:%s:delete' % kind, delete, 'Delete a %s' % kind,
             [('DELETE', one)], scope_types),
    ]
    if listing:
        rules += [
            rule('baremetal:%s:list' % kind, listing[0],
                 'List the %ss the caller may see' % kind, [('GET', path)]),
            rule('baremetal:%s:list_all' % kind, listing[1],
                 'List every %s' % kind, [('GET', path)]),
        ]
    return rules


_VOLUMES = [('GET', '/volume/connectors'), ('GET', '/volume/targets'),
            ('GET', NODE + '/volume/connectors'),
            ('GET', NODE + '/volume/targets')]
_VOLUME = [
    rule('baremetal:volume:list_all', SYSTEM_READER,
         'List every volume connector and target', _VOLUMES),
    rule('baremetal:volume:list', API_READER,
         'List the volume connectors and targets of the nodes the caller '
         'may see', _VOLUMES),
    rule('baremetal:volume:get', SYSTEM_OR_PROJECT_READER,
         'Show volume connectors and targets',
         [('GET', '/volume'), ('GET', '/volume/connectors/{connector_ident}'),
          ('GET', '/volume/targets/{target_ident}'),
          ('GET', NODE + '/volume')] + _VOLUMES),
    rule('baremetal:volume:create', SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
         'Create volume connectors and targets',
         [('POST', '/volume/connectors'), ('POST', '/volume/targets')]),
    rule('baremetal:volume:update', SYSTEM_OR_OWNER_MEMBER_AND_LESSEE_ADMIN,
         'Update volume connectors and targets',
         [('PATCH', '/volume/connectors/{connector_ident}'),
          ('PATCH', '/volume/targets/{target_ident}')]),
    rule('baremetal:volume:delete', SYSTEM_MEMBER_OR_OWNER_LESSEE_ADMIN,
         'Delete volume connectors and targets',
         [('DELETE', '/volume/connectors/{connector_ident}'),
          ('DELETE', '/volume/targets/{target_ident}')]),
    rule('baremetal:volume:view_target_properties',
         TARGET_PROPERTIES_READER,
         'See the properties of volume targets (they may hold secrets)',
         [('GET', '/volume/targets/{target_ident}')]),
]
_RUNBOOK_ONE = '/runbooks/{runbook_ident}'
_RUNBOOK = [
    rule('baremetal:runbook:get', RUNBOOK_READER, 'Show a runbook',
         [('GET', _RUNBOOK_ONE), ('GET', _RUNBOOK_ONE + '/traits')]),
    rule('baremetal:runbook:list', API_READER,
         'List the runbooks the caller owns and the public ones',
         [('GET', '/runbooks')]),
    rule('baremetal:runbook:list_all', SYSTEM_READER, 'List every runbook',
         [('GET', '/runbooks')]),
    rule('baremetal:runbook:create', RUNBOOK_CREATOR, 'Create a runbook',
         [('POST', '/runbooks')]),
    rule('baremetal:runbook:delete', RUNBOOK_ADMIN, 'Delete a runbook',
         [('DELETE', _RUNBOOK_ONE)]),
    rule('baremetal:runbook:update', RUNBOOK_ADMIN,
         'Update a runbook, or its traits',
         [('PATCH', _RUNBOOK_ONE), ('PUT', _RUNBOOK_ONE + '/traits'),
          ('PUT', _RUNBOOK_ONE + '/traits/{trait}'),
          ('DELETE', _RUNBOOK_ONE + '/traits'),
          ('DELETE', _RUNBOOK_ONE + '/traits/{trait}')]),
    rule('baremetal:runbook:update:public', SYSTEM_MEMBER,
         'Make a runbook public or private', [('PATCH', _RUNBOOK_ONE)]),
    rule('baremetal:runbook:update:owner', SYSTEM_MEMBER,
         'Change the owner of a runbook', [('PATCH', _RUNBOOK_ONE)]),
    rule('baremetal:runbook:use', RUNBOOK_ADMIN,
         'Run a runbook on a node', [('PUT', NODE + '/states/provision')]),
]



def _passthru(kind: str, path: str, scope_types: list[str]
              ) -> policy.DocumentedRuleDefault:
    call = path + '/vendor_passthru?method={method_name}'
    return rule('baremetal:%s:vendor_passthru' % kind, SYSTEM_ADMIN,
                'Call the vendor methods of a %s, and list them' % kind,
                [('GET', path + '/vendor_passthru/methods')] +
                [(method, call) for method in
                 ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')], scope_types)


# Vendor methods: a project-scoped rule may be given to owners by a
# policy file; by default only system admins call them.
_PASSTHRU = [_passthru('node', NODE, SCOPES),
             _passthru('driver', '/drivers/{driver_name}', SYSTEM)]
# The agent's routes take no credentials (its token proves the agent).
_AGENT = [
    policy.DocumentedRuleDefault(
        name='baremetal:node:ipa_heartbeat', check_str=ANYONE,
        description='Take heartbeats from the agent of a node',
        operations=[{'path': '/heartbeat/{node_ident}', 'method': 'POST'}],
        deprecated_rule=policy_legacy.deprecated(
            'baremetal:node:ipa_heartbeat')),
    policy.DocumentedRuleDefault(
        name='baremetal:driver:ipa_lookup', check_str=ANYONE,
        description='Let an agent find its node',
        operations=[{'path': '/lookup', 'method': 'GET'}],
        deprecated_rule=policy_legacy.deprecated(
            'baremetal:driver:ipa_lookup')),
    policy.DocumentedRuleDefault(
        name='baremetal:driver:ipa_continue_inspection', check_str=ANYONE,
        description='Take what an agent found inspecting its node',
        operations=[{'path': '/continue_inspection', 'method': 'POST'}]),
]


_OTHERS = (
    _crud('port', '/ports', SYSTEM_OR_PROJECT_READER,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, SYSTEM_MEMBER_OR_OWNER_ADMIN,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, (API_READER, SYSTEM_READER)) +
    _crud('portgroup', '/portgroups', SYSTEM_OR_PROJECT_READER,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, SYSTEM_MEMBER_OR_OWNER_ADMIN,
          SYSTEM_ADMIN_OR_OWNER_ADMIN, (API_READER, SYSTEM_READER)) +
    _crud('chassis', '/chassis', SYSTEM_READER, SYSTEM_ADMIN, SYSTEM_MEMBER,
          SYSTEM_ADMIN, scope_types=SYSTEM) +
    _crud('deploy_template', '/deploy_templates', SYSTEM_READER,
          SYSTEM_ADMIN, SYSTEM_ADMIN, SYSTEM_ADMIN) +
    _crud('inspection_rule', '/inspection_rules', SYSTEM_READER,
          SYSTEM_ADMIN, SYSTEM_ADMIN, SYSTEM_ADMIN) +
    [rule('baremetal:inspection_rule:list_all', SYSTEM_READER,
          'List every inspection rule', [('GET', '/inspection_rules')])] +
    _crud('allocation', '/allocations', ALLOCATION_READER,
          ALLOCATION_CREATOR, ALLOCATION_MEMBER, ALLOCATION_MEMBER,
          (API_READER, SYSTEM_READER)) +
    [
        rule('baremetal:allocation:create_restricted', SYSTEM_MEMBER,
             'Create an allocation for another project or none',
             [('POST', '/allocations')]),
        rule('baremetal:driver:get', SYSTEM_READER, 'Show drivers',
             [('GET', '/drivers'), ('GET', '/drivers/{driver_name}')],
             SYSTEM),
        rule('baremetal:driver:get_properties', SYSTEM_READER,
             'Show the driver_info properties of a driver',
             [('GET', '/drivers/{driver_name}/properties')], SYSTEM),
        rule('baremetal:driver:get_raid_logical_disk_properties',
             SYSTEM_READER,
             'Show the properties a logical disk of a RAID configuration '
             'may have',
             [('GET', '/drivers/{driver_name}/raid/'
                      'logical_disk_properties')], SYSTEM),
        rule('baremetal:conductor:get', SYSTEM_READER, 'Show conductors',
             [('GET', '/conductors'), ('GET', '/conductors/{hostname}')]),
        policy_legacy.ALLOCATION_CREATE_PRE_RBAC,
        rule('baremetal:events:post', SYSTEM_ADMIN,
             'Post events (from the networking service)',
             [('POST', '/events')], SYSTEM),
    ] + _VOLUME + _RUNBOOK + _PASSTHRU + _AGENT)

# Everything above, with the rules the deprecated defaults refer to.
RULES = _GENERAL + policy_legacy.RULES + _NODE + _OTHERS

