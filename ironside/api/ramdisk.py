"""The routes the agent on a machine calls: lookup, heartbeat and
continue_inspection, as Ironic serves them.

``GET /v1/lookup`` (1.22) finds the node by the machine's MAC addresses
(``addresses``) or ``node_uuid``, only in states where an agent is
expected to run ([api]restrict_lookup), and answers the node's UUID,
properties, instance_info and driver_internal_info (secrets masked) and
the agent's configuration, with its token the first time (1.62; later
lookups get ``******``). ``POST /v1/heartbeat/{node}`` (202) tells the
conductor where the agent listens; it must carry the token.
``POST /v1/continue_inspection`` (1.84) takes the inventory the agent
collected for a node in ``inspect wait``.

They need no authentication (the machine has no credentials: the token
is what proves the agent), and each node (or address) may call them at
most [api]ramdisk_rate_limit times in a burst.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import TYPE_CHECKING
from typing import Any
from urllib import parse

import falcon

from ironside.api import base
from ironside.api import versions
from ironside.api import wire
from ironside.common import exception
from ironside.common import secrets
from ironside.common import states
from ironside.common.conf import CONF
from ironside.db import node_views
from ironside.db import nodes as nodes_db
from ironside.db import ports as ports_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

AGENT_LOOKUP = 22
AGENT_VERSION = 36
AGENT_TOKEN = 62
AGENT_VERIFY_CA = 68
AGENT_STATUS = 72
CONTINUE_INSPECTION = 84

# Paths these routes answer on, for the authentication layer.
PUBLIC_PREFIXES = ('/v1/lookup', '/v1/heartbeat/', '/v1/continue_inspection')

# States in which an agent may look its node up (Ironic's).
LOOKUP_STATES = frozenset((
    states.DEPLOYING, states.DEPLOYWAIT, states.CLEANING, states.CLEANWAIT,
    states.INSPECTING, states.INSPECTWAIT, states.RESCUING,
    states.RESCUEWAIT, states.SERVICING, states.SERVICEWAIT))

_LOOKUP_COLUMNS = ('uuid', 'driver', 'conductor_group', 'provision_state',
                   'properties', 'instance_info', 'driver_internal_info')
_AGENT_STATUSES = ('start', 'end', 'error')


class RateLimit:
    """A token bucket per key: ``burst`` calls at once, then ``rate`` per
    second. Bounded: the least recently used keys are forgotten."""

    def __init__(self, keys: int = 10000) -> None:
        self._buckets: collections.OrderedDict[str, tuple[float, float]] = \
            collections.OrderedDict()
        self._keys = keys
        self._lock = threading.Lock()

    def admit(self, key: str) -> None:
        burst = float(CONF.api.ramdisk_rate_limit)
        rate = CONF.api.ramdisk_rate_limit_per_second
        now = time.monotonic()
        with self._lock:
            tokens, since = self._buckets.pop(key, (burst, now))
            tokens = min(burst, tokens + (now - since) * rate)
            if tokens < 1:
                self._buckets[key] = (tokens, now)
                raise exception.IronsideException(
                    'Too many requests from the agent of %s; slow down' % key,
                    code=429)
            self._buckets[key] = (tokens - 1, now)
            while len(self._buckets) > self._keys:
                self._buckets.popitem(last=False)


_LIMIT = RateLimit()


def _require(version: versions.Version, minor: int) -> None:
    if not version.allows(minor):
        raise falcon.HTTPNotFound()


def agent_config(token: str | None) -> dict[str, Any]:
    """What the agent is told at lookup."""
    config: dict[str, Any] = {
        'heartbeat_timeout': CONF.api.ramdisk_heartbeat_timeout,
        'agent_token_required': True,
    }
    if token is not None:
        config['agent_token'] = token
    return config


def _addresses(value: list[str] | None) -> list[str]:
    macs = []
    for mac in value or ():
        mac = mac.strip().lower()
        if not mac:
            continue
        macs.append(wire.mac('addresses', mac))
    return macs


def _find(node_uuid: str | None, macs: list[str]) -> dict[str, Any]:
    """The node an agent asks for, if an agent may run on it now."""
    if node_uuid:
        row = node_views.select_node_dict(node_uuid, _LOOKUP_COLUMNS)
    else:
        found = ports_db.nodes_with_addresses(macs)
        if len(found) != 1:
            raise exception.NodeNotFound(
                node='with addresses %s' % ', '.join(macs))
        row = node_views.select_node_dict(found[0], _LOOKUP_COLUMNS)
    allowed = LOOKUP_STATES | states.FAST_TRACK_STATES \
        if CONF.deploy.fast_track else LOOKUP_STATES
    if CONF.api.restrict_lookup and row['provision_state'] not in allowed:
        raise exception.NodeNotFound(
            'Node %s is in state "%s", in which no agent should run'
            % (row['uuid'], row['provision_state']))
    return row


def lookup_view(row: dict[str, Any], token: str | None) -> dict[str, Any]:
    return {
        'node': {
            'uuid': row['uuid'],
            'properties': row['properties'] or {},
            'instance_info': secrets.mask_instance_info(
                row['instance_info'] or {}),
            'driver_internal_info': secrets.mask_secrets(
                row['driver_internal_info'] or {}),
        },
        'config': agent_config(token),
    }


class Lookup(base.Resource):
    """GET /v1/lookup."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        version = req.context.version
        _require(version, AGENT_LOOKUP)
        args = wire.query(req, {'addresses': wire.as_string_list,
                                'node_uuid': wire.as_uuid})
        macs = _addresses(args['addresses'])
        if not macs and not args['node_uuid']:
            raise exception.MissingParameterValue(
                err='Lookup needs addresses (MAC addresses of the machine) '
                    'or node_uuid')
        _LIMIT.admit(args['node_uuid'] or ','.join(sorted(macs)))
        row = _find(args['node_uuid'], macs)
        token = None
        if version.allows(AGENT_TOKEN):
            token = self.rpcapi.get_node_with_token(
                req.context.ctx, _route(row),
                seen_state=row['provision_state'])
        wire.send(resp, lookup_view(row, token))


def _route(row: dict[str, Any]) -> nodes_db.NodeRoute:
    return nodes_db.NodeRoute.of(row)


def _callback_url(value: Any) -> str:
    url = wire.as_string('callback_url', value)
    parsed = parse.urlparse(url or '')
    if url is None or parsed.scheme not in ('http', 'https') \
            or not parsed.hostname:
        raise wire.invalid('callback_url must be an http(s) URL, not %r'
                           % (url,))
    return url


class Heartbeat(base.Resource):
    """POST /v1/heartbeat/{node_ident}."""

    def on_post(self, req: falcon.Request, resp: falcon.Response,
                node_ident: str) -> None:
        version = req.context.version
        _require(version, AGENT_LOOKUP)
        wire.query(req, {'callback_url': wire.as_string})
        body = wire.read_object(
            req, ('callback_url', 'agent_version', 'agent_token',
                  'agent_verify_ca', 'agent_status',
                  'agent_status_message'))
        for field, minor in (('agent_version', AGENT_VERSION),
                             ('agent_token', AGENT_TOKEN),
                             ('agent_verify_ca', AGENT_VERIFY_CA),
                             ('agent_status', AGENT_STATUS),
                             ('agent_status_message', AGENT_STATUS)):
            if body.get(field) is not None and not version.allows(minor):
                raise wire.invalid('Field "%s" not recognised in this API '
                                   'version' % field)
            wire.as_string(field, body.get(field))
        # Ironic took the callback URL as a query parameter before 1.22's
        # body; both are read, the body first.
        callback_url = _callback_url(body.get('callback_url') or
                                     req.params.get('callback_url'))
        status = body.get('agent_status')
        if status is not None and status not in _AGENT_STATUSES:
            raise wire.invalid('Unknown agent_status %r; one of %s'
                               % (status, ', '.join(_AGENT_STATUSES)))
        _LIMIT.admit(node_ident)
        try:
            route = nodes_db.node_route(node_ident)
        except exception.NodeNotFound:
            raise exception.NodeNotFound(node=node_ident) from None
        self.rpcapi.heartbeat(
            req.context.ctx, route, callback_url=callback_url,
            agent_version=body.get('agent_version'),
            agent_token=body.get('agent_token'),
            agent_verify_ca=body.get('agent_verify_ca'),
            agent_status=status,
            agent_status_message=body.get('agent_status_message'))
        wire.no_content(resp, 202)


class ContinueInspection(base.Resource):
    """POST /v1/continue_inspection."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        version = req.context.version
        if not (version.allows(CONTINUE_INSPECTION) or
                version == versions.MIN_VERSION):
            raise falcon.HTTPNotFound()
        args = wire.query(req, {'node_uuid': wire.as_uuid})
        data = wire.read_json(req)
        if not isinstance(data, dict) or \
                not isinstance(data.get('inventory'), dict):
            raise wire.invalid('The body must be an object with the '
                               'inventory the agent collected')
        inventory = data['inventory']
        interfaces = inventory.get('interfaces')
        if not isinstance(interfaces, list) or not all(
                isinstance(i, dict) for i in interfaces):
            raise wire.invalid('The inventory must list the machine\'s '
                               'interfaces')
        macs = _addresses([str(i.get('mac_address') or '')
                           for i in interfaces])
        if not macs and not args['node_uuid']:
            raise wire.invalid('The inventory names no MAC address and no '
                               'node_uuid was given')
        _LIMIT.admit(args['node_uuid'] or ','.join(sorted(macs)))
        row = _find_inspected(args['node_uuid'], macs)
        plugin_data = {key: value for key, value in data.items()
                       if key != 'inventory'}
        self.rpcapi.continue_inspection(req.context.ctx, _route(row),
                                        inventory=inventory,
                                        plugin_data=plugin_data)
        if version.allows(CONTINUE_INSPECTION):
            wire.send(resp, lookup_view(row, None), status=202)
        else:
            wire.send(resp, {'uuid': row['uuid']}, status=202)


def _find_inspected(node_uuid: str | None, macs: list[str]
                    ) -> dict[str, Any]:
    if node_uuid:
        row = node_views.select_node_dict(node_uuid, _LOOKUP_COLUMNS)
    else:
        found = ports_db.nodes_with_addresses(macs)
        rows = [node_views.select_node_dict(uuid, _LOOKUP_COLUMNS)
                for uuid in found]
        rows = [r for r in rows if r['provision_state'] == states.INSPECTWAIT]
        if len(rows) != 1:
            raise exception.NodeNotFound(
                node='in inspect wait with addresses %s' % ', '.join(macs))
        row = rows[0]
    if row['provision_state'] != states.INSPECTWAIT:
        raise exception.NodeNotFound(
            'Node %s is in state "%s", not "inspect wait"'
            % (row['uuid'], row['provision_state']))
    return row


class HeartbeatWithoutNode:
    """POST /v1/heartbeat: the node is missing from the path (400, as
    Ironic's handler answers for its missing argument)."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        raise exception.MissingParameterValue(
            err='Missing mandatory parameter: node_ident')


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/lookup', Lookup(rpcapi))
    app.add_route('/v1/heartbeat', HeartbeatWithoutNode())
    app.add_route('/v1/heartbeat/{node_ident}', Heartbeat(rpcapi))
    app.add_route('/v1/continue_inspection', ContinueInspection(rpcapi))
