"""GET /boot/...: [deploy]http_root served by the API, when
[deploy]serve_boot_files is on (the all-in-one's default): the iPXE
scripts, kernels, ramdisks and boot ISOs machines and BMCs fetch. No
authentication: what is there is what any machine on the provisioning
network may boot."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import falcon

from ironside.common.conf import CONF

if TYPE_CHECKING:
    from ironside.conductor.rpcapi import ConductorAPI

PREFIX = '/boot'


def register(app: falcon.App, rpcapi: ConductorAPI) -> None:
    if not CONF.deploy.serve_boot_files:
        return
    os.makedirs(CONF.deploy.http_root, exist_ok=True)
    app.add_static_route(PREFIX, os.path.abspath(CONF.deploy.http_root))


def public_prefixes() -> tuple[str, ...]:
    return (PREFIX + '/',) if CONF.deploy.serve_boot_files else ()
