"""Vendor passthru: calling a vendor interface's methods by name.

A node method runs under the node's task: a shared one turned exclusive
when the method requires it, validated by the vendor interface, then run
at once (synchronous: its return value is the answer) or in a worker
after the answer (asynchronous); under an exclusive lock, what it
changed of the node is saved when it returns (not when it fails). A
driver method runs on the hardware type's default vendor interface,
with the request context and no lock. Either answer is
``{'return': value, 'async': bool, 'attach': bool}``, as Ironic's
conductor answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from typing import Any

from ironside.common import exception
from ironside.common.context import RequestContext
from ironside.conductor import base_manager
from ironside.conductor import utils
from ironside.db import history as history_db
from ironside.drivers import base
from ironside.drivers import factory

if TYPE_CHECKING:
    from ironside.conductor.task_manager import TaskManager

Routes = dict[str, dict[str, Any]]


def methods_of(routes: Routes) -> Routes:
    """What the listing shows: each method's metadata, no function."""
    return {name: {k: v for k, v in route.items() if k != 'func'}
            for name, route in routes.items()}


def _route(routes: Routes, method: str,
           http_method: str) -> dict[str, Any]:
    route = routes.get(method)
    if route is None:
        raise exception.InvalidParameterValue(
            err='No handler for method %s' % method)
    if http_method not in route['http_methods']:
        raise exception.InvalidParameterValue(
            err='The method %s does not support HTTP %s'
                % (method, http_method))
    return route


def _answer(route: dict[str, Any], value: Any) -> dict[str, Any]:
    return {'return': value, 'async': route['async'],
            'attach': route['attach']}


def _run_async(task: TaskManager, func: Any, method: str,
               info: dict[str, Any]) -> None:
    """Worker: an asynchronous node method. Its failure is logged (by
    the decorator) and kept in the node's history, without what it
    changed of the node; the node's state is not the method's to fail."""
    try:
        func(task, **info)
    except Exception as exc:
        history_db.record(
            task.node.id, 'Vendor passthru method %s failed: %s'
            % (method, utils.describe(exc)), 'vendor_passthru',
            severity=history_db.ERROR, conductor=task.host,
            user=getattr(task.context, 'user_id', None))
        return
    if not task.shared:
        task.save()


def _vendor(task: TaskManager) -> base.VendorInterface:
    vendor = task.driver.vendor
    if not isinstance(vendor, base.VendorInterface):
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='vendor')
    return vendor


def node_vendor_passthru(task: TaskManager, method: str, http_method: str,
                         info: dict[str, Any]) -> dict[str, Any]:
    """Call node method ``method`` in ``task`` (taken shared)."""
    vendor = _vendor(task)
    http_method = http_method.upper()
    route = _route(vendor.vendor_routes, method, http_method)
    if route['require_exclusive_lock']:
        task.upgrade_lock(purpose='calling vendor passthru %s' % method)
    vendor.validate(task, method=method, http_method=http_method, **info)
    info = dict(info, http_method=http_method)
    if route['async']:
        task.spawn_after(_run_async, route['func'], method, info)
        return _answer(route, None)
    value = route['func'](task, **info)
    if not task.shared:
        task.save()
    return _answer(route, value)


def default_vendor(drivers: factory.DriverFactory, driver_name: str
                   ) -> base.VendorInterface:
    """The vendor interface a hardware type's driver methods run on."""
    name = drivers.default_interface(driver_name, 'vendor')
    vendor = None if name is None else drivers.interfaces['vendor'][name]
    if not isinstance(vendor, base.VendorInterface):
        raise exception.UnsupportedDriverExtension(
            driver=driver_name, extension='vendor')
    return vendor


def driver_vendor_passthru(drivers: factory.DriverFactory,
                           spawn: Callable[[Callable[[], None]], None],
                           context: RequestContext,
                           driver_name: str, method: str, http_method: str,
                           info: dict[str, Any]) -> dict[str, Any]:
    """Call driver method ``method`` of hardware type ``driver_name``;
    ``spawn`` runs an asynchronous one in a worker."""
    vendor = default_vendor(drivers, driver_name)
    http_method = http_method.upper()
    route = _route(vendor.driver_routes, method, http_method)
    info = dict(info, http_method=http_method)
    vendor.driver_validate(method=method, **info)
    func = route['func']
    if route['async']:
        def run() -> None:
            try:
                func(context, **info)
            except Exception:
                pass  # logged by the passthru decorator
        spawn(run)
        return _answer(route, None)
    return _answer(route, func(context, **info))


class VendorPassthruEndpoints(base_manager.BaseConductorManager):
    """The conductor's vendor passthru RPC methods; the manager is one."""

    @utils.rpc_endpoint
    def vendor_passthru(self, context: RequestContext, node_id: str,
                        driver_method: str, http_method: str,
                        info: dict[str, Any]) -> dict[str, Any]:
        with self.acquire(context, node_id, shared=True,
                          purpose='calling vendor passthru') as task:
            return node_vendor_passthru(task, driver_method, http_method,
                                        dict(info or {}))

    @utils.rpc_endpoint
    def driver_vendor_passthru(self, context: RequestContext,
                               driver_name: str, driver_method: str,
                               http_method: str, info: dict[str, Any]
                               ) -> dict[str, Any]:
        return driver_vendor_passthru(
            factory.get_factory(), self.spawn_worker, context, driver_name,
            driver_method, http_method, dict(info or {}))

    @utils.rpc_endpoint
    def get_node_vendor_passthru_methods(self, context: RequestContext,
                                         node_id: str) -> Routes:
        with self.acquire(context, node_id, shared=True,
                          purpose='listing vendor passthru methods') as task:
            return methods_of(_vendor(task).vendor_routes)

    @utils.rpc_endpoint
    def get_driver_vendor_passthru_methods(self, context: RequestContext,
                                           driver_name: str
                                           ) -> Routes:
        return methods_of(default_vendor(factory.get_factory(),
                                         driver_name).driver_routes)
