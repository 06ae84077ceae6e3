"""/v1/nodes: list, show, create, update (JSON patch) and delete nodes.

Reads come straight from the database, reading only the columns the
answer shows. Changes go through the conductor that owns the node, as in
Ironic, but for a PATCH of data fields only (extra, properties, ...) of
an idle node: no conductor does anything with those but write them, so
the API writes them itself, compared and set against the row it read
(:func:`ironside.db.nodes.merge_node`), and concurrent edits of
different fields all land.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon
from oslo_utils import uuidutils

from ironside.api import base
from ironside.api import collection
from ironside.api import links
from ironside.api import node_access
from ironside.api import node_view
from ironside.api import patch as json_patch
from ironside.api import policy
from ironside.api import schemas
from ironside.api import versions
from ironside.api import wire
from ironside.api.schemas import node as node_schema
from ironside.common import exception
from ironside.common import heap
from ironside.common import states
from ironside.db import allocations as allocations_db
from ironside.db import chassis as chassis_db
from ironside.db import node_views
from ironside.db import nodes as nodes_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

# Names a node may not take: they are words of the API's paths.
RESERVED_NAMES = ('detail', 'validate', 'states', 'management',
                  'maintenance', 'vendor_passthru')
FAULTS = ('power failure', 'clean failure', 'rescue abort failure',
          'service failure', 'hardware failure')

# Query parameter -> (reader, minor version that added it).
LIST_FILTERS = {
    'chassis_uuid': (wire.as_uuid, versions.MIN_MINOR),
    'instance_uuid': (wire.as_uuid, versions.MIN_MINOR),
    'associated': (wire.as_boolean, versions.MIN_MINOR),
    'maintenance': (wire.as_boolean, versions.MIN_MINOR),
    'retired': (wire.as_boolean, versions.MIN_MINOR),
    'provision_state': (wire.as_string, versions.PROVISION_STATE_FILTER),
    'driver': (wire.as_string, versions.DRIVER_FILTER),
    'resource_class': (wire.as_string, versions.RESOURCE_CLASS),
    'fault': (wire.as_string, versions.FAULT),
    'conductor_group': (wire.as_string, versions.CONDUCTOR_GROUP),
    'conductor': (wire.as_string, versions.CONDUCTORS),
    'owner': (wire.as_string, versions.NODE_OWNER),
    'lessee': (wire.as_string, versions.NODE_LESSEE),
    'project': (wire.as_string, versions.MIN_MINOR),
    'description_contains': (wire.as_string, versions.MIN_MINOR),
    'shard': (wire.as_string_list, versions.NODE_SHARD),
    'sharded': (wire.as_boolean, versions.NODE_SHARD),
    'include_children': (wire.as_boolean, versions.PARENT_CHILD_NODES),
    'parent_node': (wire.as_string, versions.PARENT_CHILD_NODES),
    'instance_name': (wire.as_string, versions.NODE_INSTANCE_NAME),
}
# A list answer of this many nodes or more has the process's heap
# trimmed afterwards (common/heap.py): rendering them left free pages.
TRIM_AFTER_NODES = 100
PAGING = {'marker': wire.as_uuid, 'limit': wire.as_integer,
          'sort_key': wire.as_string, 'sort_dir': wire.as_string}


def check_driver(rpcapi: ConductorAPI, uuid: str, driver: str,
                 conductor_group: str | None) -> None:
    """400 unless a live conductor serves ``driver`` in the group."""
    try:
        rpcapi.ring.owner(uuid, driver, conductor_group or '')
    except exception.NoValidHost:
        raise exception.NoValidHost(
            reason='No conductor service registered which supports driver '
                   '%s for conductor group "%s".'
                   % (driver, conductor_group or ''), code=400) from None


def check_name(version: versions.Version, name: str, message: str) -> None:
    versions.require(version, versions.NODE_NAME, 'node names')
    valid = wire.is_logical_name(name) \
        if version.allows(versions.UNRESTRICTED_NODE_NAME) \
        else wire.is_hostname_safe(name)
    if not valid or uuidutils.is_uuid_like(name):
        raise exception.Invalid(message % {'name': name})
    if name in RESERVED_NAMES:
        raise exception.Invalid(
            'The word "%s" is reserved and can not be used as a node name. '
            'Reserved words are: %s.' % (name, ', '.join(RESERVED_NAMES)))


def list_project(req: falcon.Request, kind: str, owner: str | None = None
                 ) -> str | None:
    """The project a list is limited to by policy (None: no limit)."""
    context = req.context.ctx
    if policy.check('baremetal:%s:list_all' % kind, context):
        return owner
    project = getattr(context, 'project_id', None)
    if not project or (owner and owner != project):
        policy.authorize('baremetal:%s:list_all' % kind, context)
    policy.authorize('baremetal:%s:list' % kind, context)
    return project


def _list_filters(version: versions.Version, query: dict[str, Any]
                  ) -> dict[str, Any]:
    filters = {}
    for name, (_reader, minor) in LIST_FILTERS.items():
        value = query.get(name)
        if value is None:
            continue
        versions.require(version, minor, 'the %s filter' % name)
        filters[name] = value
    state = filters.get('provision_state')
    if state is not None and state not in states.ALL_STATES:
        raise exception.InvalidParameterValue(
            err='Provision state "%s" is not valid' % state)
    fault = filters.get('fault')
    if fault is not None and fault not in FAULTS:
        raise exception.InvalidParameterValue(
            err='Unrecognized fault "%s" is specified, allowed faults are '
                '%s' % (fault, ', '.join(FAULTS)))
    return filters


class NodeList:
    """GET /v1/nodes and GET /v1/nodes/detail."""

    def __init__(self, rpcapi: ConductorAPI, detail: bool = False) -> None:
        self.rpcapi = rpcapi
        self.detail = detail

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               chassis_uuid: str | None = None) -> None:
        """``chassis_uuid`` from the path of /v1/chassis/{uuid}/nodes."""
        readers: dict[str, wire.Reader] = {
            name: reader for name, (reader, _) in LIST_FILTERS.items()}
        readers.update(PAGING)
        if not self.detail:
            readers.update(fields=wire.as_fields, detail=wire.as_boolean)
        query = wire.query(req, readers)
        if chassis_uuid is not None:
            query['chassis_uuid'] = wire.as_uuid('chassis_uuid',
                                                 chassis_uuid)
        version = req.context.version
        filters = _list_filters(version, query)
        filters['project'] = list_project(req, 'node', filters.get(
            'project'))
        if filters['project'] is None:
            del filters['project']
        if 'chassis_uuid' in filters:
            chassis_db.id_for(filters['chassis_uuid'])   # 404 if none
        sort_key = collection.sort_key(query['sort_key'],
                                       node_view.UNSORTABLE_FIELDS)
        node_view.check_newer(version, [sort_key])
        node_view.check_fields(version, query.get('fields'))
        if self.detail:
            fields = None
        else:
            fields = collection.fields_or_default(
                version, query['fields'], query['detail'],
                node_view.DEFAULT_LIST_FIELDS)
        page_size = collection.limit(query['limit'])
        view = node_view.NodeView(req, fields, ring=self.rpcapi.ring)
        conductor = filters.pop('conductor', None)
        nodes, last = view.list(filters, page_size, query['marker'],
                                sort_key, collection.sort_dir(
                                    query['sort_dir']), conductor)
        params = {name: value for name, value in query.items()
                  if name not in ('limit', 'marker')}
        resource = 'nodes/detail' if self.detail else 'nodes'
        if filters.get('instance_uuid'):
            page_size = 0
        wire.send(resp, collection.answer(req, 'nodes', nodes, page_size,
                                          resource, params, marker=last))
        if len(nodes) >= TRIM_AFTER_NODES:
            heap.give_back_freed_memory()



class NodeCollection(NodeList):
    """GET and POST /v1/nodes."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        wire.query(req, {})
        context = req.context.ctx
        own_project = node_access.authorize_create(req)
        version = req.context.version
        body = wire.read_json(req)
        schemas.validate('node', body, node_schema.CREATE)
        values = _normalized(body)
        _reject_newer(version, values)
        if own_project:
            node_access.claim_for_project(req, values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        values['conductor_group'] = (values.get('conductor_group') or
                                     '').lower()
        if values.get('name') is not None:
            check_name(version, values['name'],
                       "Cannot create node with invalid name '%(name)s'")
        if values.pop('console_enabled', None):
            raise exception.Invalid(
                'console_enabled can not be set when creating a node; '
                'enable the console with PUT /v1/nodes/<node>/states/'
                'console')
        values['provision_state'] = states.ENROLL \
            if version.allows(versions.ENROLL_STATE) else states.AVAILABLE
        _resolve_references(values)
        check_driver(self.rpcapi, values['uuid'], values['driver'],
                     values['conductor_group'])
        try:
            uuid = self.rpcapi.create_node(context, values)
        except exception.NoValidHost as exc:
            raise exception.NoValidHost(reason=exc.kwargs.get(
                'reason', exc.message), code=400) from None
        node = node_access.show_node(req, self.rpcapi, uuid)
        resp.location = links.url(req.context.public_url, 'nodes', uuid)
        wire.send(resp, node, status=201)


def _normalized(body: dict[str, Any]) -> dict[str, Any]:
    values = dict(body)
    for name in node_schema.BOOLEAN_FIELDS:
        if name in values:
            values[name] = wire.as_boolean(name, values[name])
    for name in node_schema.UUID_FIELDS:
        if values.get(name) is not None:
            wire.as_uuid(name, values[name])
    return {k: v for k, v in values.items()
            if v is not None or k in ('name', 'instance_uuid')}


def _reject_newer(version: versions.Version, values: dict[str, Any]
                  ) -> None:
    for name, minor in node_view.VERSIONED_FIELDS.items():
        empty = '' if name == 'conductor_group' else None
        if not version.allows(minor) and \
                values.get(name, empty) not in (empty, None):
            raise exception.NotAcceptable(
                'Field %s needs API version 1.%d or newer' % (name, minor))


def _resolve_references(values: dict[str, Any]) -> None:
    """chassis_uuid -> chassis_id; parent_node name -> UUID (400 if none)."""
    if 'chassis_uuid' in values:
        chassis_uuid = values.pop('chassis_uuid')
        values['chassis_id'] = chassis_db.id_for(chassis_uuid, code=400) \
            if chassis_uuid else None
    if values.get('parent_node'):
        try:
            parent = node_views.select_node_dict(values['parent_node'],
                                                 ['uuid'])
        except exception.NodeNotFound as exc:
            raise exception.Invalid(
                'Unable to apply the requested parent_node %s: %s'
                % (values['parent_node'], exc)) from None
        values['parent_node'] = parent['uuid']


# Patch paths and the rules they need (first match wins).
_PATCH_RULES = (
    ('/instance_info', 'baremetal:node:update_instance_info'),
    ('/extra', 'baremetal:node:update_extra'),
    ('/driver_info', 'baremetal:node:update:driver_info'),
    ('/properties', 'baremetal:node:update:properties'),
    ('/chassis_uuid', 'baremetal:node:update:chassis_uuid'),
    ('/instance_uuid', 'baremetal:node:update:instance_uuid'),
    ('/instance_name', 'baremetal:node:update_instance_info'),
    ('/lessee', 'baremetal:node:update:lessee'),
    ('/owner', 'baremetal:node:update:owner'),
    ('/driver', 'baremetal:node:update:driver_interfaces'),
    ('/network_data', 'baremetal:node:update:network_data'),
    ('/conductor_group', 'baremetal:node:update:conductor_group'),
    ('/name', 'baremetal:node:update:name'),
    ('/retired', 'baremetal:node:update:retired'),
    ('/shard', 'baremetal:node:update:shard'),
    ('/parent_node', 'baremetal:node:update:parent_node'),
    ('/disable_power_off', 'baremetal:node:update:disable_power_off'),
)


def _patch_rules(patch: list[dict]) -> list[str]:
    rules = []
    generic = False
    for operation in patch:
        path = operation['path']
        rule = next((r for prefix, r in _PATCH_RULES
                     if path == prefix or path.startswith(prefix + '/')),
                    None)
        if rule is None and path.lstrip('/') in node_view.INTERFACE_FIELDS:
            rule = 'baremetal:node:update:driver_interfaces'
        if rule is None and path == '/automated_clean' and \
                wire.as_boolean('automated_clean',
                                operation.get('value')) is False:
            rule = 'baremetal:node:disable_cleaning'
        if rule is None:
            generic = True
        else:
            rules.append(rule)
    if generic or not rules:
        rules.append('baremetal:node:update')
    return list(dict.fromkeys(rules))


# Top-level fields a PATCH writes as data: a conductor's update of them
# only checks the node's state and writes them. A patch of these alone is
# merged into an idle node without its lock; the driver, interfaces,
# conductor group, instance, maintenance, retirement and protection go
# to the conductor, under the lock, as before.
MERGED_FIELDS = frozenset((
    'automated_clean', 'chassis_uuid', 'description', 'disable_power_off',
    'driver_info', 'extra', 'instance_info', 'instance_name', 'lessee',
    'name', 'network_data', 'owner', 'parent_node', 'properties',
    'resource_class', 'shard'))

# What a removed top-level field becomes.
_EMPTY: dict[str, Any] = {
    name: {} for name in ('driver_info', 'extra', 'instance_info',
                          'network_data', 'properties')}
_EMPTY.update(maintenance=False, protected=False, retired=False,
              disable_power_off=False, conductor_group='')


class Node(base.Resource):
    """GET, PATCH and DELETE /v1/nodes/{node_ident}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str) -> None:
        query = wire.query(req, {'fields': wire.as_fields})
        node_view.check_fields(req.context.version, query['fields'])
        wire.send(resp, node_access.show_node(
            req, self.rpcapi, node_ident, 'baremetal:node:get',
            query['fields']))

    def on_delete(self, req: falcon.Request, resp: falcon.Response,
                  node_ident: str) -> None:
        wire.query(req, {})
        uuid = node_access.node_uuid_to_delete(req, node_ident)
        self.rpcapi.destroy_node(req.context.ctx, uuid)
        wire.no_content(resp)

    def on_patch(self, req: falcon.Request, resp: falcon.Response,
                 node_ident: str) -> None:
        version = req.context.version
        query = wire.query(req, {'reset_interfaces': wire.as_boolean})
        reset = query['reset_interfaces']
        if reset is not None:
            versions.require(version, versions.RESET_INTERFACES,
                             'reset_interfaces')
        patch = json_patch.validate(version, wire.read_json(req))
        fields = json_patch.check_allowed(patch,
                                          node_schema.PATCH_ALLOWED_FIELDS)
        node_view.check_newer(version, fields)
        if reset and not json_patch.values_at(patch, '/driver'):
            raise exception.Invalid(
                "The reset_interfaces parameter can only be used when "
                "changing the node's driver.")
        rules = _patch_rules(patch)
        row = node_access.get_node(req, node_ident, rules[0])
        for rule in rules[1:]:
            node_access.authorize_node(req, rule, row, node_ident)
        _check_patchable(req, row, patch)
        for name in json_patch.values_at(patch, '/name'):
            if name is not None:
                check_name(version, name,
                           "Node %s: Cannot change name to invalid name "
                           "'%%(name)s'" % node_ident)
        if fields <= MERGED_FIELDS and \
                row['provision_state'] in states.UPDATE_ALLOWED_STATES:
            _merge_patch(req, row, patch, rules)
            wire.send(resp, node_access.show_node(req, self.rpcapi,
                                                  row['uuid']))
            return
        values, expected = _patched_values(version, row, patch)
        if 'driver' in values and row['console_enabled']:
            raise exception.Conflict(
                'Node %s can not update the driver while the console is '
                'enabled. Please stop the console first.' % node_ident)
        if 'driver' in values or 'conductor_group' in values:
            check_driver(self.rpcapi, row['uuid'],
                         values.get('driver', row['driver']),
                         values.get('conductor_group',
                                    row['conductor_group']))
        self.rpcapi.update_node(req.context.ctx, row['uuid'], values,
                                reset_interfaces=bool(reset),
                                expected=expected)
        wire.send(resp, node_access.show_node(req, self.rpcapi,
                                              row['uuid']))


def _merge_patch(req: falcon.Request, row: dict[str, Any], patch: list[dict],
                 rules: list[str]) -> None:
    """Apply a patch of data fields to the node as it is when written.

    The first attempt applies the patch to ``row``, which the caller has
    just read and authorised; each further one (after another writer
    came first) reads the node again, authorises, checks and applies the
    patch to what it holds, so a patch that no longer applies (a
    ``remove`` or ``replace`` of a key another request removed) fails as
    it would have on its first read.
    """
    uuid = row['uuid']
    first: list[dict[str, Any]] = [row]

    def read() -> dict[str, Any]:
        if first:
            return first.pop()
        current = node_access.get_node(req, uuid, rules[0])
        for rule in rules[1:]:
            node_access.authorize_node(req, rule, current, uuid)
        return current

    def change(current: dict[str, Any]) -> dict[str, Any]:
        _check_patchable(req, current, patch)
        if current['provision_state'] not in states.UPDATE_ALLOWED_STATES:
            raise exception.Conflict(
                'Node %s can not be updated while a state transition is '
                'in progress (provision state "%s").'
                % (uuid, current['provision_state']))
        return _patched_values(req.context.version, current, patch)[0]

    nodes_db.merge_node(row['id'], read, change)


def _check_patchable(req: falcon.Request, row: dict[str, Any],
                     patch: list[dict]) -> None:
    """409 while the node is busy, or for owner changes not allowed."""
    ident = row['name'] or row['uuid']
    removes_instance = patch == [{'op': 'remove', 'path': '/instance_uuid'}]
    if row['maintenance'] and removes_instance:
        return
    if row['target_provision_state'] and \
            row['provision_state'] not in states.UPDATE_ALLOWED_STATES:
        raise exception.Conflict(
            'Node %s can not be updated while a state transition is in '
            'progress.' % ident)
    if row['provision_state'] == states.INSPECTING and \
            req.context.version.allows(versions.INSPECT_WAIT):
        raise exception.Conflict(
            'Cannot update node "%s" while it is in state "%s".'
            % (row['uuid'], states.INSPECTING))
    if json_patch.values_at(patch, '/owner'):
        if row['provision_state'] == states.ACTIVE and not policy.check(
                'baremetal:node:update_owner_provisioned', req.context.ctx,
                policy.node_target(row['owner'], row['lessee'])):
            raise exception.Conflict(
                'Cannot update owner of node "%s" while it is in state '
                '"%s".' % (row['uuid'], states.ACTIVE))
        if row['allocation_id']:
            owner = allocations_db.owner_of(row['allocation_id'])
            if owner is not None:
                raise exception.Conflict(
                    'Cannot update owner of node "%s" while it is allocated '
                    'to an allocation with an owner.' % row['uuid'])


def _patched_values(version: versions.Version, row: dict[str, Any],
                    patch: list[dict]
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The node fields the patch changes, validated and normalised, and
    the values they had (for the write's compare-and-set)."""
    document = {name: row.get(name) for name in
                node_schema.PATCH_RESULT['properties']}
    patched = json_patch.apply(document, patch)
    schemas.validate('patch', {k: v for k, v in patched.items()
                               if v is not None or k == 'name'},
                     node_schema.PATCH_RESULT)
    for name in node_schema.BOOLEAN_FIELDS:
        if name in patched:
            patched[name] = wire.as_boolean(name, patched[name])
    for name in node_schema.UUID_FIELDS:
        if patched.get(name) is not None:
            wire.as_uuid(name, patched[name])
    values = json_patch.changes(document, patched, _EMPTY)
    expected = json_patch.originals(document, values)
    for name, empty in _EMPTY.items():
        if name in values and values[name] is None:
            values[name] = empty
    if 'conductor_group' in values:
        values['conductor_group'] = (values['conductor_group'] or '').lower()
    if 'chassis_uuid' in values:
        if row['chassis_uuid'] and not values['chassis_uuid'] and \
                not version.allows(versions.UNSET_CHASSIS_UUID):
            raise exception.NotAcceptable(
                'Removing chassis_uuid needs API version 1.%d or newer'
                % versions.UNSET_CHASSIS_UUID)
    _resolve_references(values)
    info = values.get('instance_info')
    if info and not row['instance_name'] and 'instance_name' not in values \
            and isinstance(info.get('display_name'), str):
        values['instance_name'] = info['display_name']
    return values, expected


class NodeValidate(base.Resource):
    """GET /v1/nodes/{node_ident}/validate and /v1/nodes/validate?node=."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               node_ident: str | None = None) -> None:
        if node_ident is None:
            query = wire.query(req, {'node': wire.as_uuid_or_name,
                                     'node_uuid': wire.as_uuid})
            node_ident = query['node_uuid'] or query['node']
            if node_ident is None:
                raise exception.MissingParameterValue(
                    err='Missing mandatory parameter: node')
        else:
            wire.query(req, {})
        uuid = node_access.node_uuid(req, node_ident,
                                     'baremetal:node:validate')
        wire.send(resp, self.rpcapi.validate_driver_interfaces(
            req.context.ctx, uuid))


class Shards:
    """GET /v1/shards (1.82): shard names and their node counts."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        if not req.context.version.allows(versions.NODE_SHARD):
            raise falcon.HTTPNotFound()
        wire.query(req, {})
        policy.authorize('baremetal:shards:get', req.context.ctx)
        wire.send(resp, {'shards': node_views.shards()})


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/nodes', NodeCollection(rpcapi))
    app.add_route('/v1/nodes/detail', NodeList(rpcapi, detail=True))
    app.add_route('/v1/nodes/validate', NodeValidate(rpcapi))
    app.add_route('/v1/nodes/{node_ident}', Node(rpcapi))
    app.add_route('/v1/nodes/{node_ident}/validate', NodeValidate(rpcapi))
    app.add_route('/v1/shards', Shards())
