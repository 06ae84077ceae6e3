"""A conductor restarted at once after a crash takes its registration
back; two live processes with one host name are still refused (issue 17,
finding 4). The processes here are real: a child started and killed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ironside.common import exception
from ironside.common import process_identity
from ironside.db import conductors as conductors_db


def _register(instance):
    return conductors_db.register_conductor(
        'restarted', '', ['fake-hardware'], [], heartbeat_timeout=60,
        instance=instance)


def _identity_of(child: subprocess.Popen) -> str:
    pid = child.pid
    with open('/proc/%d/stat' % pid) as source:
        started = source.read().rsplit(')', 1)[1].split()[19]
    return '%s/%d/%s' % (process_identity._boot_id(), pid, started)


@pytest.fixture
def child():
    process = subprocess.Popen([sys.executable, '-c',
                                'import time; time.sleep(60)'])
    yield process
    process.kill()
    process.wait()


def test_registration_of_a_process_that_is_gone_is_taken_back(db, child):
    _register(_identity_of(child))
    child.kill()
    child.wait()
    mine = process_identity.this_process()
    assert _register(mine).instance == mine


def test_a_live_process_keeps_its_host_name(db, child):
    _register(_identity_of(child))
    with pytest.raises(exception.ConductorAlreadyRegistered,
                       match='another running process uses this host '
                             'name'):
        _register(process_identity.this_process())


def test_unknown_or_remote_processes_are_not_gone():
    assert not process_identity.is_gone(None)
    assert not process_identity.is_gone('garbage')
    assert not process_identity.is_gone('other-boot/1/1')
    assert not process_identity.is_gone(process_identity.this_process())
