"""How a node looks in an answer, at the version the client asked for.

Fields newer than the request's microversion are left out (Ironic's
VERSIONED_FIELDS, plus Ironside's ``failure_reason`` from 1.44, beside
``deploy_step``); secrets in ``driver_info``, ``driver_internal_info``
and ``instance_info`` are masked as ``******``; callers below the
``baremetal:node:get:filter_threshold`` policy see some fields redacted.

A :class:`NodeView` is built once per request and renders every node of
the answer, so per-request decisions are not repeated per node.
"""

from __future__ import annotations

import builtins
import datetime
import functools
import operator
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from typing import Any

import falcon
import orjson

from ironside.api import policy
from ironside.api import rendered_nodes
from ironside.api import versions
from ironside.common import exception
from ironside.common import hash_ring
from ironside.common import kept_json
from ironside.common import secrets
from ironside.common import states
from ironside.common.conf.default import INTERFACE_TYPES
from ironside.db import node_views

# Field -> the minor version that introduced it.
VERSIONED_FIELDS = {
    'driver_internal_info': versions.DRIVER_INTERNAL_INFO,
    'name': versions.NODE_NAME,
    'inspection_finished_at': versions.INSPECT_STATE,
    'inspection_started_at': versions.INSPECT_STATE,
    'clean_step': versions.NODE_CLEAN,
    'raid_config': versions.RAID_CONFIG,
    'target_raid_config': versions.RAID_CONFIG,
    'network_interface': versions.NETWORK_INTERFACE,
    'resource_class': versions.RESOURCE_CLASS,
    'storage_interface': versions.STORAGE_INTERFACE,
    'traits': versions.NODE_TRAITS,
    'rescue_interface': versions.RESCUE_INTERFACE,
    'bios_interface': versions.BIOS_INTERFACE,
    'fault': versions.FAULT,
    'deploy_step': versions.NODE_DEPLOY_STEP,
    'failure_reason': versions.NODE_DEPLOY_STEP,
    'conductor_group': versions.CONDUCTOR_GROUP,
    'automated_clean': versions.AUTOMATED_CLEAN,
    'protected': versions.NODE_PROTECTED,
    'protected_reason': versions.NODE_PROTECTED,
    'conductor': versions.CONDUCTORS,
    'owner': versions.NODE_OWNER,
    'description': versions.NODE_DESCRIPTION,
    'allocation_uuid': versions.ALLOCATIONS,
    'retired': versions.NODE_RETIRED,
    'retired_reason': versions.NODE_RETIRED,
    'lessee': versions.NODE_LESSEE,
    'network_data': versions.NODE_NETWORK_DATA,
    'boot_mode': versions.NODE_BOOT_MODE,
    'secure_boot': versions.NODE_BOOT_MODE,
    'shard': versions.NODE_SHARD,
    'parent_node': versions.PARENT_CHILD_NODES,
    'firmware_interface': versions.FIRMWARE_INTERFACE,
    'service_step': versions.SERVICE,
    'disable_power_off': versions.DISABLE_POWER_OFF,
    'instance_name': versions.NODE_INSTANCE_NAME,
    'health': versions.NODE_HEALTH,
}
for _iface in ('boot', 'console', 'deploy', 'inspect', 'management',
               'power', 'raid', 'vendor'):
    VERSIONED_FIELDS['%s_interface' % _iface] = versions.DYNAMIC_INTERFACES

INTERFACE_FIELDS = tuple('%s_interface' % i for i in INTERFACE_TYPES)
TIME_FIELDS = ('created_at', 'updated_at', 'provision_updated_at',
               'inspection_started_at', 'inspection_finished_at')
SECRET_FIELDS = ('driver_info', 'driver_internal_info', 'instance_info')
# Read from the nodes table as they are.
PLAIN_FIELDS = (
    'automated_clean', 'boot_mode', 'clean_step', 'conductor_group',
    'console_enabled', 'deploy_step', 'description', 'disable_power_off',
    'driver', 'extra', 'failure_reason', 'fault', 'health', 'instance_name',
    'instance_uuid', 'last_error', 'lessee', 'maintenance',
    'maintenance_reason', 'name', 'network_data', 'owner', 'parent_node',
    'power_state', 'properties', 'protected', 'protected_reason',
    'provision_state', 'raid_config', 'reservation', 'resource_class',
    'retired', 'retired_reason', 'secure_boot', 'service_step', 'shard',
    'target_power_state', 'target_provision_state', 'target_raid_config',
    'uuid') + INTERFACE_FIELDS
JOINED_FIELDS = ('allocation_uuid', 'chassis_uuid')
# JSON documents passed on as stored, without decoding them.
JSON_FIELDS = frozenset(('clean_step', 'deploy_step', 'extra',
                         'network_data', 'properties', 'raid_config',
                         'service_step', 'target_raid_config'))
EMPTY_OBJECT = orjson.Fragment(b'{}')
# Every field of a node in an answer (links aside).
ALL_FIELDS = frozenset(PLAIN_FIELDS + TIME_FIELDS + SECRET_FIELDS +
                       JOINED_FIELDS + ('traits', 'conductor'))
DEFAULT_LIST_FIELDS = ('instance_uuid', 'maintenance', 'power_state',
                       'provision_state', 'uuid', 'name')
# Fields nodes may not be sorted by.
UNSORTABLE_FIELDS = frozenset((
    'properties', 'driver_info', 'extra', 'instance_info',
    'driver_internal_info', 'clean_step', 'deploy_step', 'raid_config',
    'target_raid_config', 'traits', 'network_data', 'service_step'))

# What makes an instance_info document need masking (besides secrets).
_INSTANCE_WORDS = secrets.SECRET_WORDS + secrets.INSTANCE_SECRETS


def isotime(value: datetime.datetime | str | None) -> str | None:
    """Naive UTC from the database, as Ironic shows it.

    Raw SQLite rows hold timestamps as text ("2024-05-01 10:00:00.5").
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value.replace(' ', 'T', 1) + '+00:00'
    return value.isoformat() + '+00:00'


@functools.lru_cache(maxsize=None)
def visible_fields(version: versions.Version) -> frozenset[str]:
    """The fields a version shows; worked out once per version (there are
    about a hundred versions, and every node answer asks)."""
    return frozenset(f for f in ALL_FIELDS
                     if version.allows(VERSIONED_FIELDS.get(f, 0)))


def check_newer(version: versions.Version, fields: Iterable[str]) -> None:
    """406 for fields newer than the version."""
    newer = [f for f in fields if f in VERSIONED_FIELDS and
             not version.allows(VERSIONED_FIELDS[f])]
    if newer:
        raise exception.NotAcceptable(
            'Field(s) %s need a newer API version than %s'
            % (', '.join(sorted(newer)), version))


def check_fields(version: versions.Version, fields: Iterable[str] | None
                 ) -> None:
    """406 for fields newer than the version, 400 for unknown ones."""
    if fields is None:
        return
    versions.require(version, versions.FIELDS, 'fields')
    check_newer(version, fields)
    unknown = [f for f in fields if f not in ALL_FIELDS]
    if unknown:
        raise exception.InvalidParameterValue(
            err='Field(s) "%s" are not valid' % ', '.join(unknown))


def columns_for(fields: Iterable[str] | None) -> list[str]:
    """The columns to read to render ``fields`` (None: all)."""
    wanted = set(ALL_FIELDS if fields is None else fields)
    wanted |= {'uuid', 'owner', 'lessee'}
    if 'conductor' in wanted:
        wanted |= {'driver', 'conductor_group'}
    wanted -= {'traits', 'conductor'}
    return sorted(wanted)


def legacy_state(version: versions.Version, state: str | None
                 ) -> str | None:
    if state == states.AVAILABLE and \
            not version.allows(versions.AVAILABLE_STATE):
        return states.NOSTATE
    if state == states.INSPECTWAIT and \
            not version.allows(versions.INSPECT_WAIT):
        return states.INSPECTING
    return state


def _getter(indices: list[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """A function returning the values at ``indices`` of a row, as a tuple.
    """
    if not indices:
        return lambda row: ()
    if len(indices) == 1:
        only = indices[0]
        return lambda row: (row[only],)
    return operator.itemgetter(*indices)


def _source(fingerprint: str, traits: list[str] | None,
            conductor: str | None) -> tuple:
    """What a node's rendering is made of, besides the view."""
    return (fingerprint, None if traits is None else tuple(traits),
            conductor)


class NodeView:
    """Renders nodes for one request.

    Rows are read with JSON columns as stored text: documents shown as
    they are go into the answer without being decoded and encoded again;
    only those with secrets to mask are decoded.
    """

    def __init__(self, req: falcon.Request,
                 fields: Iterable[str] | None = None,
                 ring: hash_ring.HashRingManager | None = None) -> None:
        self.version: versions.Version = req.context.version
        self.context = req.context.ctx
        self.fields = None if fields is None else list(fields)
        self._ring = ring
        self._rings: dict | None = None
        # Owners of whole rings (none, or one conductor), by route.
        self._sole_owners: dict[tuple, str | None] = {}
        wanted = visible_fields(self.version)
        if self.fields is not None:
            wanted = wanted & set(self.fields)
        plain = [f for f in PLAIN_FIELDS + JOINED_FIELDS if f in wanted]
        self._scalars = [f for f in plain if f not in JSON_FIELDS and
                         f not in node_views.BOOLEAN_COLUMNS]
        self._json = [f for f in plain if f in JSON_FIELDS]
        self._booleans = [f for f in plain
                          if f in node_views.BOOLEAN_COLUMNS]
        self._times = [f for f in TIME_FIELDS if f in wanted]
        self._secrets = [f for f in SECRET_FIELDS if f in wanted]
        self._traits = 'traits' in wanted
        self._conductor = 'conductor' in wanted
        self._legacy = not self.version.allows(versions.INSPECT_WAIT)
        base = req.context.public_url
        self._self_prefix = base + '/v1/nodes/'
        self._bookmark_prefix = base + '/nodes/'
        self._sub_links: list[str] = []
        if self.fields is None:
            self._sub_links.append('ports')
            for name, minor in (('states', versions.STATES_LINKS),
                                ('portgroups',
                                 versions.PORTGROUPS_SUBCONTROLLERS),
                                ('volume', versions.VOLUME)):
                if self.version.allows(minor):
                    self._sub_links.append(name)
        show_password = policy.evaluate('show_password', self.context)
        self._show_secrets = {
            'driver_info': show_password,
            'driver_internal_info': show_password,
            'instance_info': policy.evaluate('show_instance_secrets',
                                             self.context)}
        self._filtered = policy.enforced() and not policy.check(
            'baremetal:node:get:filter_threshold', self.context)
        self._redactions: dict[tuple, dict[str, bool]] = {}
        # What, besides a node's row, its rendering depends on.
        self._cache_view = (self.version, None if self.fields is None
                            else tuple(self.fields), base,
                            tuple(self._show_secrets.values()))

    def columns(self) -> list[str]:
        return columns_for(self.fields)

    def list(self, filters: dict[str, Any], limit: int | None,
             marker: str | None, sort_key: str, sort_dir: str,
             conductor: str | None = None
             ) -> tuple[list[orjson.Fragment], str | None]:
        """A page of nodes, encoded (of one conductor, if named), and the
        UUID of its last node (the next page's marker).

        Nodes are read as fingerprints first, and only those the
        rendered-node cache does not hold for this view are read whole
        and rendered (see rendered_nodes). Answers redacted for the
        caller's project are rendered afresh.
        """
        routing = ['driver', 'conductor_group'] if conductor else []
        cache = rendered_nodes.cache()
        if self._filtered or not cache.capacity:
            rows = node_views.select_nodes(
                self.columns() + routing, filters, limit, marker, sort_key,
                sort_dir, traits=self._traits, raw=True)
            rows = self._of_conductor(rows, conductor)
            return self.encode(rows), self._last_uuid(rows)
        shown = ['uuid']
        if conductor or self._conductor:
            shown += ['driver', 'conductor_group']
        # The fingerprint of the columns the nodes are read whole with.
        marks = node_views.select_fingerprints(
            self.columns(), shown, filters, limit, marker, sort_key,
            sort_dir, traits=self._traits)
        marks = self._of_conductor(marks, conductor)
        return self._cached_page(marks, cache), self._last_uuid(marks)

    def _of_conductor(self, rows: node_views.Rows, conductor: str | None
                      ) -> node_views.Rows:
        """Only the rows of nodes ``conductor`` owns (all without one)."""
        if not conductor:
            return rows
        keys = rows.keys
        uuid, driver, group = (keys.index('uuid'), keys.index('driver'),
                               keys.index('conductor_group'))
        return rows._replace(rows=[
            row for row in rows.rows if self.conductor_of(
                row[uuid], row[driver], row[group]) == conductor])

    @staticmethod
    def _last_uuid(rows: node_views.Rows) -> str | None:
        return rows.rows[-1][rows.keys.index('uuid')] if rows.rows else None

    def _cached_page(self, marks: node_views.Rows,
                     cache: rendered_nodes.RenderedNodes
                     ) -> builtins.list[orjson.Fragment]:
        """The nodes of ``marks`` (fingerprints), kept ones as kept; the
        others read whole, rendered and kept under their own fingerprint
        (the one read with them, should the node have changed since)."""
        view = cache.view_id(self._cache_view)
        extras = self._extras_of(marks)
        mark_id, uuid_at, print_at = (marks.keys.index('id'),
                                      marks.keys.index('uuid'),
                                      marks.keys.index('fingerprint'))
        found: dict[int, bytes] = {}
        missing = []
        for row in marks.rows:
            traits, conductor = extras(row)
            encoded = cache.get(view, row[uuid_at],
                                _source(row[print_at], traits, conductor))
            if encoded is None:
                missing.append(row[mark_id])
            else:
                found[row[mark_id]] = encoded
        if missing:
            rows = node_views.select_nodes_by_id(self.columns(), missing,
                                                 traits=self._traits)
            node_of = self._renderer(rows.keys)
            extras = self._extras_of(rows)
            id_at, uuid_at, print_at = (rows.keys.index('id'),
                                        rows.keys.index('uuid'),
                                        rows.keys.index('fingerprint'))
            for row in rows.rows:
                traits, conductor = extras(row)
                encoded = kept_json.dumps(node_of(row, traits, conductor))
                cache.put(view, row[uuid_at],
                          _source(row[print_at], traits, conductor), encoded)
                found[row[id_at]] = encoded
        fragment = orjson.Fragment
        return [fragment(found[row[mark_id]]) for row in marks.rows
                if row[mark_id] in found]

    def select(self, ident: str) -> node_views.Rows:
        """The row of one node, as :meth:`render` takes it."""
        return node_views.select_node(ident, self.columns(),
                                      traits=self._traits, raw=True)

    def conductor_of(self, uuid: str, driver: str,
                     group: str | None) -> str | None:
        """The live conductor that owns a node (None if there is none).

        The rings are taken once per request; with one conductor in a
        ring, it owns every node and no hashing is needed.
        """
        route = (group, driver)
        if route in self._sole_owners:
            return self._sole_owners[route]
        if self._rings is None:
            self._rings = self._ring.rings if self._ring is not None \
                else {}
        ring = self._rings.get(((group or '').lower(), driver))
        if ring is None:
            self._sole_owners[route] = None
            return None
        if len(ring.nodes) == 1:
            owner = self._sole_owners[route] = next(iter(ring.nodes))
            return owner
        return next(iter(ring.get_nodes(uuid.encode())))

    def _redaction(self, owner: str | None, lessee: str | None
                   ) -> dict[str, bool]:
        found = self._redactions.get((owner, lessee))
        if found is None:
            target = policy.node_target(owner, lessee)
            found = {name: not policy.check('baremetal:node:get:%s' % name,
                                            self.context, target)
                     for name in ('last_error', 'reservation',
                                  'driver_internal_info', 'driver_info')}
            self._redactions[(owner, lessee)] = found
        return found

    def _secret(self, name: str, raw: str | None) -> Any:
        """A document that may hold secrets, masked unless policy says.

        Documents whose text names no secret are passed on as stored.
        """
        if not raw:
            return EMPTY_OBJECT
        if self._show_secrets[name]:
            return orjson.Fragment(raw)
        if name == 'instance_info':
            if not secrets.names_any(raw, _INSTANCE_WORDS):
                return orjson.Fragment(raw)
            return secrets.mask_instance_info(orjson.loads(raw))
        if not secrets.names_any(raw):
            return orjson.Fragment(raw)
        return secrets.mask_secrets(orjson.loads(raw))

    def render(self, rows: node_views.Rows) -> builtins.list[dict[str, Any]]:
        """The answer's nodes, from raw rows (see node_views)."""
        node_of = self._renderer(rows.keys)
        extras = self._extras_of(rows)
        return [node_of(row, *extras(row)) for row in rows.rows]

    def encode(self, rows: node_views.Rows) -> builtins.list[orjson.Fragment]:
        """The answer's nodes, each encoded."""
        return [orjson.Fragment(kept_json.dumps(node))
                for node in self.render(rows)]

    def _extras_of(self, rows: node_views.Rows
                   ) -> Callable[[tuple[Any, ...]],
                                 tuple[builtins.list[str] | None, str | None]]:
        """A function giving a row's traits and owning conductor, each
        None unless the view shows it."""
        keys = rows.keys
        traits_of = rows.traits if self._traits else None
        id_at = keys.index('id') if self._traits else None
        routing = None
        if self._conductor:
            routing = (keys.index('uuid'), keys.index('driver'),
                       keys.index('conductor_group'))

        def extras(row: tuple) -> tuple[list[str] | None, str | None]:
            traits = conductor = None
            if traits_of is not None and id_at is not None:
                traits = traits_of[row[id_at]]
            if routing is not None:
                conductor = self.conductor_of(
                    row[routing[0]], row[routing[1]], row[routing[2]])
            return traits, conductor
        return extras

    def _renderer(self, keys: builtins.list[str]) -> Callable[
            [tuple[Any, ...], builtins.list[str] | None, str | None],
            dict[str, Any]]:
        """A function rendering one row of ``keys`` (with its traits and
        conductor) as the answer's dict; the row's layout is read once."""
        index = {key: i for i, key in enumerate(keys)}
        scalars = _getter([index[name] for name in self._scalars])
        json_fields = [(name, index[name]) for name in self._json]
        booleans = [(name, index[name]) for name in self._booleans]
        times = [(name, index[name]) for name in self._times]
        secrets = [(name, index[name]) for name in self._secrets]
        uuid_at, owner_at, lessee_at = (index['uuid'], index['owner'],
                                        index['lessee'])
        names = self._scalars
        fragment = orjson.Fragment

        def node_of(row: tuple, traits: list[str] | None,
                    conductor: str | None) -> dict[str, Any]:
            node = dict(zip(names, scalars(row), strict=True))
            for name, at in json_fields:
                raw = row[at]
                node[name] = fragment(raw) if raw else EMPTY_OBJECT
            for name, at in booleans:
                value = row[at]
                node[name] = None if value is None else bool(value)
            for name, at in times:
                node[name] = isotime(row[at])
            for name, at in secrets:
                node[name] = self._secret(name, row[at])
            uuid = row[uuid_at]
            if self._traits:
                node['traits'] = traits
            if self._conductor:
                node['conductor'] = conductor
            if self._legacy and 'provision_state' in node:
                node['provision_state'] = legacy_state(
                    self.version, node['provision_state'])
            if self._filtered:
                self._redact(node, row[owner_at], row[lessee_at])
            self_href = self._self_prefix + uuid
            bookmark_href = self._bookmark_prefix + uuid
            node['links'] = [{'href': self_href, 'rel': 'self'},
                             {'href': bookmark_href, 'rel': 'bookmark'}]
            for name in self._sub_links:
                node[name] = [
                    {'href': self_href + '/' + name, 'rel': 'self'},
                    {'href': bookmark_href + '/' + name, 'rel': 'bookmark'}]
            return node
        return node_of

    def _redact(self, node: dict, owner: str | None,
                lessee: str | None) -> None:
        hidden = self._redaction(owner, lessee)
        if hidden['last_error'] and 'last_error' in node:
            node['last_error'] = ('** Value Redacted - Requires '
                                  'baremetal:node:get:last_error '
                                  'permission. **')
        if hidden['reservation'] and 'reservation' in node:
            node['reservation'] = ('** Redacted - requires baremetal:node:'
                                   'get:reservation permission. **')
        if hidden['driver_internal_info'] and \
                'driver_internal_info' in node:
            node['driver_internal_info'] = {
                'content': '** Redacted - Requires baremetal:node:get:'
                           'driver_internal_info permission. **'}
        if hidden['driver_info'] and 'driver_info' in node:
            node['driver_info'] = {
                'content': '** Redacted - requires baremetal:node:get:'
                           'driver_info permission. **'}
