"""The node seam over Ironside itself: conductor RPC and database reads.

States are read from the database, a few columns of many nodes per
query; transitions are asked of the conductor that owns each node,
through :class:`ironside.conductor.rpcapi.ConductorAPI`. Nodes are
enrolled and updated the way the API's node creation and update do it:
through the conductor's ``create_node`` and ``update_node``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from oslo_utils import uuidutils

from ironside.common import context as ironside_context
from ironside.common import exception
from ironside.common import rpc_base
from ironside.common import states
from ironside.db import deploy_templates as templates_db
from ironside.db import nodes as nodes_db
from ironside.strategy.core import selectors as site_selectors
from ironside.strategy.core.selectors import Selector
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.nodes import seam

LOG = logging.getLogger(__name__)

# Errors after which the same request may simply be made again.
TRANSIENT = (exception.NoFreeConductorWorker, exception.NodeLocked,
             exception.TemporaryFailure, exception.NoValidHost,
             exception.ConcurrentActionLimit)

_CHUNK = 500


class ConductorNodes:
    def __init__(self, rpcapi: Callable[[], object] | object | None = None,
                 context: ironside_context.RequestContext | None = None
                 ) -> None:
        """``rpcapi`` is a ConductorAPI, or a callable making one when
        first needed (the API process only resolves selectors)."""
        self._rpcapi = rpcapi
        self._context = context or ironside_context.get_admin_context()

    @property
    def rpcapi(self) -> Any:
        """The ConductorAPI (any object that answers as one)."""
        if callable(self._rpcapi):
            self._rpcapi = self._rpcapi()
        if self._rpcapi is None:
            raise exception.ConfigInvalid(
                error_msg='the site layer needs a conductor RPC API to '
                          'change nodes')
        return self._rpcapi

    def resolve(self, selectors: Sequence[Selector]) -> list[SiteNode]:
        rows = nodes_db.select_node_columns(('uuid', 'name', 'extra'))
        nodes = [site_selectors.site_node(r.uuid, r.name, r.extra)
                 for r in rows]
        nodes.sort(key=lambda n: n.name)
        return site_selectors.select(selectors, nodes)

    def read_states(self, node_uuids: Sequence[str]
                    ) -> dict[str, seam.NodeState]:
        states = {}
        uuids = list(node_uuids)
        for start in range(0, len(uuids), _CHUNK):
            for row in nodes_db.select_node_columns(
                    ('uuid', 'provision_state', 'last_error', 'maintenance',
                     'maintenance_reason', 'deploy_step', 'clean_step',
                     'power_state'),
                    {'uuid_in': uuids[start:start + _CHUNK]}):
                states[row.uuid] = seam.NodeState(
                    uuid=row.uuid, provision_state=row.provision_state,
                    last_error=row.last_error,
                    maintenance=bool(row.maintenance),
                    maintenance_reason=row.maintenance_reason,
                    step=step_name(row.deploy_step or row.clean_step),
                    power_state=row.power_state)
        return states

    def _request(self, node_uuid: str, call: Callable[[], object]) -> None:
        try:
            call()
        except exception.NodeLocked as exc:
            raise seam.Locked(exc.message) from exc
        except TRANSIENT as exc:
            raise seam.Busy(getattr(exc, 'message', str(exc))) from exc
        except exception.IronsideException as exc:
            raise seam.Rejected(exc.message) from exc
        except Exception as exc:
            if rpc_base.is_rpc_error(exc):
                # As transient as TRANSIENT's: the conductor was not
                # reached, or failed; the same request may be made again.
                raise seam.Busy(str(exc)) from exc
            LOG.exception('Unexpected error asking for node %s', node_uuid)
            raise seam.Rejected('unexpected error: %s' % exc) from exc

    def start_prepare(self, node_uuid: str, verb: str) -> None:
        self._request(node_uuid, lambda: self.rpcapi.do_provisioning_action(
            self._context, node_uuid, verb))

    def start_deploy(self, node_uuid: str,
                     deploy_steps: Sequence[dict[str, Any]] = (),
                     deploy_templates: Sequence[str] = ()) -> None:
        steps = template_steps(deploy_templates)
        steps.update({(s['interface'], s['step']): dict(s)
                      for s in deploy_steps})
        self._request(node_uuid, lambda: self.rpcapi.do_node_deploy(
            self._context, node_uuid,
            deploy_steps=list(steps.values()) or None))

    def find_nodes(self, names: Sequence[str]) -> dict[str, seam.KnownNode]:
        found = {}
        names = list(names)
        for start in range(0, len(names), _CHUNK):
            for row in nodes_db.select_node_columns(
                    ('uuid', 'name', 'extra'),
                    {'name_in': names[start:start + _CHUNK]}):
                found[row.name] = seam.KnownNode(row.uuid, row.name,
                                                 row.extra or {})
        return found

    def enroll(self, nodes: Sequence[seam.NewNode]) -> dict[str, str]:
        values: list[dict[str, Any]] = [
            {'uuid': uuidutils.generate_uuid(), 'name': node.name,
             'driver': node.driver,
             'driver_info': dict(node.driver_info),
             'properties': dict(node.properties),
             'resource_class': node.resource_class,
             'extra': dict(node.extra), 'conductor_group': '',
             'provision_state': states.ENROLL} for node in nodes]
        for value in values:
            try:
                self.rpcapi.ring.owner(value['uuid'], value['driver'], '')
            except exception.NoValidHost:
                raise seam.Rejected(
                    'node %s: no conductor serves driver %s'
                    % (value['name'], value['driver'])) from None
        created: dict[str, str] = {}
        for node, value in zip(nodes, values, strict=True):
            def create(name: str = node.name,
                       value: dict[str, Any] = value) -> None:
                created[name] = self.rpcapi.create_node(self._context, value)
            self._request(node.name, create)
        return created

    def set_extra(self, node_uuid: str, extra: Mapping[str, Any]) -> None:
        self._request(node_uuid, lambda: self.rpcapi.update_node(
            self._context, node_uuid, {'extra': dict(extra)}))

    def start_teardown(self, node_uuid: str) -> None:
        self._request(node_uuid, lambda: self.rpcapi.do_node_tear_down(
            self._context, node_uuid))

    def start_clean(self, node_uuid: str,
                    clean_steps: Sequence[dict[str, Any]]) -> None:
        self._request(node_uuid, lambda: self.rpcapi.do_node_clean(
            self._context, node_uuid, [dict(s) for s in clean_steps]))

    def power_off(self, node_uuid: str) -> None:
        self._request(node_uuid, lambda: self.rpcapi.change_node_power_state(
            self._context, node_uuid, states.POWER_OFF))

    def set_retired(self, node_uuid: str, retired: bool,
                    reason: str | None = None) -> None:
        values: dict[str, Any] = {'retired': retired}
        if retired:
            values['retired_reason'] = reason
        self._request(node_uuid, lambda: self.rpcapi.update_node(
            self._context, node_uuid, values))


def step_name(step: dict[str, Any] | None) -> str | None:
    """``interface.step`` of a node's deploy_step or clean_step."""
    if not step or not step.get('step'):
        return None
    return '%s.%s' % (step.get('interface'), step['step'])


def template_steps(names: Sequence[str]
                   ) -> dict[tuple[str, str], dict[str, Any]]:
    """The steps of the named deploy templates (Rejected if one is
    missing), keyed by (interface, step)."""
    if not names:
        return {}
    templates = {t.name: t for t in templates_db.by_names(names)}
    missing = [n for n in names if n not in templates]
    if missing:
        raise seam.Rejected('deploy template %s not found'
                            % ', '.join(missing))
    steps = {}
    for name in names:
        for step in templates[name].steps:
            value = step.as_step()
            steps[(value['interface'], value['step'])] = value
    return steps
