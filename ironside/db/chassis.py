"""Queries on chassis: groups of nodes, kept for old clients."""

from __future__ import annotations

import sqlalchemy as sa

from ironside.common import exception
from ironside.db import models
from ironside.db import resources
from ironside.db import session as db_session

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
    chassis_id = CHASSIS.id_for(ident)
    with db_session.writer() as session:
        if session.scalar(sa.select(models.Node.id).where(
                models.Node.chassis_id == chassis_id).limit(1)):
            raise exception.ChassisNotEmpty(chassis=ident)
        session.execute(sa.delete(models.Chassis).where(
            models.Chassis.id == chassis_id))
