"""Ironic's pre-RBAC policy defaults, kept as Ironic keeps them.

Before scopes and the reader/member/admin personas, Ironic's rules read
``rule:is_admin`` (an ``admin`` or ``baremetal_admin``) and
``rule:is_observer``. Ironic still registers those as the deprecated
defaults of its rules: with ``[oslo_policy] enforce_new_defaults =
false`` oslo.policy lets a request through that passes either the new
default or the deprecated one, so a deployment or a policy file written
for the old roles keeps working while it moves. The new defaults alone
are enforced unless that option says otherwise.
"""

from __future__ import annotations

from oslo_policy import policy

SINCE = 'W'     # Wallaby, oslo_log.versionutils.deprecated.WALLABY
PRE_RBAC = ('A rule of the API before it knew scopes and the default '
            'roles; deprecated for removal.')

# Why each family's old defaults are deprecated.
_REASONS = {
    'node': 'The node API knows system scope and the default roles now; '
            'its rules from before may go in a later release.',
    'port': 'The port API knows system scope and the default roles now.',
    'portgroup': 'The port group API knows system scope and the default '
                 'roles now.',
    'chassis': 'The chassis API knows system scope and the default roles '
               'now.',
    'driver': 'The driver API knows system scope and the default roles '
              'now.',
    'vendor': 'The vendor passthru API knows system scope and the default '
              'roles now.',
    'utility': 'The agent (utility) API knows system scope and the '
               'default roles now.',
    'volume': 'The volume API knows system scope and the default roles '
              'now.',
    'conductor': 'The conductor API knows system scope and the default '
                 'roles now.',
    'allocation': 'The allocation API knows system scope and the default '
                  'roles now.',
    'events': 'The event API knows system scope and the default roles '
              'now.',
    'deploy_template': 'The deploy template API knows system scope and the '
                       'default roles now.',
}

_ADMIN = 'rule:is_admin'
_OBSERVER = 'rule:is_admin or rule:is_observer'
_NODE_GET = ('baremetal:node:get', _OBSERVER)
_NODE_UPDATE = ('baremetal:node:update', _ADMIN)

# A rule: the deprecated rule's name (the rule's own unless Ironic named
# another) and check string. The family is the name's second part.
_DEPRECATED: dict[str, tuple[str | None, str]] = {
    'baremetal:node:create': (None, _ADMIN),
    'baremetal:node:list': (None, 'rule:baremetal:node:get'),
    'baremetal:node:list_all': (None, 'rule:baremetal:node:get'),
    'baremetal:node:get': (None, _OBSERVER),
    'baremetal:node:get:filter_threshold': _NODE_GET,
    'baremetal:node:get:last_error': _NODE_GET,
    'baremetal:node:get:reservation': _NODE_GET,
    'baremetal:node:get:driver_internal_info': _NODE_GET,
    'baremetal:node:get:driver_info': _NODE_GET,
    'baremetal:node:update:driver_info': _NODE_UPDATE,
    'baremetal:node:update:properties': _NODE_UPDATE,
    'baremetal:node:update:chassis_uuid': _NODE_UPDATE,
    'baremetal:node:update:instance_uuid': _NODE_UPDATE,
    'baremetal:node:update:lessee': _NODE_UPDATE,
    'baremetal:node:update:owner': _NODE_UPDATE,
    'baremetal:node:update:driver_interfaces': _NODE_UPDATE,
    'baremetal:node:update:network_data': _NODE_UPDATE,
    'baremetal:node:update:conductor_group': _NODE_UPDATE,
    'baremetal:node:update:name': _NODE_UPDATE,
    'baremetal:node:update:retired': _NODE_UPDATE,
    'baremetal:node:update': (None, _ADMIN),
    'baremetal:node:update_extra': (None, 'rule:baremetal:node:update'),
    'baremetal:node:update_instance_info': (None,
                                            'rule:baremetal:node:update'),
    'baremetal:node:update_owner_provisioned': (None, _ADMIN),
    'baremetal:node:delete': (None, _ADMIN),
    'baremetal:node:validate': (None, _ADMIN),
    'baremetal:node:set_maintenance': (None, _ADMIN),
    'baremetal:node:clear_maintenance': (None, _ADMIN),
    'baremetal:node:get_boot_device': (None, _OBSERVER),
    'baremetal:node:set_boot_device': ('baremetal:node:set_maintenance',
                                       _ADMIN),
    'baremetal:node:get_indicator_state': (None, _OBSERVER),
    'baremetal:node:set_indicator_state': (None, _ADMIN),
    'baremetal:node:inject_nmi': (None, _ADMIN),
    'baremetal:node:get_states': (None, _OBSERVER),
    'baremetal:node:set_power_state': (None, _ADMIN),
    'baremetal:node:set_boot_mode': ('baremetal:node:set_power_state',
                                     _ADMIN),
    'baremetal:node:set_secure_boot': ('baremetal:node:set_power_state',
                                       _ADMIN),
    'baremetal:node:set_provision_state': (None, _ADMIN),
    'baremetal:node:set_raid_state': (None, _ADMIN),
    'baremetal:node:get_console': (None, _ADMIN),
    'baremetal:node:set_console_state': (None, _ADMIN),
    'baremetal:node:vif:list': (None, _ADMIN),
    'baremetal:node:vif:attach': (None, _ADMIN),
    'baremetal:node:vif:detach': (None, _ADMIN),
    'baremetal:node:traits:list': (None, _OBSERVER),
    'baremetal:node:traits:set': (None, _ADMIN),
    'baremetal:node:traits:delete': (None, _ADMIN),
    'baremetal:node:bios:get': (None, _OBSERVER),
    'baremetal:node:disable_cleaning': (None, 'rule:baremetal:node:update'),
    'baremetal:node:history:get': _NODE_GET,
    'baremetal:node:inventory:get': _NODE_GET,
    'baremetal:port:get': (None, _OBSERVER),
    'baremetal:port:list': (None, 'rule:baremetal:port:get'),
    'baremetal:port:list_all': (None, 'rule:baremetal:port:get'),
    'baremetal:port:create': (None, _ADMIN),
    'baremetal:port:delete': (None, _ADMIN),
    'baremetal:port:update': (None, _ADMIN),
    'baremetal:portgroup:get': (None, _OBSERVER),
    'baremetal:portgroup:create': (None, _ADMIN),
    'baremetal:portgroup:delete': (None, _ADMIN),
    'baremetal:portgroup:update': (None, _ADMIN),
    'baremetal:portgroup:list': ('baremetal:portgroup:get', _OBSERVER),
    'baremetal:portgroup:list_all': ('baremetal:portgroup:get', _OBSERVER),
    'baremetal:chassis:get': (None, _OBSERVER),
    'baremetal:chassis:create': (None, _ADMIN),
    'baremetal:chassis:delete': (None, _ADMIN),
    'baremetal:chassis:update': (None, _ADMIN),
    'baremetal:driver:get': (None, _OBSERVER),
    'baremetal:driver:get_properties': (None, _OBSERVER),
    'baremetal:driver:get_raid_logical_disk_properties': (None, _OBSERVER),
    'baremetal:node:vendor_passthru': (None, _ADMIN),
    'baremetal:driver:vendor_passthru': (None, _ADMIN),
    'baremetal:node:ipa_heartbeat': (None, 'rule:public_api'),
    'baremetal:driver:ipa_lookup': (None, 'rule:public_api'),
    'baremetal:volume:list_all': ('baremetal:volume:get', _OBSERVER),
    'baremetal:volume:list': ('baremetal:volume:get', _OBSERVER),
    'baremetal:volume:get': (None, _OBSERVER),
    'baremetal:volume:create': (None, _ADMIN),
    'baremetal:volume:delete': (None, _ADMIN),
    'baremetal:volume:update': (None, _ADMIN),
    'baremetal:volume:view_target_properties': ('baremetal:volume:update',
                                                _ADMIN),
    'baremetal:conductor:get': (None, _OBSERVER),
    'baremetal:allocation:get': (None, _OBSERVER),
    'baremetal:allocation:list': (None, 'rule:baremetal:allocation:get'),
    'baremetal:allocation:list_all': (
        None, 'rule:baremetal:allocation:get and is_admin_project:True'),
    'baremetal:allocation:create': (
        None, 'rule:is_admin and is_admin_project:True'),
    'baremetal:allocation:create_restricted': (
        None, 'rule:baremetal:allocation:create'),
    'baremetal:allocation:delete': (None, _ADMIN),
    'baremetal:allocation:update': (None, _ADMIN),
    'baremetal:events:post': (None, _ADMIN),
    'baremetal:deploy_template:get': (None, _OBSERVER),
    'baremetal:deploy_template:create': (None, _ADMIN),
    'baremetal:deploy_template:delete': (None, _ADMIN),
    'baremetal:deploy_template:update': (None, _ADMIN),
}

# Vendor passthru and the agent's routes are families of their own.
_FAMILY = {'baremetal:node:vendor_passthru': 'vendor',
           'baremetal:driver:vendor_passthru': 'vendor',
           'baremetal:node:ipa_heartbeat': 'utility',
           'baremetal:driver:ipa_lookup': 'utility'}


def deprecated(name: str) -> policy.DeprecatedRule | None:
    """The deprecated default Ironic registers for rule ``name``."""
    found = _DEPRECATED.get(name)
    if found is None:
        return None
    old_name, check = found
    family = _FAMILY.get(name, name.split(':')[1])
    return policy.DeprecatedRule(name=old_name or name, check_str=check,
                                 deprecated_reason=_REASONS[family],
                                 deprecated_since=SINCE)


def _removed(name: str, check: str, description: str
             ) -> policy.RuleDefault:
    return policy.RuleDefault(name, check, description=description,
                              deprecated_for_removal=True,
                              deprecated_reason=PRE_RBAC,
                              deprecated_since=SINCE)


# The rules the deprecated defaults above are written with.
RULES = [
    _removed('admin_api', 'role:admin or role:administrator',
             'Administrators of the cloud, as the rules before scopes '
             'knew them'),
    policy.RuleDefault('public_api', 'is_public_api:True',
                       description='Set on requests to the routes that '
                                   'need no authentication'),
    _removed('is_member',
             '(project_domain_id:default or project_domain_id:None) and '
             '(project_name:demo or project_name:baremetal)',
             'The projects whose users the old rules let in'),
    _removed('is_observer',
             'rule:is_member and (role:observer or role:baremetal_observer)',
             'Read-only access, as the old rules knew it'),
    _removed('is_admin',
             'rule:admin_api or (rule:is_member and role:baremetal_admin)',
             'Full access, as the old rules knew it'),
    _removed('is_node_owner', 'project_id:%(node.owner)s',
             'The project that owns the node'),
    _removed('is_node_lessee', 'project_id:%(node.lessee)s',
             'The project that leases the node'),
    _removed('is_allocation_owner', 'project_id:%(allocation.owner)s',
             'The project that owns the allocation'),
]

# Creating an allocation without an owner under the old defaults
# (enforce_new_defaults = false) also needs this.
ALLOCATION_CREATE_PRE_RBAC = policy.DocumentedRuleDefault(
    name='baremetal:allocation:create_pre_rbac',
    check_str='(rule:is_member and role:baremetal_admin) or '
              '(is_admin_project:True and role:admin)',
    scope_types=['project'],
    description='With the old defaults (enforce_new_defaults = false), '
                'who may create an allocation that names no owner',
    operations=[{'path': '/allocations', 'method': 'POST'}],
    deprecated_reason=_REASONS['allocation'])
