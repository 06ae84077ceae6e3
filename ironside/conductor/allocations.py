"""Allocations: finding a node for a request, and giving it back.

A new allocation is processed in a worker: it lists the available,
unassociated nodes of the resource class that are not in maintenance
(among the candidate nodes, and of the owner's project, if given) and
that have every requested trait; it tries them in random order (a node
named like the allocation first), taking each node's lock and checking
it again, and links the first that still fits. If none does, the
allocation is ``error`` with ``last_error`` saying why.
"""

from __future__ import annotations

import logging
import random
import time
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common import states
from ironside.common.conf import CONF
from ironside.common.context import RequestContext
from ironside.db import allocations as allocations_db
from ironside.db import node_views
from ironside.db import nodes as nodes_db

if TYPE_CHECKING:
    from ironside.conductor.base_manager import BaseConductorManager

LOG = logging.getLogger(__name__)

_COLUMNS = ('id', 'uuid', 'name', 'resource_class', 'provision_state',
            'instance_uuid', 'maintenance', 'power_state')


def create(manager: BaseConductorManager, context: RequestContext,
           values: dict[str, Any], node_uuid: str | None = None
          ) -> dict[str, Any]:
    """Record the allocation and start processing it.

    Returns the allocation as created (``allocating``), as Ironic answers
    it: the outcome is read afterwards. A backfill (``node_uuid``) is
    done at once, and returned done.
    """
    values = dict(values, state=allocations_db.ALLOCATING,
                  conductor_affinity=manager.conductor_id)
    allocation = allocations_db.create(values)
    if node_uuid is not None:
        backfill(manager, context, allocation, node_uuid)
        return allocations_db.get(allocation['id'])
    try:
        manager.spawn_worker(
            lambda: allocate(manager, context, allocation['id']))
    except exception.NoFreeConductorWorker:
        allocations_db.ALLOCATIONS.destroy(allocation['id'])
        raise
    return allocation


def _traits_match(wanted: set[str], node: dict[str, Any]) -> bool:
    return wanted.issubset(node.get('traits') or ())


def _fits(node: dict[str, Any], allocation: dict[str, Any]) -> bool:
    return (not node['maintenance'] and not node['instance_uuid'] and
            node['provision_state'] == states.AVAILABLE and
            node['resource_class'] == allocation['resource_class'] and
            _traits_match(set(allocation['traits'] or ()), node))


def candidates(allocation: dict[str, Any]) -> list[dict[str, Any]]:
    filters = {'resource_class': allocation['resource_class'],
               'provision_state': states.AVAILABLE, 'associated': False,
               'maintenance': False}
    if allocation['candidate_nodes']:
        filters['uuid_in'] = allocation['candidate_nodes']
    if allocation['owner']:
        filters['project'] = allocation['owner']
    nodes = [node for node in node_views.select_node_dicts(
                 _COLUMNS, filters, traits=True)
             if node['power_state'] is not None]
    if not nodes:
        where = 'none of the requested nodes are available and match' \
            if allocation['candidate_nodes'] else 'no available nodes match'
        raise exception.AllocationFailed(
            uuid=allocation['uuid'], error='%s the resource class %s'
            % (where, allocation['resource_class']))
    wanted = set(allocation['traits'] or ())
    nodes = [node for node in nodes if _traits_match(wanted, node)]
    if not nodes:
        raise exception.AllocationFailed(
            uuid=allocation['uuid'],
            error='no suitable nodes have the requested traits %s'
                  % ', '.join(sorted(wanted)))
    random.shuffle(nodes)
    if allocation['name']:
        nodes.sort(key=lambda node: node['name'] != allocation['name'])
    return nodes


def _try_nodes(manager: BaseConductorManager, context: RequestContext,
               allocation: dict[str, Any], nodes: list[dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """Link the first node that still fits; return the locked ones."""
    locked = []
    for node in nodes:
        try:
            with manager.acquire(context, node['id'], purpose='allocating',
                                 retry=False) as task:
                current = node_views.select_node_dict(
                    task.node.id, _COLUMNS, traits=True)
                if not _fits(current, allocation):
                    continue
                allocations_db.attach_node(allocation['id'], task.node)
                LOG.info('Node %s is reserved for allocation %s',
                         node['uuid'], allocation['uuid'])
                return []
        except exception.NodeLocked:
            locked.append(node)
        except (exception.NodeAssociated, exception.InstanceAssociated,
                exception.NodeNotFound):
            continue
    if locked:
        return locked
    raise exception.AllocationFailed(
        uuid=allocation['uuid'],
        error='all nodes were filtered out during reservation')


def allocate(manager: BaseConductorManager, context: RequestContext,
             allocation_id: int) -> None:
    """Worker: find and link a node; never raises (records the error)."""
    try:
        allocation = allocations_db.get(allocation_id)
        nodes = candidates(allocation)
        attempts = CONF.conductor.node_locked_retry_attempts + 1
        for attempt in range(attempts):
            nodes = _try_nodes(manager, context, allocation, nodes)
            if not nodes:
                return
            if attempt + 1 < attempts:
                time.sleep(CONF.conductor.node_locked_retry_interval)
        raise exception.AllocationFailed(
            uuid=allocation['uuid'], error='could not reserve any of %d '
            'suitable nodes' % len(nodes))
    except exception.AllocationNotFound:
        LOG.info('Allocation %s was deleted while being processed',
                 allocation_id)
    except exception.AllocationFailed as exc:
        LOG.warning('%s', exc)
        _fail(allocation_id, str(exc))
    except Exception as exc:
        LOG.exception('Unexpected error processing allocation %s',
                      allocation_id)
        _fail(allocation_id, 'Unexpected exception during allocation: %s'
              % exc)


def _fail(allocation_id: int, error: str) -> None:
    try:
        allocations_db.fail(allocation_id, error)
    except exception.AllocationNotFound:
        pass


def backfill(manager: BaseConductorManager, context: RequestContext,
             allocation: dict[str, Any], node_uuid: str) -> None:
    """Record an allocation for a node deployed without one (1.58)."""
    try:
        with manager.acquire(context, node_uuid,
                             purpose='allocation backfilling') as task:
            node = task.node
            errors = []
            if node.provision_state != states.ACTIVE:
                errors.append('Node must be in the "active" state, but the '
                              'current state is "%s"' % node.provision_state)
            if allocation['resource_class'] and \
                    node.resource_class != allocation['resource_class']:
                errors.append('Resource class %s does not match the '
                              'requested resource class %s'
                              % (node.resource_class,
                                 allocation['resource_class']))
            traits = nodes_db.get_node_traits(node.id)
            if not set(allocation['traits'] or ()).issubset(traits):
                errors.append('List of traits %s does not match the '
                              'requested traits %s'
                              % (traits, allocation['traits']))
            if allocation['candidate_nodes'] and \
                    node.uuid not in allocation['candidate_nodes']:
                errors.append('Candidate nodes must be empty or contain the '
                              'target node, but got %s'
                              % allocation['candidate_nodes'])
            if errors:
                raise exception.AllocationFailed(
                    uuid=allocation['uuid'],
                    error='Cannot backfill an allocation for node %s: %s'
                          % (node.uuid, '; '.join(errors)), code=400)
            allocations_db.attach_node(allocation['id'], node)
    except exception.IronsideException as exc:
        _fail(allocation['id'], str(exc))
        raise


def destroy(manager: BaseConductorManager, context: RequestContext,
            allocation_uuid: str) -> None:
    """Delete an allocation, unlinking its node if it may be released."""
    allocation = allocations_db.get(allocation_uuid)
    if allocation['node_id'] is None:
        allocations_db.destroy(allocation['id'])
        return
    with manager.acquire(context, allocation['node_id'],
                         purpose='allocation deletion') as task:
        node = task.node
        if not node.maintenance:
            if node.target_provision_state and \
                    node.provision_state not in states.UPDATE_ALLOWED_STATES:
                raise exception.InvalidState(
                    'Cannot remove allocation %s for node %s, because the '
                    'node is in state %s where updates are not allowed (and '
                    'maintenance mode is off)'
                    % (allocation_uuid, node.uuid, node.provision_state))
            if node.provision_state == states.ACTIVE:
                raise exception.InvalidState(
                    'Cannot remove allocation %s for node %s, because the '
                    'node is active (and maintenance mode is off)'
                    % (allocation_uuid, node.uuid))
        allocations_db.destroy(allocation['id'])
