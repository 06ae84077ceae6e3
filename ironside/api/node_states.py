"""/v1/nodes/{node}/states: provision, power, RAID and console.

Changes of state are requests to the conductor that owns the node: they
are checked here as Ironic checks them (version, verb, arguments, state
machine) and answered 202 at once; clients watch the node to see them
happen.
"""

from __future__ import annotations

import string
from http import HTTPStatus
from typing import TYPE_CHECKING
from typing import Any
from typing import Generic
from typing import TypeVar

import falcon

from ironside.api import base
from ironside.api import links
from ironside.api import node_access
from ironside.api import node_view
from ironside.api import runbooks
from ironside.api import schemas
from ironside.api import versions
from ironside.api import wire
from ironside.api.schemas import common as common_schemas
from ironside.api.schemas import raid as raid_schemas
from ironside.common import boot_settings
from ironside.common import exception
from ironside.common import states
from ironside.common.context import RequestContext
from ironside.db import node_views
from ironside.db import nodes as nodes_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

# Verb -> minor version that introduced it.
VERB_VERSIONS = {
    'manage': versions.MANAGEABLE_STATE,
    'provide': versions.MANAGEABLE_STATE,
    'inspect': versions.INSPECT_STATE,
    'abort': versions.ABORT_VERB,
    'clean': versions.MANUAL_CLEAN,
    'adopt': versions.ADOPT_VERB,
    'rescue': versions.RESCUE_INTERFACE,
    'unrescue': versions.RESCUE_INTERFACE,
    'deploy': versions.DEPLOY_UNDEPLOY_VERBS,
    'undeploy': versions.DEPLOY_UNDEPLOY_VERBS,
    'unhold': versions.UNHOLD_VERB,
    'service': versions.SERVICE,
}
DEPLOY_VERBS = ('active', 'deploy', 'rebuild')
UNDEPLOY_VERBS = ('deleted', 'undeploy')

CONFIGDRIVE_SCHEMA = {'anyOf': [
    {'type': 'object',
     'properties': {
         'meta_data': {'type': 'object'},
         'network_data': {'type': 'object'},
         'user_data': {'type': ['object', 'array', 'string', 'null']},
         'vendor_data': {'type': 'object'},
     },
     'additionalProperties': False},
    {'type': ['string', 'null']},
]}
_B64_ALPHABET = frozenset(string.ascii_letters + string.digits +
                          '+/=\n\r\t ')

def states_of(version: versions.Version, row: dict[str, Any]
              ) -> dict[str, Any]:
    fields = ['console_enabled', 'last_error', 'power_state',
              'provision_state', 'target_power_state',
              'target_provision_state']
    if version.allows(versions.RAID_CONFIG):
        fields += ['raid_config', 'target_raid_config']
    if version.allows(versions.NODE_BOOT_MODE):
        fields += ['boot_mode', 'secure_boot']
    result = {name: row[name] for name in fields}
    result['provision_updated_at'] = node_view.isotime(
        row['provision_updated_at'])
    result['provision_state'] = node_view.legacy_state(
        version, result['provision_state'])
    return result


class NodeStates:
    """GET /v1/nodes/{node_ident}/states."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:get_states')
        wire.send(resp, states_of(req.context.version, row))


def _states_location(req: falcon.Request, node_ident: str) -> str:
    return links.url(req.context.public_url, 'nodes',
                     node_ident + '/states')


def check_configdrive(version: versions.Version, target: str,
                      configdrive: Any) -> None:
    if not configdrive:
        return
    allowed = ['active', 'deploy']
    if version.allows(versions.REBUILD_CONFIG_DRIVE):
        allowed.append('rebuild')
    if target not in allowed:
        raise exception.Invalid(
            'Adding a config drive is only supported when setting '
            'provision state to %s' % ', '.join(allowed))
    schemas.validate('configdrive', configdrive, CONFIGDRIVE_SCHEMA)
    if isinstance(configdrive, dict):
        if not version.allows(versions.CONFIGDRIVE_DICT):
            raise exception.Invalid(
                'Providing a JSON object for configdrive is only supported '
                'starting with API version 1.%d' % versions.CONFIGDRIVE_DICT)
        if 'vendor_data' in configdrive and \
                not version.allows(versions.CONFIGDRIVE_VENDOR_DATA):
            raise exception.Invalid(
                'Providing vendor_data in configdrive is only supported '
                'starting with API version 1.%d'
                % versions.CONFIGDRIVE_VENDOR_DATA)
    elif '://' not in configdrive and set(configdrive) - _B64_ALPHABET:
        raise exception.Invalid(
            'Invalid configdrive format: it is neither a JSON, nor a URL, '
            'nor a base64 string')


def _steps(name: str, steps: list[dict], schema: dict) -> list[dict]:
    try:
        schemas.validate(name, steps, schema)
    except exception.InvalidParameterValue as exc:
        raise exception.InvalidParameterValue(
            err='Invalid %s: %s' % (name, exc)) from None
    result = []
    for step in steps:
        step = dict(step)
        if 'priority' in step:
            step['priority'] = int(step['priority'])
        step.setdefault('args', {})
        result.append(step)
    return result


PROVISION_ARGS = ('target', 'configdrive', 'clean_steps', 'deploy_steps',
                  'rescue_password', 'disable_ramdisk', 'service_steps',
                  'runbook')


def _check_types(body: dict[str, Any]) -> None:
    expected = {'target': (str,), 'configdrive': (type(None), dict, str),
                'clean_steps': (type(None), list),
                'deploy_steps': (type(None), list),
                'rescue_password': (type(None), str),
                'service_steps': (type(None), list),
                'runbook': (type(None), str)}
    for name, types in expected.items():
        if name in body and not isinstance(body[name], types):
            raise exception.InvalidParameterValue(
                err='Expected types %s for %s: %s'
                    % (', '.join(t.__name__ for t in types), name,
                       body[name]))


def _with_runbook(req: falcon.Request, target: str, row: dict[str, Any],
                  body: dict[str, Any]) -> dict[str, Any]:
    """The request with the runbook's steps as its clean steps.

    As Ironic: the caller must be allowed to use the runbook (or it is
    public), and the node's traits must approve it (runbooks.check_approved).
    """
    runbook = runbooks.usable(req, body['runbook'], 'baremetal:runbook:use')
    traits = node_views.select_node_dict(row['uuid'], ['id'],
                                         traits=True)['traits']
    runbooks.check_approved(req, runbook, row['uuid'], traits)
    field = {'clean': 'clean_steps', 'service': 'service_steps'}.get(target)
    if field is None:
        raise exception.Invalid(
            'A runbook can only be provided when setting target provision '
            'state to clean or service')
    if body.get(field):
        raise exception.Invalid('Please provide either "%s" or a runbook, '
                                'but not both.' % field)
    steps = [{'interface': step['interface'], 'step': step['step'],
              'args': step['args']} for step in runbooks.steps_of(runbook)]
    return dict(body, **{field: steps},
                disable_ramdisk=runbook.disable_ramdisk)


# What a provision verb reads of its node: the checks below, the policy
# target and the route to its conductor (not the JSON documents, whose
# decoding cost more than the rest of the read).
PROVISION_COLUMNS = ('uuid', 'name', 'owner', 'lessee', 'maintenance',
                     'provision_state', 'reservation', 'driver',
                     'conductor_group')


class NodeProvision(base.Resource):
    """PUT /v1/nodes/{node_ident}/states/provision."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        body = wire.read_object(req, PROVISION_ARGS, required=('target',))
        _check_types(body)
        body['disable_ramdisk'] = wire.as_boolean(
            'disable_ramdisk', body.get('disable_ramdisk'))
        version = req.context.version
        target = body['target']
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:set_provision_state',
                                   PROVISION_COLUMNS)
        if target in VERB_VERSIONS:
            versions.require(version, VERB_VERSIONS[target])
        if body.get('clean_steps'):
            node_access.authorize_node(
                req, 'baremetal:node:set_provision_state:clean_steps', row)
        if target in ('active', 'rebuild') and row['maintenance']:
            raise exception.NodeInMaintenance(op='provisioning',
                                              node=row['uuid'])
        event = states.VERBS.get(target, target)
        if event not in states.allowed_events(row['provision_state']):
            if row['reservation']:
                raise exception.NodeLocked(node=row['uuid'],
                                           host=row['reservation'])
            raise exception.InvalidStateRequested(
                action=target, node=row['uuid'],
                state=row['provision_state'])
        self._check_arguments(version, target, row, body)
        if body.get('runbook'):
            body = _with_runbook(req, target, row, body)
        # The route of the node just read: the RPC API need not read it.
        self._dispatch(req.context.ctx, nodes_db.NodeRoute.of(row), target,
                       body)
        resp.location = _states_location(req, node_ident)
        wire.no_content(resp, 202)

    def _check_arguments(self, version: versions.Version, target: str,
                         row: dict[str, Any], body: dict[str, Any]) -> None:
        check_configdrive(version, target, body.get('configdrive'))
        if body.get('runbook'):
            versions.require(version, versions.RUNBOOKS, 'runbooks')
        disable_ramdisk = body['disable_ramdisk']
        if disable_ramdisk is not None:
            minor = {'clean': versions.CLEAN_DISABLE_RAMDISK,
                     'service': versions.SERVICE_DISABLE_RAMDISK}.get(target)
            if minor is None:
                raise exception.Invalid(
                    'disable_ramdisk is supported only with manual cleaning '
                    'or servicing')
            if not version.allows(minor):
                raise exception.NotAcceptable(
                    'disable_ramdisk is not acceptable in this API version')
        if body.get('clean_steps') and target != 'clean':
            raise exception.Invalid(
                '"clean_steps" is only valid when setting target provision '
                'state to clean')
        if body.get('deploy_steps'):
            versions.require(version, versions.DEPLOY_STEPS, 'deploy_steps')
            if target not in DEPLOY_VERBS:
                raise exception.Invalid(
                    '"deploy_steps" is only valid when setting target '
                    'provision state to active or rebuild')
        if body.get('rescue_password') is not None and target != 'rescue':
            raise exception.Invalid(
                '"rescue_password" is only valid when setting target '
                'provision state to rescue')
        if target == 'abort':
            if row['provision_state'] == states.INSPECTWAIT:
                versions.require(version, versions.INSPECTION_ABORT)
            if row['provision_state'] == states.DEPLOYWAIT:
                versions.require(version, versions.DEPLOYWAIT_ABORT)
        if body.get('service_steps') and target != 'service':
            raise exception.Invalid(
                '"service_steps" is only valid when setting target '
                'provision state to service')

    def _dispatch(self, context: RequestContext, node: nodes_db.NodeRoute,
                  target: str,
                  body: dict[str, Any]) -> None:
        if target in DEPLOY_VERBS:
            steps = body.get('deploy_steps')
            self.rpcapi.do_node_deploy(
                context, node, rebuild=target == 'rebuild',
                configdrive=body.get('configdrive'),
                deploy_steps=_steps('deploy_steps', steps,
                                    common_schemas.DEPLOY_STEPS)
                if steps else None)
        elif target in UNDEPLOY_VERBS:
            self.rpcapi.do_node_tear_down(context, node)
        elif target in ('clean', 'service'):
            field, schema, start = {
                'clean': ('clean_steps', common_schemas.CLEAN_STEPS,
                          self.rpcapi.do_node_clean),
                'service': ('service_steps', common_schemas.SERVICE_STEPS,
                            self.rpcapi.do_node_service)}[target]
            if not body.get(field):
                raise exception.Invalid(
                    '"%s" is required when setting target provision state '
                    'to %s' % (field, target))
            start(context, node, _steps(field, body[field], schema))
        elif target == 'rescue':
            password = body.get('rescue_password')
            if not password or not password.strip():
                raise exception.MissingParameterValue(
                    err='A non-empty "rescue_password" is required when '
                        'setting target provision state to rescue')
            self.rpcapi.do_node_rescue(context, node, password)
        elif target in ('manage', 'provide', 'inspect', 'abort', 'adopt',
                        'unrescue', 'unhold'):
            self.rpcapi.do_provisioning_action(context, node, target)
        else:
            raise exception.InvalidStateRequested(
                'The requested action "%s" could not be understood.'
                % target)


class NodePower(base.Resource):
    """PUT /v1/nodes/{node_ident}/states/power."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        body = wire.read_object(req, ('target', 'timeout'),
                                required=('target',))
        target = wire.as_string('target', body['target'])
        timeout = wire.as_integer('timeout', body.get('timeout'))
        version = req.context.version
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:set_power_state')
        if (target in (states.SOFT_REBOOT, states.SOFT_POWER_OFF) or
                timeout) and not version.allows(versions.SOFT_POWER_OFF):
            raise exception.NotAcceptable()
        if timeout is not None and timeout < 1:
            raise exception.Invalid('timeout has to be positive integer')
        if target not in states.POWER_TARGETS:
            raise exception.InvalidStateRequested(
                action=target, node=node_ident, state=row['power_state'])
        if row['provision_state'] in (states.CLEANWAIT, states.CLEANING):
            raise exception.InvalidStateRequested(
                action=target, node=node_ident,
                state=row['provision_state'])
        if target in (states.POWER_OFF, states.SOFT_POWER_OFF) and \
                row['disable_power_off']:
            raise exception.PowerStateFailure(pstate=target, code=409)
        self.rpcapi.change_node_power_state(req.context.ctx, row['uuid'],
                                            target, timeout=timeout)
        resp.location = _states_location(req, node_ident)
        wire.no_content(resp, 202)


class NodeRaid(base.Resource):
    """PUT /v1/nodes/{node_ident}/states/raid: the target RAID config."""

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        config = wire.read_json(req, default={})
        if not isinstance(config, dict):
            raise exception.InvalidParameterValue(
                err='Expected types dict for target_raid_config: %s'
                    % config)
        row = node_access.get_node(req, node_ident,
                                   'baremetal:node:set_raid_state')
        versions.require(req.context.version, versions.RAID_CONFIG)
        raid_schemas.validate(config)
        try:
            self.rpcapi.set_target_raid_config(req.context.ctx, row['uuid'],
                                               config)
        except exception.UnsupportedDriverExtension as exc:
            exc.code = HTTPStatus.NOT_FOUND
            raise
        wire.no_content(resp)


# The value a boot setting is set to.
_Target = TypeVar('_Target')


class _BootSetting(base.Resource, Generic[_Target]):
    """PUT of one boot setting (1.76): checked here, changed by the
    conductor (202)."""

    rule = ''

    def target(self, value: Any) -> _Target:
        """The setting's value the body gives (400 if it is none)."""
        raise NotImplementedError

    def dispatch(self, context: RequestContext, uuid: str,
                 target: _Target) -> None:
        """Ask the node's conductor to set it."""
        raise NotImplementedError

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        # Ironic finds the node and checks the policy before the version.
        row = node_access.get_node(req, node_ident, self.rule)
        if not req.context.version.allows(versions.CHANGE_BOOT_MODE):
            raise exception.NotFound(
                'This endpoint is supported starting with the API version '
                '1.%d' % versions.CHANGE_BOOT_MODE)
        body = wire.read_object(req, ('target',), required=('target',))
        target = self.target(body['target'])
        boot_settings.check_state(row['uuid'], row['provision_state'],
                                  '%s %s' % (self.rule.split(':')[-1],
                                             target))
        self.dispatch(req.context.ctx, row['uuid'], target)
        resp.location = _states_location(req, node_ident)
        wire.no_content(resp, 202)


class NodeBootMode(_BootSetting[str]):
    """PUT /v1/nodes/{node_ident}/states/boot_mode: uefi or bios."""

    rule = 'baremetal:node:set_boot_mode'

    def target(self, value: Any) -> str:
        target = wire.as_string('target', value)
        if target not in boot_settings.BOOT_MODES:
            raise exception.InvalidParameterValue(
                err='Invalid boot mode %s requested for node.' % target)
        return target

    def dispatch(self, context: RequestContext, uuid: str,
                 target: str) -> None:
        self.rpcapi.set_boot_mode(context, uuid, target)


class NodeSecureBoot(_BootSetting[bool]):
    """PUT /v1/nodes/{node_ident}/states/secure_boot: true or false."""

    rule = 'baremetal:node:set_secure_boot'

    def target(self, value: Any) -> bool:
        target = wire.as_boolean('target', value)
        if target is None:
            raise exception.InvalidParameterValue(
                err='Invalid secure boot state %s requested for node.'
                    % value)
        return target

    def dispatch(self, context: RequestContext, uuid: str,
                 target: bool) -> None:
        self.rpcapi.set_secure_boot_state(context, uuid, target)


class NodeConsole(base.Resource):
    """GET and PUT /v1/nodes/{node_ident}/states/console."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:get_console')
        try:
            info = self.rpcapi.get_console_information(req.context.ctx,
                                                       uuid)
            enabled = True
        except exception.NodeConsoleNotEnabled:
            info = None
            enabled = False
        wire.send(resp, {'console_enabled': enabled, 'console_info': info})

    def on_put(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        wire.query(req, {})
        body = wire.read_object(req, ('enabled',), required=('enabled',))
        enabled = wire.as_boolean('enabled', body['enabled'])
        if enabled is None:
            raise exception.MissingParameterValue(
                err='Missing mandatory parameter: enabled')
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:set_console_state')
        self.rpcapi.set_console_mode(req.context.ctx, uuid, enabled)
        resp.location = links.url(req.context.public_url, 'nodes',
                                  node_ident + '/states/console')
        wire.no_content(resp, 202)


class UnknownState:
    """/v1/nodes/{node_ident}/states/{other}: no such state; every method
    answers 405, as Ironic's states controller does for a name it lacks."""


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    node = '/v1/nodes/{node_ident}/states'
    app.add_route(node + '/{state}', UnknownState())
    app.add_route(node, NodeStates())
    app.add_route(node + '/provision', NodeProvision(rpcapi))
    app.add_route(node + '/power', NodePower(rpcapi))
    app.add_route(node + '/raid', NodeRaid(rpcapi))
    app.add_route(node + '/console', NodeConsole(rpcapi))
    app.add_route(node + '/boot_mode', NodeBootMode(rpcapi))
    app.add_route(node + '/secure_boot', NodeSecureBoot(rpcapi))

