"""How the API (and the site layer) reach conductors.

Each node-bound call goes to the conductor that owns the node on the hash
ring. With ``[DEFAULT]rpc_transport = oslo`` that is an oslo.messaging
call over the configured transport (RabbitMQ); with ``json-rpc`` an HTTP
call to the conductor itself (:mod:`ironside.common.json_rpc`; the
all-in-one's API process, with ``--api-process``); with ``local`` (the
all-in-one) a direct call into the conductor of this process.

Over either transport a call gives up within [api]rpc_response_timeout
([api]rpc_bmc_response_timeout for the calls that wait on a BMC) with
ConductorUnreachable (503), naming the conductor and why.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common import hash_ring
from ironside.common import json_rpc
from ironside.common import metrics
from ironside.common import rpc_base
from ironside.common.conf import CONF
from ironside.common.context import RequestContext
from ironside.db import allocations as allocations_db
from ironside.db import conductors as conductors_db
from ironside.db import nodes as nodes_db
from ironside.db import portgroups as portgroups_db
from ironside.db import ports as ports_db
from ironside.db import volume as volume_db

if TYPE_CHECKING:
    from ironside.common import rpc
    from ironside.conductor.base_manager import BaseConductorManager


# A node as the calls below name it: its id, UUID or name, or the route
# of a node the caller has read already (which spares reading it again).
NodeIdent = str | nodes_db.NodeRoute

# Calls whose answer waits on the node's BMC: their callers wait
# [api]rpc_bmc_response_timeout for it, longer than the conductors' own
# budget for a BMC, so that a BMC that does not answer is reported as
# such. Every other call is answered within [api]rpc_response_timeout:
# actions are accepted (202) before any BMC is asked.
WAITS_ON_BMC = frozenset({
    'validate_driver_interfaces', 'set_boot_device', 'get_boot_device',
    'inject_nmi', 'get_supported_indicators', 'get_indicator_state',
    'set_indicator_state', 'attach_virtual_media', 'detach_virtual_media',
    'get_virtual_media', 'set_console_mode', 'get_console_information',
    'vendor_passthru', 'driver_vendor_passthru'})


def timeout_of(method: str) -> float:
    """Seconds a caller waits for the answer to ``method``."""
    seconds: float = CONF.api.rpc_bmc_response_timeout \
        if method in WAITS_ON_BMC else CONF.api.rpc_response_timeout
    return seconds


class _LocalClient:
    """Calls a manager in this process; same contract as an RPC client."""

    def __init__(self, manager: BaseConductorManager) -> None:
        self._manager = manager

    def prepare(self, **_kwargs: Any) -> _LocalClient:
        return self

    def call(self, context: RequestContext, method: str, **kwargs: Any) -> Any:
        try:
            return getattr(self._manager, method)(context, **kwargs)
        except rpc_base.ExpectedException as exc:
            # What the RPC server does: hand back the exception raised.
            raise exc.exc_info[1].with_traceback(None) from None

    def cast(self, context: RequestContext, method: str, **kwargs: Any
            ) -> None:
        self.call(context, method, **kwargs)


class ConductorAPI:
    def __init__(self, local_manager: BaseConductorManager | None=None,
                 json_rpc_address: Callable[[str], tuple[str, int]] |
                 None = None) -> None:
        """``json_rpc_address``: where each conductor (by host name)
        serves JSON-RPC; by default its host name, [json_rpc]port."""
        self.ring = hash_ring.HashRingManager(
            conductors_db.live_conductors)
        if CONF.rpc_transport == 'local':
            if local_manager is None:
                raise exception.ConfigInvalid(
                    error_msg='rpc_transport "local" needs a conductor in '
                              'this process; run "ironside" (all-in-one)')
            client: _LocalClient | json_rpc.JsonRpcClient | \
                rpc.BoundedClient = _LocalClient(local_manager)
        elif CONF.rpc_transport == 'json-rpc':
            client = json_rpc.JsonRpcClient(json_rpc_address)
        else:
            # Only the processes using oslo.messaging load it (~0.9 s of
            # CPU at start).
            from ironside.common import rpc
            client = rpc.get_client(rpc.conductor_target())
        self._client = metrics.CountedRpcClient(client)

    def _client_for(self, node_ident: NodeIdent, method: str
                    ) -> tuple[str, metrics.CountedRpcClient]:
        """The node's UUID and a client for its conductor."""
        route = node_ident if isinstance(node_ident, nodes_db.NodeRoute) \
            else nodes_db.node_route(node_ident)
        host = self.ring.owner(route.uuid, route.driver,
                               route.conductor_group or '')
        return route.uuid, self._client_of(host, method)

    def _client_of(self, host: str, method: str
                   ) -> metrics.CountedRpcClient:
        return self._client.prepare(server=host, timeout=timeout_of(method))

    def _call_node(self, context: RequestContext, node_ident: NodeIdent,
                   method: str, **kwargs: Any) -> Any:
        node_uuid, client = self._client_for(node_ident, method)
        return client.call(context, method, node_id=node_uuid, **kwargs)

    def _call_owner_of(self, context: RequestContext, node_ident: str,
                       method: str, **kwargs: Any) -> Any:
        """Call the conductor that owns a node, without naming the node."""
        _uuid, client = self._client_for(node_ident, method)
        return client.call(context, method, **kwargs)

    # Nodes

    def create_node(self, context: RequestContext, values: dict[str, Any]
                   ) -> str:
        key = values.get('uuid') or values.get('name') or ''
        host = self.ring.owner(key or 'new-node', values['driver'],
                               values.get('conductor_group') or '')
        uuid: str = self._client_of(host, 'create_node').call(
            context, 'create_node', values=values)
        return uuid

    def update_node(self, context: RequestContext, node_ident: str,
                    values: dict[str, Any], reset_interfaces: bool = False,
                    expected: dict[str, Any] | None = None) -> str:
        answer: str = self._call_node(
            context, node_ident, 'update_node', values=values,
            reset_interfaces=reset_interfaces, expected=expected)
        return answer

    def destroy_node(self, context: RequestContext, node_ident: str) -> None:
        self._call_node(context, node_ident, 'destroy_node')

    # Provisioning

    def do_node_deploy(self, context: RequestContext,
                       node_ident: NodeIdent, rebuild: bool = False,
                       configdrive: Any = None,
                       deploy_steps: list[dict[str, Any]] | None = None
                       ) -> None:
        self._call_node(context, node_ident, 'do_node_deploy',
                        rebuild=rebuild, configdrive=configdrive,
                        deploy_steps=deploy_steps)

    def do_node_tear_down(self, context: RequestContext,
                          node_ident: NodeIdent) -> None:
        self._call_node(context, node_ident, 'do_node_tear_down')

    def do_node_clean(self, context: RequestContext, node_ident: NodeIdent,
                      clean_steps: list[dict[str, Any]]) -> None:
        self._call_node(context, node_ident, 'do_node_clean',
                        clean_steps=clean_steps)

    def do_node_service(self, context: RequestContext,
                        node_ident: NodeIdent,
                        service_steps: list[dict[str, Any]]) -> None:
        self._call_node(context, node_ident, 'do_node_service',
                        service_steps=service_steps)

    def do_provisioning_action(self, context: RequestContext,
                               node_ident: NodeIdent, action: str) -> None:
        self._call_node(context, node_ident, 'do_provisioning_action',
                        action=action)

    def do_node_rescue(self, context: RequestContext, node_ident: NodeIdent,
                       rescue_password: str) -> None:
        self._call_node(context, node_ident, 'do_node_rescue',
                        rescue_password=rescue_password)

    def continue_node_deploy(self, context: RequestContext, node_ident: str
                            ) -> None:
        self._call_node(context, node_ident, 'continue_node_deploy')

    def continue_node_clean(self, context: RequestContext, node_ident: str
                           ) -> None:
        self._call_node(context, node_ident, 'continue_node_clean')

    def continue_node_service(self, context: RequestContext, node_ident: str
                             ) -> None:
        self._call_node(context, node_ident, 'continue_node_service')

    # The agent on a machine

    def get_node_with_token(self, context: RequestContext,
                            node_ident: NodeIdent,
                            seen_state: str | None = None) -> str:
        """The agent's token, the first time; ``******`` later."""
        answer: str = self._call_node(
            context, node_ident, 'get_node_with_token', seen_state=seen_state)
        return answer

    def heartbeat(self, context: RequestContext, node_ident: NodeIdent,
                  callback_url: str, agent_version: str | None = None,
                  agent_token: str | None = None,
                  agent_verify_ca: str | None = None,
                  agent_status: str | None = None,
                  agent_status_message: str | None = None) -> None:
        self._call_node(context, node_ident, 'heartbeat',
                        callback_url=callback_url,
                        agent_version=agent_version, agent_token=agent_token,
                        agent_verify_ca=agent_verify_ca,
                        agent_status=agent_status,
                        agent_status_message=agent_status_message)

    def continue_inspection(self, context: RequestContext,
                            node_ident: NodeIdent, inventory: dict[str, Any],
                            plugin_data: dict[str, Any]) -> None:
        self._call_node(context, node_ident, 'continue_inspection',
                        inventory=inventory, plugin_data=plugin_data)

    # Power and management

    def change_node_power_state(self, context: RequestContext, node_ident: str,
                                new_state: str,
                                timeout: int | None = None) -> None:
        self._call_node(context, node_ident, 'change_node_power_state',
                        new_state=new_state, timeout=timeout)

    def validate_driver_interfaces(self, context: RequestContext,
                                   node_ident: str
                                  ) -> dict[str, dict[str, Any]]:
        answer: dict[str, dict[str, Any]] = self._call_node(
            context, node_ident, 'validate_driver_interfaces')
        return answer

    def set_boot_device(self, context: RequestContext, node_ident: str,
                        device: str, persistent: bool = False) -> None:
        self._call_node(context, node_ident, 'set_boot_device',
                        device=device, persistent=persistent)

    def get_boot_device(self, context: RequestContext, node_ident: str
                       ) -> dict[str, Any]:
        answer: dict[str, Any] = self._call_node(
            context, node_ident, 'get_boot_device')
        return answer

    def get_supported_boot_devices(self, context: RequestContext,
                                   node_ident: str) -> list[str]:
        answer: list[str] = self._call_node(
            context, node_ident, 'get_supported_boot_devices')
        return answer

    def inject_nmi(self, context: RequestContext, node_ident: str) -> None:
        self._call_node(context, node_ident, 'inject_nmi')

    def get_supported_indicators(self, context: RequestContext,
                                 node_ident: str
                                 ) -> dict[str, dict[str, Any]]:
        answer: dict[str, dict[str, Any]] = self._call_node(
            context, node_ident, 'get_supported_indicators')
        return answer

    def get_indicator_state(self, context: RequestContext, node_ident: str,
                            component: str, indicator: str) -> str:
        answer: str = self._call_node(
            context, node_ident, 'get_indicator_state', component=component,
            indicator=indicator)
        return answer

    def set_indicator_state(self, context: RequestContext, node_ident: str,
                            component: str, indicator: str,
                            state: str) -> None:
        self._call_node(context, node_ident, 'set_indicator_state',
                        component=component, indicator=indicator,
                        state=state)

    def set_boot_mode(self, context: RequestContext, node_ident: str,
                      mode: str) -> None:
        self._call_node(context, node_ident, 'set_boot_mode', mode=mode)

    def set_secure_boot_state(self, context: RequestContext, node_ident: str,
                              enabled: bool) -> None:
        self._call_node(context, node_ident, 'set_secure_boot_state',
                        enabled=enabled)

    def attach_virtual_media(self, context: RequestContext, node_ident: str,
                             device_type: str, image_url: str) -> None:
        self._call_node(context, node_ident, 'attach_virtual_media',
                        device_type=device_type, image_url=image_url)

    def detach_virtual_media(self, context: RequestContext, node_ident: str,
                             device_types: list[str] | None) -> None:
        self._call_node(context, node_ident, 'detach_virtual_media',
                        device_types=device_types)

    def get_virtual_media(self, context: RequestContext, node_ident: str
                          ) -> list[dict[str, Any]]:
        answer: list[dict[str, Any]] = self._call_node(
            context, node_ident, 'get_virtual_media')
        return answer

    # Traits and VIFs

    def add_node_traits(self, context: RequestContext, node_ident: str,
                        traits: list[str], replace: bool = False) -> None:
        self._call_node(context, node_ident, 'add_node_traits',
                        traits=traits, replace=replace)

    def remove_node_traits(self, context: RequestContext, node_ident: str,
                           traits: list[str] | None) -> None:
        self._call_node(context, node_ident, 'remove_node_traits',
                        traits=traits)

    def vif_list(self, context: RequestContext, node_ident: str
                ) -> list[dict[str, Any]]:
        answer: list[dict[str, Any]] = self._call_node(
            context, node_ident, 'vif_list')
        return answer

    def vif_attach(self, context: RequestContext, node_ident: str,
                   vif_info: dict[str, Any]) -> None:
        self._call_node(context, node_ident, 'vif_attach',
                        vif_info=vif_info)

    def vif_detach(self, context: RequestContext, node_ident: str, vif_id: str
                  ) -> None:
        self._call_node(context, node_ident, 'vif_detach', vif_id=vif_id)

    # Drivers

    def get_driver_properties(self, context: RequestContext, driver_name: str
                              ) -> dict[str, str]:
        answer: dict[str, str] = self._call_driver(
            context, driver_name, 'get_driver_properties')
        return answer

    def _call_driver(self, context: RequestContext, driver_name: str,
                     method: str, **kwargs: Any) -> Any:
        """Call the conductor the ring gives a hardware type's calls."""
        host = self.ring.owner(driver_name, driver_name)
        return self._client_of(host, method).call(
            context, method, driver_name=driver_name, **kwargs)

    # Vendor passthru: {'return': value, 'async': bool, 'attach': bool}

    def vendor_passthru(self, context: RequestContext, node_ident: str,
                        driver_method: str, http_method: str,
                        info: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._call_node(
            context, node_ident, 'vendor_passthru',
            driver_method=driver_method, http_method=http_method, info=info)
        return answer

    def driver_vendor_passthru(self, context: RequestContext,
                               driver_name: str, driver_method: str,
                               http_method: str, info: dict[str, Any]
                               ) -> dict[str, Any]:
        answer: dict[str, Any] = self._call_driver(
            context, driver_name, 'driver_vendor_passthru',
            driver_method=driver_method, http_method=http_method, info=info)
        return answer

    def get_node_vendor_passthru_methods(self, context: RequestContext,
                                         node_ident: str
                                         ) -> dict[str, dict[str, Any]]:
        methods: dict[str, dict[str, Any]] = self._call_node(
            context, node_ident, 'get_node_vendor_passthru_methods')
        return methods

    def get_driver_vendor_passthru_methods(self, context: RequestContext,
                                           driver_name: str
                                           ) -> dict[str, dict[str, Any]]:
        methods: dict[str, dict[str, Any]] = self._call_driver(
            context, driver_name, 'get_driver_vendor_passthru_methods')
        return methods

    # Console and RAID

    def set_console_mode(self, context: RequestContext, node_ident: str,
                         enabled: bool) -> None:
        self._call_node(context, node_ident, 'set_console_mode',
                        enabled=enabled)

    def get_console_information(self, context: RequestContext, node_ident: str
                                ) -> dict[str, Any]:
        answer: dict[str, Any] = self._call_node(
            context, node_ident, 'get_console_information')
        return answer

    def set_target_raid_config(self, context: RequestContext, node_ident: str,
                               target_raid_config: dict[str, Any]) -> None:
        self._call_node(context, node_ident, 'set_target_raid_config',
                        target_raid_config=target_raid_config)

    # Ports and port groups: sent to the conductor of their node

    def create_port(self, context: RequestContext, node_ident: str,
                    values: dict[str, Any]) -> str:
        answer: str = self._call_node(
            context, node_ident, 'create_port', values=values)
        return answer

    def update_port(self, context: RequestContext, port_uuid: str,
                    values: dict[str, Any],
                    expected: dict[str, Any] | None = None) -> str:
        port = ports_db.get(port_uuid)
        answer: str = self._call_node(
            context, port['node_uuid'], 'update_port', port_uuid=port['uuid'],
            values=values, expected=expected)
        return answer

    def destroy_port(self, context: RequestContext, port_uuid: str) -> None:
        port = ports_db.get(port_uuid)
        self._call_node(context, port['node_uuid'], 'destroy_port',
                        port_uuid=port['uuid'])

    def create_portgroup(self, context: RequestContext, node_ident: str,
                         values: dict[str, Any]) -> str:
        answer: str = self._call_node(
            context, node_ident, 'create_portgroup', values=values)
        return answer

    def update_portgroup(self, context: RequestContext, portgroup_uuid: str,
                         values: dict[str, Any],
                         expected: dict[str, Any] | None = None) -> str:
        group = portgroups_db.get(portgroup_uuid)
        answer: str = self._call_node(
            context, group['node_uuid'], 'update_portgroup',
            portgroup_uuid=group['uuid'], values=values, expected=expected)
        return answer

    def destroy_portgroup(self, context: RequestContext, portgroup_uuid: str
                         ) -> None:
        group = portgroups_db.get(portgroup_uuid)
        self._call_node(context, group['node_uuid'], 'destroy_portgroup',
                        portgroup_uuid=group['uuid'])

    # Volume connectors and targets: sent to the conductor of their node

    def create_volume(self, context: RequestContext, kind: str,
                      node_ident: str, values: dict[str, Any]) -> str:
        answer: str = self._call_node(
            context, node_ident, 'create_volume', kind=kind, values=values)
        return answer

    def update_volume(self, context: RequestContext, kind: str, uuid: str,
                      values: dict[str, Any],
                      expected: dict[str, Any] | None = None) -> str:
        row = volume_db.BY_KIND[kind].get(uuid)
        # As Ironic: a move is made under the lock of the node it moves to.
        node = values.get('node_id') or row['node_uuid']
        answer: str = self._call_node(
            context, node, 'update_volume', kind=kind, uuid=row['uuid'],
            values=values, expected=expected)
        return answer

    def destroy_volume(self, context: RequestContext, kind: str, uuid: str
                      ) -> None:
        row = volume_db.BY_KIND[kind].get(uuid)
        self._call_node(context, row['node_uuid'], 'destroy_volume',
                        kind=kind, uuid=row['uuid'])

    # Allocations

    def _any_host(self) -> str:
        hosts = [c.hostname for c in conductors_db.live_conductors()]
        if not hosts:
            raise exception.NoValidHost(reason='no conductor is alive')
        return random.choice(hosts)

    def create_allocation(self, context: RequestContext,
                          values: dict[str, Any], node_uuid: str | None = None
                         ) -> dict[str, Any]:
        """The allocation as created: ``allocating`` unless backfilled."""
        answer: dict[str, Any]
        if node_uuid is not None:
            answer = self._call_owner_of(context, node_uuid,
                                         'create_allocation', values=values,
                                         node_uuid=node_uuid)
        else:
            answer = self._client_of(
                self._any_host(), 'create_allocation').call(
                    context, 'create_allocation', values=values,
                    node_uuid=None)
        return answer

    def destroy_allocation(self, context: RequestContext, allocation_uuid: str
                          ) -> None:
        allocation = allocations_db.get(allocation_uuid)
        if allocation['node_uuid']:
            self._call_owner_of(context, allocation['node_uuid'],
                                'destroy_allocation',
                                allocation_uuid=allocation['uuid'])
            return
        self._client_of(self._any_host(), 'destroy_allocation').call(
            context, 'destroy_allocation',
            allocation_uuid=allocation['uuid'])
