"""RAID on redfish nodes: create and delete volumes, as steps.

Volumes are created on the first storage subsystem of the system that
has drives, from ``target_raid_config['logical_disks']`` (``size_gb`` or
``"MAX"``, ``raid_level``, optional ``volume_name``, ``is_root_volume``
and ``physical_disks`` as drive Ids). A BMC that runs the request as a
task (HTTP 202) leaves the node waiting; the task monitors are polled
every [redfish]task_poll_interval seconds until all are done. The
volumes found afterwards are recorded in ``raid_config``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers import base
from ironside.drivers import step_defs
from ironside.drivers.modules.redfish import common

TASKS_KEY = 'redfish_raid_tasks'
GIB = 1024 ** 3

# raid_level: (Redfish RAIDType, drives needed, data drives of n)
RAID_LEVELS: dict[str, tuple[str, int, Callable[[int], int]]] = {
    '0': ('RAID0', 1, lambda n: n),
    '1': ('RAID1', 2, lambda n: 1),
    '5': ('RAID5', 3, lambda n: n - 1),
    '6': ('RAID6', 4, lambda n: n - 2),
    '1+0': ('RAID10', 4, lambda n: n // 2),
}
# By the Redfish RAIDType (None when a volume has none).
_LEVEL_OF: dict[str | None, str] = {
    value[0]: level for level, value in RAID_LEVELS.items()}

CREATE_ARGSINFO = {
    'create_root_volume': {
        'description': 'Create the logical disk marked is_root_volume. '
                       'Default true.', 'required': False},
    'create_nonroot_volumes': {
        'description': 'Create the other logical disks. Default true.',
        'required': False},
    'delete_existing': {
        'description': 'Delete existing volumes first. Default false.',
        'required': False},
}

APPLY_ARGSINFO = {
    'raid_config': {'description': 'The RAID configuration to apply, '
                                   '{"logical_disks": [...]}.',
                    'required': True},
    'delete_existing': {'description': 'Delete existing volumes first. '
                                       'Default true.', 'required': False},
}


def check_logical_disks(config: Any) -> list[dict[str, Any]]:
    if not isinstance(config, dict) or not isinstance(
            config.get('logical_disks'), list) or \
            not config['logical_disks']:
        raise exception.InvalidParameterValue(
            err='RAID configuration needs a non-empty "logical_disks" list')
    for disk in config['logical_disks']:
        if not isinstance(disk, dict) or disk.get('raid_level') not in \
                RAID_LEVELS:
            raise exception.InvalidParameterValue(
                err='Each logical disk needs a raid_level among %s; got %r'
                    % (', '.join(RAID_LEVELS), disk))
        size = disk.get('size_gb')
        if size != 'MAX' and (isinstance(size, bool) or
                              not isinstance(size, int) or size <= 0):
            raise exception.InvalidParameterValue(
                err='Each logical disk needs size_gb, a positive integer '
                    'or "MAX"; got %r' % (size,))
    disks: list[dict[str, Any]] = config['logical_disks']
    return disks


def _storage_with_drives(system: Any) -> Any:
    for storage in system.storage.get_members():
        if storage.drives:
            return storage
    raise exception.UnsupportedDriverExtension(
        driver='redfish', extension='RAID on a system without storage '
                                    'drives (%s)' % system.path)


def _volume_payload(storage: Any, disk: dict[str, Any], index: int
                    ) -> dict[str, Any]:
    raid_type, needed, data_drives = RAID_LEVELS[disk['raid_level']]
    drives = storage.drives
    wanted = disk.get('physical_disks')
    if wanted:
        drives = [d for d in drives if d.identity in wanted]
    else:
        drives = drives[:needed]
    if len(drives) < needed:
        raise exception.InvalidParameterValue(
            err='RAID %s needs %d drives; storage %s has %d usable'
                % (disk['raid_level'], needed, storage.identity,
                   len(drives)))
    payload: dict[str, Any] = {
        'Name': disk.get('volume_name') or 'ironside-volume-%d' % index,
        'RAIDType': raid_type,
        'Links': {'Drives': [{'@odata.id': d.path} for d in drives]},
    }
    if disk['size_gb'] == 'MAX':
        smallest = min(d.capacity_bytes or 0 for d in drives)
        payload['CapacityBytes'] = smallest * data_drives(len(drives))
    else:
        payload['CapacityBytes'] = disk['size_gb'] * GIB
    return payload


def _monitor_uri(result: Any) -> str | None:
    return getattr(result, 'task_monitor_uri', None)


class RedfishRAID(base.RAIDInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(common.PROPERTIES)

    def validate(self, task: base.Task) -> None:
        common.parse_driver_info(task.node)
        if task.node.target_raid_config:
            check_logical_disks(task.node.target_raid_config)

    def _start(self, task: base.Task, func: Callable[..., Any]
              ) -> step_defs.Wait | None:
        uris = common.call(task, 'configure RAID', func)
        if uris:
            task.node.driver_internal_info[TASKS_KEY] = uris
            return step_defs.poll_later(task, CONF.redfish.task_poll_interval)
        self._record(task)
        return None

    @step_defs.clean_step(priority=0, argsinfo=CREATE_ARGSINFO)
    @step_defs.deploy_step(priority=0, argsinfo=CREATE_ARGSINFO)
    def create_configuration(self, task: base.Task,
                             create_root_volume: bool = True,
                             create_nonroot_volumes: bool = True,
                             delete_existing: bool = False
                            ) -> step_defs.Wait | None:
        """Create the volumes of target_raid_config."""
        disks = check_logical_disks(task.node.target_raid_config)
        disks = [d for d in disks
                 if (create_root_volume if d.get('is_root_volume')
                     else create_nonroot_volumes)]

        def _create(system: Any) -> list[str]:
            storage = _storage_with_drives(system)
            uris = _delete_all(system) if delete_existing else []
            for index, disk in enumerate(disks):
                payload = _volume_payload(storage, disk, index)
                uri = _monitor_uri(storage.volumes.create(payload))
                if uri:
                    uris.append(uri)
            return uris

        return self._start(task, _create)

    @step_defs.clean_step(priority=0)
    @step_defs.deploy_step(priority=0)
    def delete_configuration(self, task: base.Task) -> step_defs.Wait | None:
        """Delete every volume of the system's storage."""
        return self._start(task, _delete_all)

    @step_defs.deploy_step(priority=0, argsinfo=APPLY_ARGSINFO)
    def apply_configuration(self, task: base.Task,
                            raid_config: dict[str, Any],
                            delete_existing: bool = True
                            ) -> step_defs.Wait | None:
        """Make raid_config the target and create it."""
        check_logical_disks(raid_config)
        task.node.target_raid_config = dict(raid_config)
        return self.create_configuration(task,
                                         delete_existing=delete_existing)

    def poll_async_step(self, task: base.Task,
                        step: step_defs.StepInfo) -> bool:
        if not common.tasks_done(task, TASKS_KEY, 'RAID task'):
            return False
        self._record(task)
        return True

    def _record(self, task: base.Task) -> None:
        task.node.raid_config = {'logical_disks': common.call(
            task, 'read volumes', _volumes)}


def _delete_all(system: Any) -> list[str]:
    uris = []
    for storage in system.storage.get_members():
        for volume in storage.volumes.get_members():
            uri = _monitor_uri(volume.delete())
            if uri:
                uris.append(uri)
    return uris


def _volumes(system: Any) -> list[dict[str, Any]]:
    disks = []
    for storage in system.storage.get_members():
        for volume in storage.volumes.get_members():
            raid_type = volume.raid_type.value if volume.raid_type else None
            disks.append({
                'volume_name': volume.name,
                'size_gb': (volume.capacity_bytes or 0) // GIB,
                'raid_level': _LEVEL_OF.get(raid_type, raid_type),
                'controller': storage.identity,
            })
    return disks
