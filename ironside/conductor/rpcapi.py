"""How the API (and the site layer) reach conductors.

Each node-bound call goes to the conductor that owns the node on the hash
ring. With ``[DEFAULT]rpc_transport = oslo`` that is an oslo.messaging
call over the configured transport (RabbitMQ); with ``local`` (the
all-in-one service) it is a direct call into the conductor of this
process.
"""

from __future__ import annotations

from typing import Any

import oslo_messaging as messaging

from ironside.common import exception
from ironside.common import hash_ring
from ironside.common import rpc
from ironside.common.conf import CONF
from ironside.db import nodes as nodes_db


class _LocalClient:
    """Calls a manager in this process; same contract as an RPC client."""

    def __init__(self, manager) -> None:
        self._manager = manager

    def prepare(self, **_kwargs) -> _LocalClient:
        return self

    def call(self, context, method: str, **kwargs: Any) -> Any:
        try:
            return getattr(self._manager, method)(context, **kwargs)
        except messaging.ExpectedException as exc:
            # What the RPC server does: hand back the exception raised.
            raise exc.exc_info[1].with_traceback(None) from None

    def cast(self, context, method: str, **kwargs: Any) -> None:
        self.call(context, method, **kwargs)


class ConductorAPI:
    def __init__(self, local_manager=None) -> None:
        self.ring = hash_ring.HashRingManager()
        if CONF.rpc_transport == 'local':
            if local_manager is None:
                raise exception.ConfigInvalid(
                    error_msg='rpc_transport "local" needs a conductor in '
                              'this process; run "ironside" (all-in-one)')
            self._client = _LocalClient(local_manager)
        else:
            target = messaging.Target(topic=rpc.TOPIC,
                                      version=rpc.RPC_API_VERSION)
            self._client = rpc.get_client(target)

    def _host_for_node(self, node) -> str:
        return self.ring.owner(node.uuid, node.driver,
                               node.conductor_group or '')

    def _call_node(self, context, node_ident: str, method: str,
                   **kwargs: Any) -> Any:
        node = nodes_db.get_node(node_ident)
        client = self._client.prepare(server=self._host_for_node(node))
        return client.call(context, method, node_id=node.uuid, **kwargs)

    # Nodes

    def create_node(self, context, values: dict[str, Any]) -> str:
        key = values.get('uuid') or values.get('name') or ''
        host = self.ring.owner(key or 'new-node', values['driver'],
                               values.get('conductor_group') or '')
        return self._client.prepare(server=host).call(
            context, 'create_node', values=values)

    def update_node(self, context, node_ident: str, values: dict[str, Any],
                    reset_interfaces: bool = False) -> str:
        return self._call_node(context, node_ident, 'update_node',
                               values=values,
                               reset_interfaces=reset_interfaces)

    def destroy_node(self, context, node_ident: str) -> None:
        self._call_node(context, node_ident, 'destroy_node')

    # Provisioning

    def do_node_deploy(self, context, node_ident: str, rebuild: bool = False,
                       configdrive: Any = None,
                       deploy_steps: list[dict] | None = None) -> None:
        self._call_node(context, node_ident, 'do_node_deploy',
                        rebuild=rebuild, configdrive=configdrive,
                        deploy_steps=deploy_steps)

    def do_node_tear_down(self, context, node_ident: str) -> None:
        self._call_node(context, node_ident, 'do_node_tear_down')

    def do_node_clean(self, context, node_ident: str,
                      clean_steps: list[dict]) -> None:
        self._call_node(context, node_ident, 'do_node_clean',
                        clean_steps=clean_steps)

    def do_provisioning_action(self, context, node_ident: str,
                               action: str) -> None:
        self._call_node(context, node_ident, 'do_provisioning_action',
                        action=action)

    def continue_node_deploy(self, context, node_ident: str) -> None:
        self._call_node(context, node_ident, 'continue_node_deploy')

    def continue_node_clean(self, context, node_ident: str) -> None:
        self._call_node(context, node_ident, 'continue_node_clean')

    # Power and management

    def change_node_power_state(self, context, node_ident: str,
                                new_state: str,
                                timeout: int | None = None) -> None:
        self._call_node(context, node_ident, 'change_node_power_state',
                        new_state=new_state, timeout=timeout)

    def validate_driver_interfaces(self, context, node_ident: str
                                   ) -> dict[str, dict[str, Any]]:
        return self._call_node(context, node_ident,
                               'validate_driver_interfaces')

    def set_boot_device(self, context, node_ident: str, device: str,
                        persistent: bool = False) -> None:
        self._call_node(context, node_ident, 'set_boot_device',
                        device=device, persistent=persistent)

    def get_boot_device(self, context, node_ident: str) -> dict[str, Any]:
        return self._call_node(context, node_ident, 'get_boot_device')

    def get_supported_boot_devices(self, context, node_ident: str
                                   ) -> list[str]:
        return self._call_node(context, node_ident,
                               'get_supported_boot_devices')

    def inject_nmi(self, context, node_ident: str) -> None:
        self._call_node(context, node_ident, 'inject_nmi')

    # Traits and VIFs

    def add_node_traits(self, context, node_ident: str, traits: list[str],
                        replace: bool = False) -> None:
        self._call_node(context, node_ident, 'add_node_traits',
                        traits=traits, replace=replace)

    def remove_node_traits(self, context, node_ident: str,
                           traits: list[str] | None) -> None:
        self._call_node(context, node_ident, 'remove_node_traits',
                        traits=traits)

    def vif_list(self, context, node_ident: str) -> list[dict[str, Any]]:
        return self._call_node(context, node_ident, 'vif_list')

    def vif_attach(self, context, node_ident: str,
                   vif_info: dict[str, Any]) -> None:
        self._call_node(context, node_ident, 'vif_attach',
                        vif_info=vif_info)

    def vif_detach(self, context, node_ident: str, vif_id: str) -> None:
        self._call_node(context, node_ident, 'vif_detach', vif_id=vif_id)

    # Drivers

    def get_driver_properties(self, context, driver_name: str
                              ) -> dict[str, str]:
        host = self.ring.owner(driver_name, driver_name)
        return self._client.prepare(server=host).call(
            context, 'get_driver_properties', driver_name=driver_name)
