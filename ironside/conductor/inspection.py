"""Inspection: manageable → inspecting → manageable, and the rules.

The node's inspect interface discovers the hardware and says what it
found (``inventory`` and ``plugin_data``); the inspection rules of the
``main`` phase then run on it, highest priority first, and what they
leave is stored for ``GET /v1/nodes/{node}/inventory``. A rule whose
action fails (or a ``fail`` action) fails the inspection: the node goes
to ``inspect failed`` with the reason in ``last_error``.

What a rule may say is in ironside.common.inspection_rules; here are the
actions, which change the node, its traits and ports, or the plugin data.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import Any

import requests
from oslo_utils import netutils
from requests import adapters
from urllib3.util import retry

from ironside.common import capabilities
from ironside.common import exception
from ironside.common import inspection_rules as rules
from ironside.common.conf import CONF
from ironside.conductor import utils
from ironside.db import inspection_rules as rules_db
from ironside.db import models
from ironside.db import nodes as nodes_db
from ironside.db import ports as ports_db
from ironside.drivers import base
from ironside.drivers import step_defs

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

# Node fields rules may not set: the conductor's own, and those that
# choose the driver (changing them takes the API's checks).
_CONDUCTOR_FIELDS = frozenset((
    'id', 'uuid', 'provision_state', 'target_provision_state',
    'power_state', 'target_power_state', 'reservation', 'conductor_affinity',
    'driver_internal_info', 'provision_updated_at', 'inspection_started_at',
    'inspection_finished_at', 'created_at', 'updated_at', 'allocation_id',
    'instance_uuid', 'driver', 'conductor_group', 'shard'))
_NODE_COLUMNS = frozenset(c.key for c in models.Node.__table__.columns)
_PORT_COLUMNS = frozenset(('address', 'extra', 'local_link_connection',
                           'physical_network', 'pxe_enabled', 'name',
                           'is_smartnic', 'description', 'vendor',
                           'category')) & frozenset(
    c.key for c in models.Port.__table__.columns)


def start_inspect(task: TaskManager, verb: str = 'inspect') -> None:
    """Refuse what cannot be inspected (400/409), then inspect in a
    worker; the node's state tells how it went."""
    task.check_transition('inspect', verb)
    task.driver.inspect.validate(task)
    task.driver.power.validate(task)
    task.process_event('inspect', callback=_do_inspect, verb=verb)


def _do_inspect(task: TaskManager) -> None:
    node = task.node
    node.inspection_started_at = models.utcnow()
    node.inspection_finished_at = None
    try:
        found = task.driver.inspect.inspect_hardware(task)
        if isinstance(found, step_defs.Wait):
            task.record('Inspection waits for the agent\'s inventory',
                        'inspecting')
            task.process_event('wait', save=False)
            return
    except Exception as exc:
        _failed(task, exc)
        return
    _finish(task, found)


def continue_inspection(task: TaskManager, inventory: dict[str, Any],
                        plugin_data: dict[str, Any]) -> None:
    """Worker: the agent sent its inventory (the node is in inspect
    wait); process it as any inspection's findings."""
    task.process_event('resume', save=False)
    try:
        found = task.driver.inspect.continue_inspection(task, inventory,
                                                        plugin_data)
        add_ports(task, found['inventory'], found.get('plugin_data') or {})
    except Exception as exc:
        _failed(task, exc)
        return
    _finish(task, found)


def inspect_wait_timed_out(task: TaskManager, timeout: int) -> None:
    try:
        task.driver.inspect.abort(task)
    except Exception as exc:
        LOG.warning('Could not end the inspection of node %s: %s',
                    task.node.uuid, exc)
    task.node.inspection_finished_at = models.utcnow()
    utils.fail_node(task, 'Timeout reached while waiting for the agent\'s '
                    'inventory (%ss, [conductor]inspect_wait_timeout)'
                    % timeout, utils.STEP_TIMEOUT)


def _failed(task: TaskManager, exc: Exception) -> None:
    task.node.inspection_finished_at = models.utcnow()
    message = exc.message if isinstance(
        exc, exception.HardwareInspectionFailure) else \
        'Failed to inspect hardware: %s' % utils.describe(exc)
    try:
        task.driver.inspect.abort(task)
    except Exception as abort_exc:
        LOG.warning('Could not end the inspection of node %s: %s',
                    task.node.uuid, abort_exc)
    utils.fail_node(task, message, utils.reason_of(exc))


def _finish(task: TaskManager, found: base.Inspected) -> None:
    node = task.node
    inventory = found['inventory']
    plugin_data = found.get('plugin_data') or {}
    try:
        apply_rules(task, inventory, plugin_data)
    except Exception as exc:
        _failed(task, exc)
        return
    rules_db.store_inventory(node.id, inventory, plugin_data)
    node.inspection_finished_at = models.utcnow()
    utils.clear_failure(node)
    task.record('Node inspected', 'inspecting')
    task.process_event('done', save=False)  # written as the lock goes


def add_ports(task: TaskManager, inventory: dict[str, Any],
              plugin_data: dict[str, Any]) -> None:
    """A port for each MAC of the inventory the node has none for; the
    one the agent booted from is PXE-enabled (Ironic's ``ports`` hook)."""
    booted = str(plugin_data.get('boot_interface') or
                 (inventory.get('boot') or {}).get('pxe_interface') or ''
                 ).lower().replace('-', ':')
    if booted.startswith('01:') and len(booted) == 20:
        booted = booted[3:]  # PXELINUX's BOOTIF form
    known = {port['address'] for port in task.ports}
    for interface in inventory.get('interfaces') or ():
        mac = str(interface.get('mac_address') or '').lower()
        if not mac or mac in known or not netutils.is_valid_mac(mac):
            continue
        ports_db.create({'node_id': task.node.id, 'address': mac,
                         'pxe_enabled': mac == booted or not booted,
                         'extra': {'inspected_name':
                                   str(interface.get('name') or '')}})
        known.add(mac)
        task.record('Inspection added port %s (%s)' % (
            mac, interface.get('name')), 'inspecting')


def _built_in_rules() -> list[dict[str, Any]]:
    path = CONF.inspection_rules.built_in_rules
    if not path:
        return []
    try:
        with open(path) as stream:
            text = stream.read()
    except OSError as exc:
        raise exception.ConfigInvalid(
            error_msg='built-in inspection rules %s: %s' % (path, exc)
        ) from None
    return rules.built_in_rules(text, path)


def _masked(rule: dict[str, Any]) -> bool:
    mode = CONF.inspection_rules.mask_secrets
    return mode == 'always' or (mode == 'sensitive'
                                and not rule['sensitive'])


def apply_rules(task: TaskManager, inventory: dict[str, Any],
                plugin_data: dict[str, Any], phase: str = 'main') -> None:
    """Run the phase's rules whose conditions hold on what was found."""
    node = task.node
    found = rules_db.rules_to_apply(phase) + [
        rule for rule in _built_in_rules() if rule['phase'] == phase]
    # Highest priority first; stored before built-in, each by age.
    for rule in sorted(found, key=lambda rule: -rule['priority']):
        masked = _masked(rule)
        context = {'node': node,
                   'inventory': rules.Masked(inventory, masked),
                   'plugin_data': rules.Masked(plugin_data, masked)}
        if not all(rules.check_condition(condition, context)
                   for condition in rule['conditions'] or ()):
            LOG.debug('Inspection rule %s does not apply to node %s',
                      rule['uuid'], node.uuid)
            continue
        LOG.info('Applying inspection rule %s to node %s', rule['uuid'],
                 node.uuid)
        for action in rule['actions']:
            for args in rules.action_calls(action, context):
                try:
                    ACTIONS[action['op']](task, plugin_data, **args)
                except exception.HardwareInspectionFailure:
                    raise
                except Exception as exc:
                    raise exception.HardwareInspectionFailure(
                        error='rule %s, action %s: %s' % (
                            rule['uuid'], action['op'],
                            utils.describe(exc))) from None


# Paths into documents: /a/b or a.b.

def _parent(document: Any, parts: list[str], create: bool) -> Any:
    for part in parts[:-1]:
        document = document.setdefault(part, {}) if create \
            else document[part]
    return document


def _set(document: dict[str, Any], parts: list[str], value: Any) -> None:
    _parent(document, parts, True)[parts[-1]] = value


def _extend(document: dict[str, Any], parts: list[str], value: Any,
            unique: bool) -> None:
    current = _parent(document, parts, True).setdefault(parts[-1], [])
    if not isinstance(current, list):
        raise exception.InvalidParameterValue(
            err='cannot extend %s: it is not a list' % '/'.join(parts))
    if not unique or value not in current:
        current.append(value)


def _delete(document: dict[str, Any], parts: list[str]) -> None:
    del _parent(document, parts, False)[parts[-1]]


def _root(path: str, allowed: frozenset[str], what: str) -> list[str]:
    parts = rules.split_path(path)
    if parts[0] not in allowed:
        raise exception.InvalidParameterValue(
            err='%s is not a field of a %s that rules may change'
                % (parts[0], what))
    return parts


def _node_path(path: str) -> list[str]:
    parts = rules.split_path(path)
    if parts[0] not in _NODE_COLUMNS or parts[0] in _CONDUCTOR_FIELDS \
            or parts[0].endswith('_interface'):
        raise exception.InvalidParameterValue(
            err='%s is not a field of a node that rules may change'
                % parts[0])
    return parts


# A change to a document {field: value}, at a path of parts.
_Change = Callable[[dict[str, Any], list[str]], None]


def _change_node(task: TaskManager, path: str,
                 change: _Change) -> None:
    """Apply ``change`` to the node as a document {field: value}."""
    parts = _node_path(path)
    node = task.node
    document = {parts[0]: getattr(node, parts[0])}
    change(document, parts)
    setattr(node, parts[0], document.get(parts[0]))


def _change_port(task: TaskManager, port_id: str, path: str,
                 change: _Change) -> None:
    port = ports_db.PORTS.get(port_id)
    if port['node_id'] != task.node.id:
        raise exception.PortNotFound(port=port_id)
    parts = _root(path, _PORT_COLUMNS, 'port')
    document = {parts[0]: port[parts[0]]}
    change(document, parts)
    ports_db.PORTS.update(port['uuid'],
                          {parts[0]: document.get(parts[0])})


# Actions: (task, plugin_data, **args).

def _log(task: TaskManager, plugin_data: dict[str, Any], msg: Any,
         level: str = 'info') -> None:
    level = str(level).lower()
    if level not in ('debug', 'info', 'warning', 'error', 'critical'):
        raise exception.InvalidParameterValue(
            err='Invalid log level: %s' % level)
    getattr(LOG, level)('Inspection rule on node %s: %s', task.node.uuid,
                        msg)


def _fail(task: TaskManager, plugin_data: dict[str, Any], msg: Any) -> None:
    raise exception.HardwareInspectionFailure(error=str(msg))


def _capabilities(task: TaskManager) -> dict[str, str]:
    return capabilities.parse(
        (task.node.properties or {}).get('capabilities'))


def _save_capabilities(task: TaskManager, found: dict[str, str]) -> None:
    task.node.properties['capabilities'] = capabilities.format(found)


def _set_capability(task: TaskManager, plugin_data: dict[str, Any], name: str,
                    value: Any) -> None:
    _save_capabilities(task, dict(_capabilities(task), **{name: value}))


def _unset_capability(task: TaskManager, plugin_data: dict[str, Any], name: str
                     ) -> None:
    found = _capabilities(task)
    found.pop(name, None)
    _save_capabilities(task, found)


def _remove_trait(task: TaskManager, plugin_data: dict[str, Any], name: str
                 ) -> None:
    try:
        nodes_db.delete_node_trait(task.node.id, name)
    except exception.NodeTraitNotFound:
        LOG.warning('Inspection rule: node %s has no trait %s to remove',
                    task.node.uuid, name)


def _unset_plugin_data(task: TaskManager, plugin_data: dict[str, Any],
                       path: str) -> None:
    try:
        _delete(plugin_data, rules.split_path(path))
    except (KeyError, TypeError):
        LOG.warning('Inspection rule: no plugin data at %s', path)


def _api_call(task: TaskManager, plugin_data: dict[str, Any], url: str,
              headers: Any = None, proxies: Any = None, timeout: Any = 5,
              retries: Any = 3, backoff_factor: Any = 0.3) -> None:
    """GET ``url`` (a hook telling another service), retried on 5xx/429."""
    if float(timeout) <= 0:
        raise exception.InvalidParameterValue(
            err='timeout must be greater than zero')
    session = requests.Session()
    session.mount('http://', adapters.HTTPAdapter(max_retries=retry.Retry(
        total=int(retries), backoff_factor=float(backoff_factor),
        status_forcelist=[429, 500, 502, 503, 504],
        allowed_methods=['GET'], raise_on_status=False)))
    session.mount('https://', session.adapters['http://'])
    response = session.get(url, timeout=float(timeout),
                           headers=headers or None, proxies=proxies or None)
    response.raise_for_status()


ACTIONS: dict[str, Callable[..., None]] = {
    'fail': _fail,
    'log': _log,
    'set-attribute': lambda task, _pd, path, value: _change_node(
        task, path, lambda doc, parts: _set(doc, parts, value)),
    'extend-attribute': lambda task, _pd, path, value, unique=False:
        _change_node(task, path, lambda doc, parts: _extend(
            doc, parts, value, unique)),
    'del-attribute': lambda task, _pd, path: _change_node(
        task, path, _delete),
    'set-capability': _set_capability,
    'unset-capability': _unset_capability,
    'add-trait': lambda task, _pd, name: nodes_db.add_node_trait(
        task.node.id, name),
    'remove-trait': _remove_trait,
    'set-plugin-data': lambda task, plugin_data, path, value: _set(
        plugin_data, rules.split_path(path), value),
    'extend-plugin-data': lambda task, plugin_data, path, value,
        unique=False: _extend(plugin_data, rules.split_path(path), value,
                              unique),
    'unset-plugin-data': _unset_plugin_data,
    'set-port-attribute': lambda task, _pd, port_id, path, value:
        _change_port(task, port_id, path,
                     lambda doc, parts: _set(doc, parts, value)),
    'extend-port-attribute': lambda task, _pd, port_id, path, value,
        unique=False: _change_port(task, port_id, path, lambda doc, parts:
                                   _extend(doc, parts, value, unique)),
    'del-port-attribute': lambda task, _pd, port_id, path: _change_port(
        task, port_id, path, _delete),
    'api-call': _api_call,
}
