"""Initial schema: nodes, traits, ports, portgroups, conductors, deploy
templates, allocations, chassis and node history.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

# JSON documents are stored as text; LONGTEXT on MySQL/MariaDB, whose TEXT
# holds only 64 KiB.
JSON_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('allocations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('node_id', sa.Integer(), nullable=True),
    sa.Column('state', sa.String(length=15), nullable=False),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('resource_class', sa.String(length=80), nullable=True),
    sa.Column('traits', JSON_TEXT, nullable=True),
    sa.Column('candidate_nodes', JSON_TEXT, nullable=True),
    sa.Column('extra', JSON_TEXT, nullable=True),
    sa.Column('conductor_affinity', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_allocations')),
    sa.UniqueConstraint('name', name=op.f('uniq_allocations0name')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_allocations0uuid'))
    )
    with op.batch_alter_table('allocations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_allocations_node_id'), ['node_id'], unique=False)

    op.create_table('chassis',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('extra', JSON_TEXT, nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_chassis')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_chassis0uuid'))
    )
    op.create_table('conductors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('hostname', sa.String(length=255), nullable=False),
    sa.Column('online', sa.Boolean(), nullable=False),
    sa.Column('conductor_group', sa.String(length=255), nullable=False),
    sa.Column('hardware_types', JSON_TEXT, nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_conductors')),
    sa.UniqueConstraint('hostname', name=op.f('uniq_conductors0hostname'))
    )
    with op.batch_alter_table('conductors', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_conductors_conductor_group'), ['conductor_group'], unique=False)
        batch_op.create_index(batch_op.f('ix_conductors_heartbeat_at'), ['heartbeat_at'], unique=False)

    op.create_table('deploy_templates',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('extra', JSON_TEXT, nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_deploy_templates')),
    sa.UniqueConstraint('name', name=op.f('uniq_deploy_templates0name')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_deploy_templates0uuid'))
    )
    op.create_table('conductor_hardware_interfaces',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('conductor_id', sa.Integer(), nullable=False),
    sa.Column('hardware_type', sa.String(length=255), nullable=False),
    sa.Column('interface_type', sa.String(length=16), nullable=False),
    sa.Column('interface_name', sa.String(length=255), nullable=False),
    sa.Column('default', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['conductor_id'], ['conductors.id'], name=op.f('fk_conductor_hardware_interfaces_conductor_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_conductor_hardware_interfaces')),
    sa.UniqueConstraint('conductor_id', 'hardware_type', 'interface_type', 'interface_name', name='uniq_conductorhardwareinterfaces0')
    )
    with op.batch_alter_table('conductor_hardware_interfaces', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_conductor_hardware_interfaces_conductor_id'), ['conductor_id'], unique=False)

    op.create_table('deploy_template_steps',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('deploy_template_id', sa.Integer(), nullable=False),
    sa.Column('interface', sa.String(length=255), nullable=False),
    sa.Column('step', sa.String(length=255), nullable=False),
    sa.Column('args', JSON_TEXT, nullable=True),
    sa.Column('priority', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['deploy_template_id'], ['deploy_templates.id'], name=op.f('fk_deploy_template_steps_deploy_template_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_deploy_template_steps'))
    )
    with op.batch_alter_table('deploy_template_steps', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_deploy_template_steps_deploy_template_id'), ['deploy_template_id'], unique=False)

    op.create_table('nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('driver', sa.String(length=255), nullable=False),
    sa.Column('chassis_id', sa.Integer(), nullable=True),
    sa.Column('bios_interface', sa.String(length=255), nullable=True),
    sa.Column('boot_interface', sa.String(length=255), nullable=True),
    sa.Column('console_interface', sa.String(length=255), nullable=True),
    sa.Column('deploy_interface', sa.String(length=255), nullable=True),
    sa.Column('firmware_interface', sa.String(length=255), nullable=True),
    sa.Column('inspect_interface', sa.String(length=255), nullable=True),
    sa.Column('management_interface', sa.String(length=255), nullable=True),
    sa.Column('network_interface', sa.String(length=255), nullable=True),
    sa.Column('power_interface', sa.String(length=255), nullable=True),
    sa.Column('raid_interface', sa.String(length=255), nullable=True),
    sa.Column('rescue_interface', sa.String(length=255), nullable=True),
    sa.Column('storage_interface', sa.String(length=255), nullable=True),
    sa.Column('vendor_interface', sa.String(length=255), nullable=True),
    sa.Column('provision_state', sa.String(length=15), nullable=True),
    sa.Column('target_provision_state', sa.String(length=15), nullable=True),
    sa.Column('provision_updated_at', sa.DateTime(), nullable=True),
    sa.Column('power_state', sa.String(length=15), nullable=True),
    sa.Column('target_power_state', sa.String(length=15), nullable=True),
    sa.Column('maintenance', sa.Boolean(), nullable=False),
    sa.Column('maintenance_reason', sa.Text(), nullable=True),
    sa.Column('fault', sa.String(length=255), nullable=True),
    sa.Column('reservation', sa.String(length=255), nullable=True),
    sa.Column('conductor_affinity', sa.Integer(), nullable=True),
    sa.Column('conductor_group', sa.String(length=255), nullable=False),
    sa.Column('driver_info', JSON_TEXT, nullable=True),
    sa.Column('driver_internal_info', JSON_TEXT, nullable=True),
    sa.Column('instance_info', JSON_TEXT, nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('instance_name', sa.String(length=255), nullable=True),
    sa.Column('properties', JSON_TEXT, nullable=True),
    sa.Column('extra', JSON_TEXT, nullable=True),
    sa.Column('network_data', JSON_TEXT, nullable=True),
    sa.Column('raid_config', JSON_TEXT, nullable=True),
    sa.Column('target_raid_config', JSON_TEXT, nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('failure_reason', sa.String(length=64), nullable=True),
    sa.Column('deploy_step', JSON_TEXT, nullable=True),
    sa.Column('clean_step', JSON_TEXT, nullable=True),
    sa.Column('service_step', JSON_TEXT, nullable=True),
    sa.Column('resource_class', sa.String(length=80), nullable=True),
    sa.Column('owner', sa.String(length=255), nullable=True),
    sa.Column('lessee', sa.String(length=255), nullable=True),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('console_enabled', sa.Boolean(), nullable=False),
    sa.Column('inspection_started_at', sa.DateTime(), nullable=True),
    sa.Column('inspection_finished_at', sa.DateTime(), nullable=True),
    sa.Column('automated_clean', sa.Boolean(), nullable=True),
    sa.Column('protected', sa.Boolean(), nullable=False),
    sa.Column('protected_reason', sa.Text(), nullable=True),
    sa.Column('retired', sa.Boolean(), nullable=False),
    sa.Column('retired_reason', sa.Text(), nullable=True),
    sa.Column('allocation_id', sa.Integer(), nullable=True),
    sa.Column('boot_mode', sa.String(length=16), nullable=True),
    sa.Column('secure_boot', sa.Boolean(), nullable=True),
    sa.Column('shard', sa.String(length=255), nullable=True),
    sa.Column('parent_node', sa.String(length=36), nullable=True),
    sa.Column('disable_power_off', sa.Boolean(), nullable=False),
    sa.Column('health', sa.String(length=32), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['allocation_id'], ['allocations.id'], name=op.f('fk_nodes_allocation_id'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['chassis_id'], ['chassis.id'], name=op.f('fk_nodes_chassis_id')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_nodes')),
    sa.UniqueConstraint('instance_uuid', name=op.f('uniq_nodes0instance_uuid')),
    sa.UniqueConstraint('name', name=op.f('uniq_nodes0name')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_nodes0uuid'))
    )
    with op.batch_alter_table('nodes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_nodes_allocation_id'), ['allocation_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_chassis_id'), ['chassis_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_conductor_affinity'), ['conductor_affinity'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_conductor_group'), ['conductor_group'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_driver'), ['driver'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_fault'), ['fault'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_lessee'), ['lessee'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_instance_name'), ['instance_name'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_maintenance'), ['maintenance'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_owner'), ['owner'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_parent_node'), ['parent_node'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_reservation'), ['reservation'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_retired'), ['retired'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_resource_class'), ['resource_class'], unique=False)
        batch_op.create_index(batch_op.f('ix_nodes_shard'), ['shard'], unique=False)
        batch_op.create_index('nodes_provision_state_updated_idx', ['provision_state', 'provision_updated_at'], unique=False)

    op.create_table('node_history',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('conductor', sa.String(length=255), nullable=True),
    sa.Column('event_type', sa.String(length=255), nullable=True),
    sa.Column('severity', sa.String(length=16), nullable=True),
    sa.Column('event', sa.Text(), nullable=True),
    sa.Column('user', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name=op.f('fk_node_history_node_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_node_history')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_node_history0uuid'))
    )
    with op.batch_alter_table('node_history', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_node_history_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_node_history_node_id'), ['node_id'], unique=False)

    op.create_table('node_traits',
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('trait', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name=op.f('fk_node_traits_node_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('node_id', 'trait', name=op.f('pk_node_traits'))
    )
    with op.batch_alter_table('node_traits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_node_traits_trait'), ['trait'], unique=False)

    op.create_table('portgroups',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=18), nullable=True),
    sa.Column('extra', JSON_TEXT, nullable=True),
    sa.Column('internal_info', JSON_TEXT, nullable=True),
    sa.Column('properties', JSON_TEXT, nullable=True),
    sa.Column('standalone_ports_supported', sa.Boolean(), nullable=False),
    sa.Column('mode', sa.String(length=255), nullable=True),
    sa.Column('physical_network', sa.String(length=255), nullable=True),
    sa.Column('category', sa.String(length=80), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name=op.f('fk_portgroups_node_id'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_portgroups')),
    sa.UniqueConstraint('address', name=op.f('uniq_portgroups0address')),
    sa.UniqueConstraint('name', name=op.f('uniq_portgroups0name')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_portgroups0uuid'))
    )
    with op.batch_alter_table('portgroups', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_portgroups_node_id'), ['node_id'], unique=False)

    op.create_table('ports',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('address', sa.String(length=18), nullable=False),
    sa.Column('node_id', sa.Integer(), nullable=False),
    sa.Column('portgroup_id', sa.Integer(), nullable=True),
    sa.Column('extra', JSON_TEXT, nullable=True),
    sa.Column('internal_info', JSON_TEXT, nullable=True),
    sa.Column('local_link_connection', JSON_TEXT, nullable=True),
    sa.Column('pxe_enabled', sa.Boolean(), nullable=False),
    sa.Column('physical_network', sa.String(length=255), nullable=True),
    sa.Column('is_smartnic', sa.Boolean(), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('category', sa.String(length=80), nullable=True),
    sa.Column('vendor', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['node_id'], ['nodes.id'], name=op.f('fk_ports_node_id'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['portgroup_id'], ['portgroups.id'], name=op.f('fk_ports_portgroup_id'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ports')),
    sa.UniqueConstraint('address', name=op.f('uniq_ports0address')),
    sa.UniqueConstraint('name', name=op.f('uniq_ports0name')),
    sa.UniqueConstraint('uuid', name=op.f('uniq_ports0uuid'))
    )
    with op.batch_alter_table('ports', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ports_node_id'), ['node_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_ports_portgroup_id'), ['portgroup_id'], unique=False)

