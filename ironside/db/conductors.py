"""Queries on conductors: registration, heartbeats and liveness."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable

import sqlalchemy as sa

from ironside.common import exception
from ironside.common import process_identity
from ironside.common.conf import CONF
from ironside.db import models
from ironside.db import session as db_session

LOG = logging.getLogger(__name__)


def _deadline(timeout: float) -> datetime.datetime:
    return models.utcnow() - datetime.timedelta(seconds=timeout)


def register_conductor(hostname: str, conductor_group: str,
                       hardware_types: Iterable[str],
                       interfaces: Iterable[tuple[str, str, str, bool]],
                       heartbeat_timeout: float,
                       instance: str | None = None) -> models.Conductor:
    """Register (or re-register) a conductor and what it serves.

    ``interfaces`` are (hardware_type, interface_type, interface_name,
    is_default) tuples. A live conductor of the same name refuses the
    registration: two processes must not share a host name. A row whose
    registering process is known to be gone (``instance``, see
    common.process_identity) is taken back at once, heartbeat or not.
    """
    now = models.utcnow()
    with db_session.writer() as session:
        conductor = session.scalars(
            sa.select(models.Conductor)
            .where(models.Conductor.hostname == hostname)).first()
        if conductor is not None and conductor.online and \
                conductor.heartbeat_at > _deadline(heartbeat_timeout) and \
                conductor.instance != instance:
            if not process_identity.is_gone(conductor.instance):
                raise exception.ConductorAlreadyRegistered(
                    conductor=hostname)
            LOG.info('Taking back the registration of conductor %s: the '
                     'process that held it (%s) is gone', hostname,
                     conductor.instance)
        if conductor is None:
            conductor = models.Conductor(hostname=hostname)
            session.add(conductor)
        conductor.online = True
        conductor.instance = instance
        conductor.conductor_group = conductor_group.lower()
        conductor.hardware_types = sorted(hardware_types)
        conductor.heartbeat_at = now
        session.flush()
        session.execute(sa.delete(models.ConductorHardwareInterface).where(
            models.ConductorHardwareInterface.conductor_id == conductor.id))
        for hw_type, iface_type, name, default in interfaces:
            session.add(models.ConductorHardwareInterface(
                conductor_id=conductor.id, hardware_type=hw_type,
                interface_type=iface_type, interface_name=name,
                default=default))
    return conductor


def touch_conductor(hostname: str) -> None:
    """Heartbeat: the conductor is alive now."""
    with db_session.writer() as session:
        result = session.execute(
            sa.update(models.Conductor)
            .where(models.Conductor.hostname == hostname)
            .values(heartbeat_at=models.utcnow(), online=True))
        if db_session.changed_rows(result) == 0:
            raise exception.ConductorNotFound(conductor=hostname)


def unregister_conductor(hostname: str) -> None:
    """A clean shutdown: the conductor goes offline at once."""
    with db_session.writer() as session:
        session.execute(sa.update(models.Conductor)
                        .where(models.Conductor.hostname == hostname)
                        .values(online=False))


def get_conductor(hostname: str) -> models.Conductor:
    with db_session.reader() as session:
        conductor = session.scalars(
            sa.select(models.Conductor)
            .where(models.Conductor.hostname == hostname)).first()
    if conductor is None:
        raise exception.ConductorNotFound(conductor=hostname)
    return conductor


def list_conductors(limit: int | None = None, marker: str | None = None,
                    sort_dir: str = 'asc') -> list[models.Conductor]:
    query = sa.select(models.Conductor)
    if marker:
        query = query.where(models.Conductor.hostname > marker
                            if sort_dir != 'desc'
                            else models.Conductor.hostname < marker)
    query = query.order_by(models.Conductor.hostname.asc()
                           if sort_dir != 'desc'
                           else models.Conductor.hostname.desc())
    if limit:
        query = query.limit(limit)
    with db_session.reader() as session:
        return list(session.scalars(query))


def live_conductors(heartbeat_timeout: float | None = None
                    ) -> list[models.Conductor]:
    """Conductors online with a heartbeat newer than the timeout
    (``[conductor]heartbeat_timeout`` unless given): those a hash ring
    spreads nodes over."""
    if heartbeat_timeout is None:
        heartbeat_timeout = CONF.conductor.heartbeat_timeout
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(models.Conductor)
            .where(models.Conductor.online.is_(True),
                   models.Conductor.heartbeat_at >
                   _deadline(heartbeat_timeout))
            .order_by(models.Conductor.hostname)))


def dead_conductor_hosts(heartbeat_timeout: float) -> list[str]:
    """Conductors that stopped heartbeating, or went offline."""
    with db_session.reader() as session:
        return list(session.scalars(
            sa.select(models.Conductor.hostname)
            .where(sa.or_(models.Conductor.online.is_(False),
                          models.Conductor.heartbeat_at <=
                          _deadline(heartbeat_timeout)))))


def mark_dead_offline(heartbeat_timeout: float) -> list[str]:
    """Set online=False on conductors that stopped heartbeating."""
    with db_session.writer() as session:
        hosts = list(session.scalars(
            sa.select(models.Conductor.hostname)
            .where(models.Conductor.online.is_(True),
                   models.Conductor.heartbeat_at <=
                   _deadline(heartbeat_timeout))))
        if hosts:
            session.execute(sa.update(models.Conductor)
                            .where(models.Conductor.hostname.in_(hosts))
                            .values(online=False))
    return hosts


def hardware_interfaces(heartbeat_timeout: float | None = None,
                        hardware_type: str | None = None
                        ) -> list[models.ConductorHardwareInterface]:
    """Interfaces served by (live) conductors, for the drivers API."""
    query = sa.select(models.ConductorHardwareInterface).join(
        models.Conductor,
        models.Conductor.id == models.ConductorHardwareInterface.conductor_id)
    if heartbeat_timeout is not None:
        query = query.where(models.Conductor.online.is_(True),
                            models.Conductor.heartbeat_at >
                            _deadline(heartbeat_timeout))
    if hardware_type:
        query = query.where(
            models.ConductorHardwareInterface.hardware_type == hardware_type)
    with db_session.reader() as session:
        return list(session.scalars(query))
