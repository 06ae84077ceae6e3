"""Every error a conductor raises for the API crosses RPC as itself
(issue 17, finding 6: a Redfish node with wrong credentials answered 500
because its exception class lived in the driver module, which
oslo.messaging does not rebuild, so the API got a RemoteError)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys

import oslo_messaging
from oslo_messaging._drivers import common as rpc_common

import ironside
from ironside.common import exception
from ironside.common import rpc_base


def _ironside_modules():
    for info in pkgutil.walk_packages(ironside.__path__, 'ironside.'):
        # Migrations are scripts; commands register CLI options when
        # imported, which a configuration already parsed refuses.
        if '.migrations' in info.name or info.name.startswith(
                ('ironside.cmd', 'ironside.common.service')):
            continue
        yield importlib.import_module(info.name)


def test_every_ironside_exception_class_is_in_the_exceptions_module():
    strays = sorted(
        '%s.%s' % (module.__name__, name)
        for module in _ironside_modules()
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and issubclass(value, exception.IronsideException)
        and value.__module__ not in rpc_base.ALLOWED_EXMODS)
    assert strays == []


def test_a_rejected_redfish_login_is_rebuilt_as_itself():
    from ironside.drivers.modules.redfish import common as redfish_common
    try:
        raise redfish_common.CredentialsRejected(bmc='https://bmc',
                                                 user='admin')
    except exception.IronsideException:
        data = rpc_common.serialize_remote_exception(sys.exc_info())
    rebuilt = rpc_common.deserialize_remote_exception(data,
                                                      rpc_base.ALLOWED_EXMODS)
    assert not isinstance(rebuilt, oslo_messaging.RemoteError)
    assert isinstance(rebuilt, exception.RedfishCredentialsRejected)
    assert rebuilt.code == 400
    assert rebuilt.message == \
        'Redfish BMC https://bmc rejected the credentials of user "admin"'
