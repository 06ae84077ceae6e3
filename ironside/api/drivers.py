"""/v1/drivers: the hardware types live conductors serve.

Answered from what conductors registered in the database (no driver is
loaded in the API); only the driver_info properties come from a
conductor, by RPC.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import falcon

from ironside.api import base
from ironside.api import links
from ironside.api import policy
from ironside.api import versions
from ironside.api import wire
from ironside.api.schemas import raid as raid_schemas
from ironside.common import exception
from ironside.common.conf import CONF
from ironside.common.conf.default import INTERFACE_TYPES
from ironside.db import conductors as conductors_db

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

# Interface types shown from a version on (the others from 1.30).
INTERFACE_VERSIONS = {'storage': versions.STORAGE_INTERFACE,
                      'rescue': versions.RESCUE_INTERFACE,
                      'bios': versions.BIOS_INTERFACE,
                      'firmware': versions.FIRMWARE_INTERFACE}


def _hardware_types() -> dict[str, list[str]]:
    """Hardware type -> hosts of the live conductors serving it."""
    found: dict[str, list[str]] = {}
    for conductor in conductors_db.live_conductors(
            CONF.conductor.heartbeat_timeout):
        for name in conductor.hardware_types or ():
            found.setdefault(name, []).append(conductor.hostname)
    return found


def _interfaces(names: list[str]) -> dict[str, list]:
    rows = conductors_db.hardware_interfaces(
        CONF.conductor.heartbeat_timeout)
    result: dict[str, list] = {name: [] for name in names}
    for row in rows:
        if row.hardware_type in result:
            result[row.hardware_type].append(row)
    return result


def _render(req: falcon.Request, name: str, hosts: list[str], detail: bool,
            interfaces: list | None = None) -> dict[str, Any]:
    version = req.context.version
    base = req.context.public_url
    driver: dict[str, Any] = {
        'name': name, 'hosts': sorted(hosts),
        'links': links.self_and_bookmark(base, 'drivers', name)}
    if version.allows(versions.STATES_LINKS):
        driver['properties'] = links.self_and_bookmark(
            base, 'drivers', name + '/properties')
    if version.allows(versions.DYNAMIC_DRIVERS):
        driver['type'] = 'dynamic'
        if detail:
            for iface in INTERFACE_TYPES:
                if not version.allows(INTERFACE_VERSIONS.get(
                        iface, versions.DYNAMIC_DRIVERS)):
                    continue
                enabled = []
                default = None
                for row in interfaces or ():
                    if row.interface_type != iface:
                        continue
                    if row.interface_name not in enabled:
                        enabled.append(row.interface_name)
                    if row.default:
                        default = row.interface_name
                driver['default_%s_interface' % iface] = default
                driver['enabled_%s_interfaces' % iface] = enabled
    return driver


def _select(driver: dict[str, Any], fields: list[str] | None
            ) -> dict[str, Any]:
    if fields is None:
        return driver
    unknown = [f for f in fields if f not in driver]
    if unknown:
        raise exception.InvalidParameterValue(
            err='Field(s) "%s" are not valid' % ', '.join(unknown))
    return {k: v for k, v in driver.items() if k in fields or k == 'links'}


def _check_fields(req: falcon.Request, fields: list[str] | None) -> None:
    if fields is not None:
        versions.require(req.context.version, versions.DRIVER_FIELDS,
                         'fields')


class Drivers:
    """GET /v1/drivers."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = wire.query(req, {'type': wire.as_string,
                                 'detail': wire.as_boolean,
                                 'fields': wire.as_fields})
        policy.authorize('baremetal:driver:get', req.context.ctx)
        version = req.context.version
        if query['type'] is not None or query['detail'] is not None:
            versions.require(version, versions.DYNAMIC_DRIVERS)
        if query['type'] not in (None, 'classic', 'dynamic'):
            raise exception.InvalidParameterValue(
                err='"type" filter must be one of "classic" or "dynamic", '
                    'if specified.')
        _check_fields(req, query['fields'])
        if query['fields'] is not None and query['detail']:
            raise exception.InvalidParameterValue(
                err='Can not specify ?detail=True and fields in the same '
                    'request.')
        hardware_types = {} if query['type'] == 'classic' \
            else _hardware_types()
        detail = bool(query['detail'])
        interfaces = _interfaces(list(hardware_types)) if detail else {}
        drivers = [_select(_render(req, name, hosts, detail,
                                   interfaces.get(name)), query['fields'])
                   for name, hosts in sorted(hardware_types.items())]
        wire.send(resp, {'drivers': drivers})


def hosts_of(name: str) -> list[str]:
    hosts = _hardware_types().get(name)
    if not hosts:
        raise exception.DriverNotFound(driver_name=name)
    return hosts


class Driver:
    """GET /v1/drivers/{driver_name}."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               driver_name: str) -> None:
        query = wire.query(req, {'fields': wire.as_fields})
        policy.authorize('baremetal:driver:get', req.context.ctx)
        _check_fields(req, query['fields'])
        hosts = hosts_of(driver_name)
        driver = _render(req, driver_name, hosts, True,
                         _interfaces([driver_name])[driver_name])
        wire.send(resp, _select(driver, query['fields']))


class DriverProperties(base.Resource):
    """GET /v1/drivers/{driver_name}/properties."""

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               driver_name: str) -> None:
        wire.query(req, {})
        policy.authorize('baremetal:driver:get_properties', req.context.ctx)
        hosts_of(driver_name)
        wire.send(resp, self.rpcapi.get_driver_properties(req.context.ctx,
                                                          driver_name))


class DriverRaidProperties:
    """GET /v1/drivers/{driver_name}/raid/logical_disk_properties (1.12).

    The properties are those of the RAID schema every RAID interface
    validates with; a hardware type without a RAID interface but
    ``no-raid`` answers 404, as Ironic does.
    """

    def on_get(self, req: falcon.Request, resp: falcon.Response,
               driver_name: str) -> None:
        wire.query(req, {})
        policy.authorize('baremetal:driver:get_raid_logical_disk_properties',
                         req.context.ctx)
        versions.require(req.context.version, versions.RAID_CONFIG)
        hosts_of(driver_name)
        raid = {row.interface_name
                for row in _interfaces([driver_name])[driver_name]
                if row.interface_type == 'raid'}
        if not raid - {'no-raid'}:
            raise exception.UnsupportedDriverExtension(
                driver=driver_name, extension='raid', code=404)
        wire.send(resp, raid_schemas.logical_disk_properties())


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    app.add_route('/v1/drivers', Drivers())
    app.add_route('/v1/drivers/{driver_name}', Driver())
    app.add_route('/v1/drivers/{driver_name}/properties',
                  DriverProperties(rpcapi))
    app.add_route('/v1/drivers/{driver_name}/raid/logical_disk_properties',
                  DriverRaidProperties())
