"""The conductor's RPC methods: thin, each takes a lock and delegates.

Methods return quickly: long work is handed to a worker thread and the
node's state tells the caller how it goes. Expected errors (bad input,
wrong state, locked node, no free worker) reach the API as the same
exception classes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
from typing import Any

from oslo_utils import uuidutils

from ironside.common import exception
from ironside.common import states
from ironside.common.conf.default import INTERFACE_TYPES
from ironside.common.context import RequestContext
from ironside.conductor import agent_callbacks
from ironside.conductor import allocations
from ironside.conductor import boot_settings
from ironside.conductor import cleaning
from ironside.conductor import deployments
from ironside.conductor import ports
from ironside.conductor import power
from ironside.conductor import protection
from ironside.conductor import provisioning
from ironside.conductor import rescue
from ironside.conductor import retirement
from ironside.conductor import servicing
from ironside.conductor import step_flow
from ironside.conductor import utils
from ironside.conductor import vendor_passthru
from ironside.conductor import volume
from ironside.db import nodes as nodes_db
from ironside.db import resources

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

# Node fields only the conductor changes; updates through the API may not.
READ_ONLY_FIELDS = frozenset((
    'id', 'uuid', 'provision_state', 'target_provision_state',
    'power_state', 'target_power_state', 'reservation',
    'conductor_affinity', 'driver_internal_info', 'last_error',
    'failure_reason', 'deploy_step', 'clean_step', 'service_step',
    'provision_updated_at', 'inspection_started_at',
    'inspection_finished_at', 'created_at', 'updated_at', 'raid_config',
    'allocation_id', 'console_enabled'))

INTERFACE_FIELDS = tuple('%s_interface' % i for i in INTERFACE_TYPES)


class ConductorManager(vendor_passthru.VendorPassthruEndpoints):
    # The API version it serves over oslo.messaging is
    # ironside.common.rpc's (its endpoint's target).

    # Nodes

    @utils.rpc_endpoint
    def create_node(self, context: RequestContext, values: dict[str, Any]
                   ) -> str:
        """Create a node, filling in default interfaces; returns its UUID."""
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.update(self.drivers.resolve_interfaces(values['driver'],
                                                      values))
        node = nodes_db.create_node(values)
        return node.uuid

    @utils.rpc_endpoint
    def update_node(self, context: RequestContext, node_id: str,
                    values: dict[str, Any], reset_interfaces: bool = False,
                    expected: dict[str, Any] | None = None) -> str:
        """Change node fields an API user may change; returns the UUID.

        ``expected`` holds the values the caller computed ``values`` from;
        under the node's lock they must still be stored (compare-and-set),
        so a 200 always means the change was kept.
        """
        illegal = sorted(set(values) & READ_ONLY_FIELDS)
        if illegal:
            raise exception.InvalidParameterValue(
                err='Fields %s can not be updated' % ', '.join(illegal))
        with self.acquire(context, node_id, purpose='node update') as task:
            node = task.node
            if expected:
                resources.require_unchanged(
                    'nodes', node.uuid,
                    {name: getattr(node, name) for name in expected
                     if hasattr(node, name)}, expected)
            self._check_update_allowed(task, values)
            retirement.check_update(node, values)
            protection.check_update(node, values)
            driver = values.get('driver', node.driver)
            if driver != node.driver or reset_interfaces or \
                    set(values) & set(INTERFACE_FIELDS):
                current = {f: getattr(node, f) for f in INTERFACE_FIELDS}
                if driver != node.driver and not reset_interfaces:
                    current = {f: values.get(f) for f in INTERFACE_FIELDS}
                current.update({f: values[f] for f in INTERFACE_FIELDS
                                if f in values})
                values.update(self.drivers.resolve_interfaces(
                    driver, current, reset=reset_interfaces))
            traits = values.pop('traits', None)
            if values.get('maintenance') is False:
                values.setdefault('maintenance_reason', None)
                values.setdefault('fault', None)
            for key, value in values.items():
                setattr(node, key, value)
            if traits is not None:
                nodes_db.set_node_traits(node.id, traits)
            task.save()
            return node.uuid

    def _check_update_allowed(self, task: TaskManager,
                              values: dict[str, Any]) -> None:
        node = task.node
        only_maintenance = set(values) <= {'maintenance',
                                           'maintenance_reason', 'fault'}
        if node.provision_state not in states.UPDATE_ALLOWED_STATES and \
                not only_maintenance and \
                not (set(values) == {'instance_uuid'} and
                     values['instance_uuid'] is None and node.maintenance):
            raise exception.Conflict(
                'Node %s can not be updated while a state transition is in '
                'progress (provision state "%s").'
                % (node.uuid, node.provision_state))
        if 'instance_uuid' in values and values['instance_uuid'] and \
                node.instance_uuid and \
                values['instance_uuid'] != node.instance_uuid:
            raise exception.NodeAssociated(node=node.uuid,
                                           instance=node.instance_uuid)
        if 'driver' in values and node.provision_state not in (
                states.ENROLL, states.MANAGEABLE, states.AVAILABLE,
                states.ACTIVE) and values['driver'] != node.driver:
            raise exception.Conflict(
                'The driver of node %s can not change in state "%s"'
                % (node.uuid, node.provision_state))

    @utils.rpc_endpoint
    def destroy_node(self, context: RequestContext, node_id: str) -> None:
        with self.acquire(context, node_id, purpose='node deletion') as task:
            node = task.node
            # As Ironic: a node in maintenance goes, instance or not.
            if not node.maintenance and node.instance_uuid is not None:
                raise exception.NodeAssociated(node=node.uuid,
                                               instance=node.instance_uuid)
            protection.check_not_protected(node)
            if node.provision_state not in states.DELETE_ALLOWED_STATES \
                    and not node.maintenance:
                raise exception.InvalidStateRequested(
                    action='delete', node=node.uuid,
                    state=node.provision_state)
            nodes_db.destroy_node(node.id)

    # Provisioning

    @utils.rpc_endpoint
    def do_node_deploy(self, context: RequestContext, node_id: str,
                       rebuild: bool = False, configdrive: Any = None,
                       deploy_steps: list[dict[str, Any]] | None = None
                       ) -> None:
        with self.acquire(context, node_id, purpose='node deployment') \
                as task:
            if rebuild:
                protection.check_not_protected(task.node)
            deployments.start_deploy(
                task, event='rebuild' if rebuild else 'deploy',
                configdrive=configdrive, deploy_steps=deploy_steps,
                verb='rebuild' if rebuild else 'active')

    @utils.rpc_endpoint
    def do_node_tear_down(self, context: RequestContext, node_id: str) -> None:
        with self.acquire(context, node_id, purpose='node tear down') \
                as task:
            protection.check_not_protected(task.node)
            deployments.start_tear_down(task, verb='deleted')

    @utils.rpc_endpoint
    def do_node_clean(self, context: RequestContext, node_id: str,
                      clean_steps: list[dict[str, Any]]) -> None:
        with self.acquire(context, node_id, purpose='manual cleaning') \
                as task:
            cleaning.start_manual_clean(task, clean_steps, verb='clean')

    @utils.rpc_endpoint
    def do_node_service(self, context: RequestContext, node_id: str,
                        service_steps: list[dict[str, Any]]) -> None:
        with self.acquire(context, node_id, purpose='servicing') as task:
            servicing.start_servicing(task, service_steps, verb='service')

    @utils.rpc_endpoint
    def do_provisioning_action(self, context: RequestContext, node_id: str,
                               action: str) -> None:
        """manage, provide, inspect, adopt, unhold, unrescue, abort (the
        verbs without arguments)."""
        with self.acquire(context, node_id,
                          purpose='provision action %s' % action) as task:
            provisioning.act(task, action)

    @utils.rpc_endpoint
    def do_node_rescue(self, context: RequestContext, node_id: str,
                       rescue_password: str) -> None:
        with self.acquire(context, node_id, purpose='node rescue') as task:
            rescue.start_rescue(task, rescue_password)

    @utils.rpc_endpoint
    def continue_node_deploy(self, context: RequestContext, node_id: str
                            ) -> None:
        """Callback: the waiting deploy step finished; go on."""
        self._continue(context, node_id, deployments.DEPLOY_FLOW)

    @utils.rpc_endpoint
    def continue_node_clean(self, context: RequestContext, node_id: str
                           ) -> None:
        """Callback: the waiting clean step finished; go on."""
        self._continue(context, node_id, cleaning.CLEAN_FLOW)

    @utils.rpc_endpoint
    def continue_node_service(self, context: RequestContext, node_id: str
                             ) -> None:
        """Callback: the waiting service step finished; go on."""
        self._continue(context, node_id, servicing.SERVICE_FLOW)

    def _continue(self, context: RequestContext, node_id: int | str,
                  flow: step_flow.StepFlow) -> None:
        """Resume ``flow`` on a node waiting in its wait state."""
        with self.acquire(context, node_id, patient=True,
                          purpose='continue %s' % flow.event_type) as task:
            if task.node.provision_state != flow.wait_state:
                raise exception.InvalidStateRequested(
                    action='continue %s' % flow.event_type,
                    node=task.node.uuid, state=task.node.provision_state)
            task.spawn_after(step_flow.resume, flow)

    # The agent on a machine

    @utils.rpc_endpoint
    def get_node_with_token(self, context: RequestContext, node_id: str,
                            seen_state: str | None = None) -> str:
        """The token the agent looking the node up is given."""
        with self.acquire(context, node_id, purpose='agent lookup') as task:
            return agent_callbacks.give_token(task, seen_state)

    @utils.rpc_endpoint
    def heartbeat(self, context: RequestContext, node_id: str,
                  callback_url: str, agent_version: str | None = None,
                  agent_token: str | None = None,
                  agent_verify_ca: str | None = None,
                  agent_status: str | None = None,
                  agent_status_message: str | None = None) -> None:
        agent_callbacks.take_heartbeat(self, context, node_id, {
            'callback_url': callback_url, 'agent_version': agent_version,
            'agent_token': agent_token, 'agent_verify_ca': agent_verify_ca,
            'agent_status': agent_status,
            'agent_status_message': agent_status_message})

    @utils.rpc_endpoint
    def continue_inspection(self, context: RequestContext, node_id: str,
                            inventory: dict[str, Any],
                            plugin_data: dict[str, Any]) -> None:
        with self.acquire(context, node_id, patient=True,
                          purpose='continue inspection') as task:
            agent_callbacks.start_continue_inspection(task, inventory,
                                                      plugin_data)

    # Power and management

    @utils.rpc_endpoint
    def change_node_power_state(self, context: RequestContext, node_id: str,
                                new_state: str,
                                timeout: int | None = None) -> None:
        with self.acquire(context, node_id, purpose='power action') as task:
            power.start_power_action(task, new_state, timeout)

    @utils.rpc_endpoint
    def validate_driver_interfaces(self, context: RequestContext, node_id: str
                                   ) -> dict[str, dict[str, Any]]:
        """Each interface's verdict on the node: {result, reason}."""
        with self.acquire(context, node_id, shared=True,
                          purpose='validate') as task:
            result: dict[str, dict[str, Any]] = {}
            for name in INTERFACE_TYPES:
                iface = task.driver.interfaces.get(name)
                if iface is None:
                    result[name] = {'result': None,
                                    'reason': 'not supported'}
                    continue
                try:
                    iface.validate(task)
                except exception.UnsupportedDriverExtension:
                    result[name] = {'result': None,
                                    'reason': 'not supported'}
                except Exception as exc:
                    result[name] = {'result': False,
                                    'reason': utils.describe(exc)}
                else:
                    result[name] = {'result': True, 'reason': None}
            return result

    @utils.rpc_endpoint
    def set_boot_device(self, context: RequestContext, node_id: str,
                        device: str, persistent: bool = False) -> None:
        with self.acquire(context, node_id, purpose='set boot device') \
                as task:
            task.driver.management.validate(task)
            task.driver.management.set_boot_device(task, device,
                                                   persistent=persistent)
            task.save()

    @utils.rpc_endpoint
    def get_boot_device(self, context: RequestContext, node_id: str
                       ) -> dict[str, Any]:
        with self.acquire(context, node_id, shared=True,
                          purpose='get boot device') as task:
            task.driver.management.validate(task)
            return task.driver.management.get_boot_device(task)

    @utils.rpc_endpoint
    def get_supported_boot_devices(self, context: RequestContext, node_id: str
                                  ) -> list[str]:
        with self.acquire(context, node_id, shared=True,
                          purpose='get supported boot devices') as task:
            return list(task.driver.management
                        .get_supported_boot_devices(task))

    @utils.rpc_endpoint
    def inject_nmi(self, context: RequestContext, node_id: str) -> None:
        with self.acquire(context, node_id, purpose='inject nmi') as task:
            task.driver.management.validate(task)
            task.driver.management.inject_nmi(task)

    @utils.rpc_endpoint
    def get_supported_indicators(self, context: RequestContext, node_id: str
                                 ) -> dict[str, dict[str, Any]]:
        with self.acquire(context, node_id, shared=True,
                          purpose='get supported indicators') as task:
            task.driver.management.validate(task)
            return task.driver.management.get_supported_indicators(task)

    @utils.rpc_endpoint
    def get_indicator_state(self, context: RequestContext, node_id: str,
                            component: str, indicator: str) -> str:
        with self.acquire(context, node_id, shared=True,
                          purpose='get indicator state') as task:
            task.driver.management.validate(task)
            return task.driver.management.get_indicator_state(
                task, component, indicator)

    @utils.rpc_endpoint
    def set_indicator_state(self, context: RequestContext, node_id: str,
                            component: str, indicator: str,
                            state: str) -> None:
        with self.acquire(context, node_id,
                          purpose='set indicator state') as task:
            task.driver.management.validate(task)
            task.driver.management.set_indicator_state(
                task, component, indicator, state)
            task.save()

    @utils.rpc_endpoint
    def set_boot_mode(self, context: RequestContext, node_id: str,
                      mode: str) -> None:
        with self.acquire(context, node_id, purpose='set boot mode') as task:
            boot_settings.start_boot_mode_change(task, mode)

    @utils.rpc_endpoint
    def set_secure_boot_state(self, context: RequestContext, node_id: str,
                              enabled: bool) -> None:
        with self.acquire(context, node_id,
                          purpose='set secure boot') as task:
            boot_settings.start_secure_boot_change(task, enabled)

    @utils.rpc_endpoint
    def attach_virtual_media(self, context: RequestContext, node_id: str,
                             device_type: str, image_url: str) -> None:
        with self.acquire(context, node_id,
                          purpose='attach virtual media') as task:
            task.driver.management.validate(task)
            task.driver.management.attach_virtual_media(task, device_type,
                                                        image_url)
            task.save()

    @utils.rpc_endpoint
    def detach_virtual_media(self, context: RequestContext, node_id: str,
                             device_types: list[str] | None = None) -> None:
        with self.acquire(context, node_id,
                          purpose='detach virtual media') as task:
            task.driver.management.validate(task)
            task.driver.management.detach_virtual_media(task, device_types)
            task.save()

    @utils.rpc_endpoint
    def get_virtual_media(self, context: RequestContext, node_id: str
                          ) -> list[dict[str, Any]]:
        with self.acquire(context, node_id, shared=True,
                          purpose='read virtual media') as task:
            task.driver.management.validate(task)
            return task.driver.management.get_virtual_media(task)

    # Traits

    @utils.rpc_endpoint
    def add_node_traits(self, context: RequestContext, node_id: str,
                        traits: list[str], replace: bool = False) -> None:
        with self.acquire(context, node_id, purpose='add traits') as task:
            if replace:
                nodes_db.set_node_traits(task.node.id, traits)
            else:
                for trait in traits:
                    nodes_db.add_node_trait(task.node.id, trait)

    @utils.rpc_endpoint
    def remove_node_traits(self, context: RequestContext, node_id: str,
                           traits: list[str] | None) -> None:
        with self.acquire(context, node_id, purpose='remove traits') as task:
            if traits is None:
                nodes_db.set_node_traits(task.node.id, [])
            else:
                for trait in traits:
                    nodes_db.delete_node_trait(task.node.id, trait)

    # VIFs

    @utils.rpc_endpoint
    def vif_list(self, context: RequestContext, node_id: str
                ) -> list[dict[str, Any]]:
        with self.acquire(context, node_id, shared=True,
                          purpose='list vifs') as task:
            return task.driver.network.vif_list(task)

    @utils.rpc_endpoint
    def vif_attach(self, context: RequestContext, node_id: str,
                   vif_info: dict[str, Any]) -> None:
        with self.acquire(context, node_id, purpose='attach vif') as task:
            task.driver.network.validate(task)
            task.driver.network.vif_attach(task, vif_info)
            task.save()

    @utils.rpc_endpoint
    def vif_detach(self, context: RequestContext, node_id: str, vif_id: str
                  ) -> None:
        with self.acquire(context, node_id, purpose='detach vif') as task:
            task.driver.network.vif_detach(task, vif_id)
            task.save()

    # Drivers

    @utils.rpc_endpoint
    def get_driver_properties(self, context: RequestContext, driver_name: str
                              ) -> dict[str, str]:
        return self.drivers.driver_properties(driver_name)

    # Console and RAID

    @utils.rpc_endpoint
    def set_console_mode(self, context: RequestContext, node_id: str,
                         enabled: bool) -> None:
        with self.acquire(context, node_id,
                          purpose='set console mode') as task:
            console = task.driver.console
            console.validate(task)
            if bool(task.node.console_enabled) == enabled:
                return
            if enabled:
                console.start_console(task)
            else:
                console.stop_console(task)
            task.node.console_enabled = enabled
            task.record('Console %s' % ('enabled' if enabled
                                        else 'disabled'), 'console')
            task.save()

    @utils.rpc_endpoint
    def get_console_information(self, context: RequestContext, node_id: str
                                ) -> dict[str, Any]:
        with self.acquire(context, node_id, shared=True,
                          purpose='get console') as task:
            if not task.node.console_enabled:
                raise exception.NodeConsoleNotEnabled(node=task.node.uuid)
            task.driver.console.validate(task)
            return task.driver.console.get_console(task)

    @utils.rpc_endpoint
    def set_target_raid_config(self, context: RequestContext, node_id: str,
                               target_raid_config: dict[str, Any]) -> None:
        with self.acquire(context, node_id,
                          purpose='set target raid config') as task:
            task.driver.raid.validate(task)
            task.node.target_raid_config = dict(target_raid_config)
            task.save()

    # Ports and port groups (under their node's lock)

    @utils.rpc_endpoint
    def create_port(self, context: RequestContext, node_id: str,
                    values: dict[str, Any]) -> str:
        with self.acquire(context, node_id, purpose='port create') as task:
            return ports.create_port(task, values)

    @utils.rpc_endpoint
    def update_port(self, context: RequestContext, node_id: str,
                    port_uuid: str, values: dict[str, Any],
                    expected: dict[str, Any] | None = None) -> str:
        with self.acquire(context, node_id, purpose='port update') as task:
            return ports.update_port(task, port_uuid, values, expected)

    @utils.rpc_endpoint
    def destroy_port(self, context: RequestContext, node_id: str,
                     port_uuid: str) -> None:
        with self.acquire(context, node_id, purpose='port delete') as task:
            ports.destroy_port(task, port_uuid)

    @utils.rpc_endpoint
    def create_portgroup(self, context: RequestContext, node_id: str,
                         values: dict[str, Any]) -> str:
        with self.acquire(context, node_id,
                          purpose='portgroup create') as task:
            return ports.create_portgroup(task, values)

    @utils.rpc_endpoint
    def update_portgroup(self, context: RequestContext, node_id: str,
                         portgroup_uuid: str, values: dict[str, Any],
                         expected: dict[str, Any] | None = None) -> str:
        with self.acquire(context, node_id,
                          purpose='portgroup update') as task:
            return ports.update_portgroup(task, portgroup_uuid, values,
                                          expected)

    @utils.rpc_endpoint
    def destroy_portgroup(self, context: RequestContext, node_id: str,
                          portgroup_uuid: str) -> None:
        with self.acquire(context, node_id,
                          purpose='portgroup delete') as task:
            ports.destroy_portgroup(task, portgroup_uuid)

    # Volume connectors and targets (``kind``), under their node's lock

    @utils.rpc_endpoint
    def create_volume(self, context: RequestContext, node_id: str, kind: str,
                      values: dict[str, Any]) -> str:
        with self.acquire(context, node_id,
                          purpose='volume %s create' % kind) as task:
            return volume.create(task, kind, values)

    @utils.rpc_endpoint
    def update_volume(self, context: RequestContext, node_id: str, kind: str,
                      uuid: str, values: dict[str, Any],
                      expected: dict[str, Any] | None = None) -> str:
        with self.acquire(context, node_id,
                          purpose='volume %s update' % kind) as task:
            return volume.update(task, kind, uuid, values, expected)

    @utils.rpc_endpoint
    def destroy_volume(self, context: RequestContext, node_id: str, kind: str,
                       uuid: str) -> None:
        with self.acquire(context, node_id,
                          purpose='volume %s delete' % kind) as task:
            volume.destroy(task, kind, uuid)

    # Allocations

    @utils.rpc_endpoint
    def create_allocation(self, context: RequestContext,
                          values: dict[str, Any], node_uuid: str | None = None
                         ) -> dict[str, Any]:
        """The allocation as created (see allocations.create)."""
        return allocations.create(self, context, values, node_uuid)

    @utils.rpc_endpoint
    def destroy_allocation(self, context: RequestContext, allocation_uuid: str
                          ) -> None:
        allocations.destroy(self, context, allocation_uuid)
