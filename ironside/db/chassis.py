"""Queries on chassis: groups of nodes, kept for old clients."""

from __future__ import annotations

from ironside.common import exception
from ironside.db import models
from ironside.db import resources

CHASSIS = resources.Resource(
    model=models.Chassis,
    not_found=lambda ident: exception.ChassisNotFound(chassis=ident),
    duplicates={'uuid': lambda v: exception.ChassisAlreadyExists(
        uuid=v.get('uuid'))})

create = CHASSIS.create
get = CHASSIS.get
update = CHASSIS.update
list_chassis = CHASSIS.list
id_for = CHASSIS.id_for


def destroy(ident: str) -> None:
    """Delete an empty chassis (ChassisNotEmpty if nodes are in it)."""
    CHASSIS.destroy_unused(ident, resources.table(models.Node).c.chassis_id,
                           exception.ChassisNotEmpty(chassis=ident))
