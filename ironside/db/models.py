"""SQLAlchemy models of Ironside's tables.

The schema itself is owned by the Alembic migrations; these models must
describe the same tables (a test compares them on every backend).
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.dialects import mysql
from sqlalchemy.ext.mutable import MutableDict
from sqlalchemy.ext.mutable import MutableList


def utcnow() -> datetime.datetime:
    """Naive UTC now; every timestamp column stores naive UTC."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class JsonEncoded(sa.types.TypeDecorator[Any]):
    """JSON stored as text, so every backend stores and returns the same.

    Native JSON types differ across SQLite, PostgreSQL and MariaDB in how
    they compare, sort and round-trip; these columns are only ever read
    whole, so text is the portable choice.
    """

    impl = sa.Text
    cache_ok = True
    empty: Any = None

    def load_dialect_impl(self, dialect: sa.Dialect
                          ) -> sa.types.TypeEngine[Any]:
        if dialect.name == 'mysql':
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(sa.Text())

    def process_bind_param(self, value: Any, dialect: sa.Dialect
                           ) -> str | None:
        if value is None:
            value = self.empty() if callable(self.empty) else self.empty
        return None if value is None else json.dumps(value)

    def process_result_value(self, value: Any, dialect: sa.Dialect
                             ) -> Any:
        if value is None:
            return self.empty() if callable(self.empty) else self.empty
        return json.loads(value)


class JsonDict(JsonEncoded):
    """A JSON object column; NULL reads back as {}."""

    # SQLAlchemy looks for cache_ok on each class, not its bases; without
    # it no statement touching the column is cached.
    cache_ok = True
    empty = dict


class JsonList(JsonEncoded):
    cache_ok = True
    empty = list


class TrackedDict(MutableDict[str, Any]):
    """A JSON object column's value that flags its parent when it changes,
    and only then.

    MutableDict flags the parent at every ``pop``, also of a key that is
    not there; the conductor clears a dozen absent keys of
    ``driver_internal_info`` at each step, and each flag costs a walk of
    the value's parents and an attribute event.
    """

    def pop(self, key: Any, *default: Any) -> Any:
        if default and key not in self:
            return default[0]
        return super().pop(key, *default)


# A JSON object column's value: keys are strings, values any JSON.
JsonObject = dict[str, Any]


def dict_column() -> orm.Mapped[JsonObject]:
    return orm.mapped_column(TrackedDict.as_mutable(JsonDict), nullable=True)


def list_column() -> orm.Mapped[list[Any]]:
    return orm.mapped_column(MutableList.as_mutable(JsonList), nullable=True)


NAMING = {
    'ix': 'ix_%(table_name)s_%(column_0_name)s',
    'uq': 'uniq_%(table_name)s0%(column_0_name)s',
    'fk': 'fk_%(table_name)s_%(column_0_name)s',
    'pk': 'pk_%(table_name)s',
}


class Base(orm.DeclarativeBase):
    metadata = sa.MetaData(naming_convention=NAMING)

    def as_dict(self) -> dict[str, Any]:
        return {c.key: getattr(self, c.key)
                for c in sa.inspect(type(self)).column_attrs}


class TimestampMixin:
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False)
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        sa.DateTime, onupdate=utcnow, nullable=True)


def _str(length: int = 255, **kwargs: Any) -> orm.Mapped[str | None]:
    kwargs.setdefault('nullable', True)
    return orm.mapped_column(sa.String(length), **kwargs)


class Chassis(TimestampMixin, Base):
    __tablename__ = 'chassis'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    extra: orm.Mapped[JsonObject] = dict_column()


class Conductor(TimestampMixin, Base):
    __tablename__ = 'conductors'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    hostname: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                                  unique=True)
    online: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)
    conductor_group: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default='', nullable=False, index=True)
    hardware_types: orm.Mapped[list[str]] = list_column()
    heartbeat_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False, index=True)
    # The process that registered it (see common.process_identity).
    instance: orm.Mapped[str | None] = orm.mapped_column(sa.String(255),
                                                         nullable=True)


class ConductorHardwareInterface(TimestampMixin, Base):
    """One interface implementation a conductor serves for a hardware type.

    The API answers driver questions (which interfaces, which default)
    from these rows without loading any driver itself.
    """

    __tablename__ = 'conductor_hardware_interfaces'
    __table_args__ = (
        sa.UniqueConstraint('conductor_id', 'hardware_type',
                            'interface_type', 'interface_name',
                            name='uniq_conductorhardwareinterfaces0'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    conductor_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('conductors.id', ondelete='CASCADE'), index=True)
    hardware_type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    interface_type: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    interface_name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    default: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)


class Allocation(TimestampMixin, Base):
    __tablename__ = 'allocations'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    name: orm.Mapped[str | None] = _str(unique=True)
    # Not a foreign key: nodes.allocation_id points back here, and SQLite
    # cannot create a cycle of foreign keys.
    node_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer, nullable=True, index=True)
    state: orm.Mapped[str] = orm.mapped_column(sa.String(15))
    owner: orm.Mapped[str | None] = _str()
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    resource_class: orm.Mapped[str | None] = _str(80)
    traits: orm.Mapped[list[str]] = list_column()
    candidate_nodes: orm.Mapped[list[str]] = list_column()
    extra: orm.Mapped[JsonObject] = dict_column()
    conductor_affinity: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer, nullable=True)


class Node(TimestampMixin, Base):
    """A bare-metal node: Ironic's node fields, one column each.

    Read, written and locked only through :mod:`ironside.db.nodes`,
    which builds a node from its row and writes the columns it changed
    with kept statements; no session loads or flushes one. Its traits
    are rows of :class:`NodeTrait`, read and written there too.
    """

    __tablename__ = 'nodes'
    __table_args__ = (
        sa.Index('nodes_provision_state_updated_idx', 'provision_state',
                 'provision_updated_at'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    name: orm.Mapped[str | None] = _str(unique=True)
    driver: orm.Mapped[str] = orm.mapped_column(sa.String(255), index=True)
    chassis_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('chassis.id'), nullable=True, index=True)

    bios_interface: orm.Mapped[str | None] = _str()
    boot_interface: orm.Mapped[str | None] = _str()
    console_interface: orm.Mapped[str | None] = _str()
    deploy_interface: orm.Mapped[str | None] = _str()
    firmware_interface: orm.Mapped[str | None] = _str()
    inspect_interface: orm.Mapped[str | None] = _str()
    management_interface: orm.Mapped[str | None] = _str()
    network_interface: orm.Mapped[str | None] = _str()
    power_interface: orm.Mapped[str | None] = _str()
    raid_interface: orm.Mapped[str | None] = _str()
    rescue_interface: orm.Mapped[str | None] = _str()
    storage_interface: orm.Mapped[str | None] = _str()
    vendor_interface: orm.Mapped[str | None] = _str()

    provision_state: orm.Mapped[str | None] = _str(15)
    target_provision_state: orm.Mapped[str | None] = _str(15)
    provision_updated_at: orm.Mapped[datetime.datetime | None] = \
        orm.mapped_column(sa.DateTime, nullable=True)
    power_state: orm.Mapped[str | None] = _str(15)
    target_power_state: orm.Mapped[str | None] = _str(15)
    maintenance: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False, index=True)
    maintenance_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    fault: orm.Mapped[str | None] = _str(index=True)
    reservation: orm.Mapped[str | None] = _str(index=True)
    conductor_affinity: orm.Mapped[int | None] = orm.mapped_column(
        sa.Integer, nullable=True, index=True)
    conductor_group: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default='', nullable=False, index=True)

    driver_info: orm.Mapped[JsonObject] = dict_column()
    driver_internal_info: orm.Mapped[JsonObject] = dict_column()
    instance_info: orm.Mapped[JsonObject] = dict_column()
    instance_uuid: orm.Mapped[str | None] = _str(36, unique=True)
    instance_name: orm.Mapped[str | None] = _str(index=True)
    properties: orm.Mapped[JsonObject] = dict_column()
    extra: orm.Mapped[JsonObject] = dict_column()
    network_data: orm.Mapped[JsonObject] = dict_column()
    raid_config: orm.Mapped[JsonObject] = dict_column()
    target_raid_config: orm.Mapped[JsonObject] = dict_column()

    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # Machine-readable reason of the last failure (e.g. StepFailed,
    # StepTimeout, BMCUnreachable, ConductorDied), beside last_error.
    failure_reason: orm.Mapped[str | None] = _str(64)
    deploy_step: orm.Mapped[JsonObject] = dict_column()
    clean_step: orm.Mapped[JsonObject] = dict_column()
    service_step: orm.Mapped[JsonObject] = dict_column()

    resource_class: orm.Mapped[str | None] = _str(80, index=True)
    owner: orm.Mapped[str | None] = _str(index=True)
    lessee: orm.Mapped[str | None] = _str(index=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    console_enabled: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False)
    inspection_started_at: orm.Mapped[datetime.datetime | None] = \
        orm.mapped_column(sa.DateTime)
    inspection_finished_at: orm.Mapped[datetime.datetime | None] = \
        orm.mapped_column(sa.DateTime)
    automated_clean: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, nullable=True)
    protected: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False)
    protected_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    retired: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False, index=True)
    retired_reason: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    allocation_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('allocations.id', ondelete='SET NULL'),
        nullable=True, index=True)
    boot_mode: orm.Mapped[str | None] = _str(16)
    secure_boot: orm.Mapped[bool | None] = orm.mapped_column(
        sa.Boolean, nullable=True)
    shard: orm.Mapped[str | None] = _str(index=True)
    parent_node: orm.Mapped[str | None] = _str(36, index=True)
    disable_power_off: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False)
    health: orm.Mapped[str | None] = _str(32)
    # Counts the writes of the node's columns (every save adds one): what
    # the API's lock-free change of an idle node compares and sets
    # (ironside.db.nodes.merge_node).
    row_version: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, default=0, server_default='0', nullable=False)


class NodeTrait(Base):
    __tablename__ = 'node_traits'

    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), primary_key=True)
    trait: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                               primary_key=True, index=True)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False)


class Portgroup(TimestampMixin, Base):
    __tablename__ = 'portgroups'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    name: orm.Mapped[str | None] = _str(unique=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), index=True)
    address: orm.Mapped[str | None] = _str(18, unique=True)
    extra: orm.Mapped[JsonObject] = dict_column()
    internal_info: orm.Mapped[JsonObject] = dict_column()
    properties: orm.Mapped[JsonObject] = dict_column()
    standalone_ports_supported: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True, nullable=False)
    mode: orm.Mapped[str | None] = _str()
    physical_network: orm.Mapped[str | None] = _str()
    category: orm.Mapped[str | None] = _str(80)


class Port(TimestampMixin, Base):
    __tablename__ = 'ports'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    name: orm.Mapped[str | None] = _str(unique=True)
    address: orm.Mapped[str] = orm.mapped_column(sa.String(18), unique=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), index=True)
    portgroup_id: orm.Mapped[int | None] = orm.mapped_column(
        sa.ForeignKey('portgroups.id', ondelete='SET NULL'), nullable=True,
        index=True)
    extra: orm.Mapped[JsonObject] = dict_column()
    internal_info: orm.Mapped[JsonObject] = dict_column()
    local_link_connection: orm.Mapped[JsonObject] = dict_column()
    pxe_enabled: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=True, nullable=False)
    physical_network: orm.Mapped[str | None] = _str()
    is_smartnic: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    category: orm.Mapped[str | None] = _str(80)
    vendor: orm.Mapped[str | None] = _str()


class DeployTemplate(TimestampMixin, Base):
    __tablename__ = 'deploy_templates'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    extra: orm.Mapped[JsonObject] = dict_column()
    steps: orm.Mapped[list[DeployTemplateStep]] = orm.relationship(
        'DeployTemplateStep', lazy='selectin', cascade='all, delete-orphan',
        passive_deletes=True, order_by='DeployTemplateStep.id')


class DeployTemplateStep(TimestampMixin, Base):
    __tablename__ = 'deploy_template_steps'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    deploy_template_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('deploy_templates.id', ondelete='CASCADE'),
        index=True)
    interface: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    step: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    args: orm.Mapped[JsonObject] = dict_column()
    priority: orm.Mapped[int] = orm.mapped_column(sa.Integer)

    def as_step(self) -> dict[str, Any]:
        return {'interface': self.interface, 'step': self.step,
                'args': dict(self.args or {}), 'priority': self.priority}


class VolumeConnector(TimestampMixin, Base):
    """How a node reaches its volumes: an iSCSI name, an address, a WWN."""

    __tablename__ = 'volume_connectors'
    __table_args__ = (
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volumeconnectors0type0connector_id'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), index=True)
    type: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    connector_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    extra: orm.Mapped[JsonObject] = dict_column()


class VolumeTarget(TimestampMixin, Base):
    """A volume a node may boot from or attach, by its boot order."""

    __tablename__ = 'volume_targets'
    __table_args__ = (
        sa.UniqueConstraint('node_id', 'boot_index',
                            name='uniq_volumetargets0node_id0boot_index'),
    )

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), index=True)
    volume_type: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    properties: orm.Mapped[JsonObject] = dict_column()
    boot_index: orm.Mapped[int] = orm.mapped_column(sa.Integer)
    volume_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    extra: orm.Mapped[JsonObject] = dict_column()


class Runbook(TimestampMixin, Base):
    """Named, ordered steps a node whose traits name it may run."""

    __tablename__ = 'runbooks'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    disable_ramdisk: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False)
    public: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False, nullable=False)
    owner: orm.Mapped[str | None] = _str()
    description: orm.Mapped[str | None] = _str()
    # The node traits that approve the runbook for a node (1.112).
    traits: orm.Mapped[list[str]] = list_column()
    extra: orm.Mapped[JsonObject] = dict_column()
    steps: orm.Mapped[list[RunbookStep]] = orm.relationship(
        'RunbookStep', lazy='selectin', cascade='all, delete-orphan',
        passive_deletes=True, order_by='RunbookStep.id')


class RunbookStep(TimestampMixin, Base):
    __tablename__ = 'runbook_steps'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    runbook_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('runbooks.id', ondelete='CASCADE'), index=True)
    interface: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    step: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    args: orm.Mapped[JsonObject] = dict_column()
    order: orm.Mapped[int] = orm.mapped_column(sa.Integer)

    def as_step(self) -> dict[str, Any]:
        return {'interface': self.interface, 'step': self.step,
                'args': dict(self.args or {}), 'order': self.order}


class NodeHistory(Base):
    """An event in a node's life: step starts, ends and failures, errors."""

    __tablename__ = 'node_history'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), index=True)
    conductor: orm.Mapped[str | None] = _str()
    event_type: orm.Mapped[str | None] = _str()
    severity: orm.Mapped[str | None] = _str(16)
    event: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    user: orm.Mapped[str | None] = _str(64)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, default=utcnow, nullable=False, index=True)


class InspectionRule(TimestampMixin, Base):
    """Conditions on what inspection found, and actions when they hold."""

    __tablename__ = 'inspection_rules'

    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    uuid: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    description: orm.Mapped[str | None] = _str()
    phase: orm.Mapped[str] = orm.mapped_column(sa.String(16), index=True)
    priority: orm.Mapped[int] = orm.mapped_column(default=0)
    sensitive: orm.Mapped[bool] = orm.mapped_column(sa.Boolean,
                                                    default=False)
    conditions: orm.Mapped[list[JsonObject]] = list_column()
    actions: orm.Mapped[list[JsonObject]] = list_column()


class NodeInventory(TimestampMixin, Base):
    """What the last inspection of a node found (one row per node)."""

    __tablename__ = 'node_inventory'

    node_id: orm.Mapped[int] = orm.mapped_column(
        sa.ForeignKey('nodes.id', ondelete='CASCADE'), primary_key=True)
    inventory: orm.Mapped[JsonObject] = dict_column()
    plugin_data: orm.Mapped[JsonObject] = dict_column()


class FleetLimit(Base):
    """One row per fleet-wide cap, taken to decide anything about it.

    A conductor deciding whether a request fits under a cap updates the
    cap's row first: the row lock makes those decisions one at a time on
    every backend and isolation level, so two conductors never both take
    the last slot (see :mod:`ironside.db.fleet`).
    """

    __tablename__ = 'fleet_limits'

    name: orm.Mapped[str] = orm.mapped_column(sa.String(32),
                                              primary_key=True)
    generation: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                                    nullable=False)


class FleetSlot(Base):
    """The slots of a counted cap one conductor holds.

    Only the rows of live conductors count, so the slots of a conductor
    that died are given back when its heartbeat times out.
    """

    __tablename__ = 'fleet_slots'

    name: orm.Mapped[str] = orm.mapped_column(sa.String(32),
                                              primary_key=True)
    host: orm.Mapped[str] = orm.mapped_column(sa.String(255),
                                              primary_key=True)
    used: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0,
                                              nullable=False)
