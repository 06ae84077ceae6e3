"""Boot mode and secure boot changes (API 1.76), as Ironic makes them,
and the boot mode the machine reports, kept on the node.

The API answers 202 at once; a worker asks the management interface to
change the setting and then records on the node what the BMC reports
(``boot_mode``/``secure_boot``), so the node shows the machine's truth,
not the request. A failure is left in ``last_error``.

Verification (``manage``) records what the BMC reports too, as Ironic's
``node_cache_boot_mode`` does: a deploy that follows builds its boot
files and partition image layout for the mode the machine boots in,
without an inspection first.
"""

from __future__ import annotations

import logging
from typing import Callable

from ironside.common import boot_settings as common_boot
from ironside.common import exception
from ironside.common import states
from ironside.conductor import utils
from ironside.conductor.task_manager import TaskManager

LOG = logging.getLogger(__name__)

BOOT_MODES = common_boot.BOOT_MODES


def check_state(task: TaskManager, action: str) -> None:
    common_boot.check_state(task.node.uuid,
                            task.node.provision_state or states.ENROLL,
                            action)


def start_boot_mode_change(task: TaskManager, mode: str) -> None:
    """Validate and hand the change of boot mode to a worker."""
    if mode not in BOOT_MODES:
        raise exception.InvalidParameterValue(
            err='Invalid boot mode %s requested for node.' % mode)
    check_state(task, 'boot mode %s' % mode)
    management = task.driver.management
    management.validate(task)
    if mode not in management.get_supported_boot_modes(task):
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension='boot mode %s' % mode)
    task.spawn_after(_change, 'boot mode', _set_boot_mode, mode)


def start_secure_boot_change(task: TaskManager, enabled: bool) -> None:
    """Validate and hand the change of secure boot to a worker."""
    check_state(task, 'secure boot %s' % enabled)
    task.driver.management.validate(task)
    task.spawn_after(_change, 'secure boot', _set_secure_boot, enabled)


def cache_boot_mode(task: TaskManager) -> None:
    """Record the boot mode and secure boot state the BMC reports. What
    the BMC cannot tell is unknown (None); a read that fails leaves the
    value as it was, with a warning: what the machine boots in is worth
    knowing, not worth failing a verification for."""
    node = task.node
    management = task.driver.management
    mode, secure = node.boot_mode, node.secure_boot
    try:
        mode = management.get_boot_mode(task)
        secure = management.get_secure_boot_state(task)
    except exception.UnsupportedDriverExtension:
        secure = None
    except Exception as exc:
        LOG.warning('Could not read the boot mode or secure boot state of '
                    'node %s (%s): %s', node.uuid, node.name,
                    utils.describe(exc))
    if (mode, secure) != (node.boot_mode, node.secure_boot):
        LOG.info('Node %s (%s) boots in %s mode, secure boot %s',
                 node.uuid, node.name, mode or 'an unknown',
                 'unknown' if secure is None else
                 ('on' if secure else 'off'))
        node.boot_mode = mode
        node.secure_boot = secure


def _set_boot_mode(task: TaskManager, mode: str) -> None:
    management = task.driver.management
    management.set_boot_mode(task, mode)
    task.node.boot_mode = management.get_boot_mode(task) or mode


def _set_secure_boot(task: TaskManager, enabled: bool) -> None:
    management = task.driver.management
    management.set_secure_boot_state(task, enabled)
    reported = management.get_secure_boot_state(task)
    task.node.secure_boot = enabled if reported is None else reported


def _change(task: TaskManager, what: str,
            apply: Callable[[TaskManager, object], None],
            value: object) -> None:
    """Worker: apply the change; its failure becomes ``last_error``."""
    try:
        apply(task, value)
    except Exception as exc:
        LOG.warning('Setting %s to %s on node %s failed: %s', what, value,
                    task.node.uuid, utils.describe(exc))
        task.node.last_error = 'Setting %s to %s failed: %s' % (
            what, value, utils.describe(exc))
    else:
        task.node.last_error = None
    task.save()
