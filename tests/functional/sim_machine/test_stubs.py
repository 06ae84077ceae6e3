"""The stand-in commands of a simulated machine's ramdisk, run as the agent
runs them: first on the ``PATH`` of a mount namespace whose
``/run/sim-machine`` is the machine's control directory."""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import subprocess

import pytest

from tests.functional.fixtures import services
from tests.functional.fixtures.sim_machine import ramdisk

pytestmark = pytest.mark.functional


@pytest.fixture
def control(tmp_path: pathlib.Path) -> pathlib.Path:
    services.require(os.geteuid() == 0, 'root (mount namespaces)')
    directory = tmp_path / 'control'
    ramdisk.install_stubs(directory, 'machine-0', 'socket')
    return directory


def _run(control: pathlib.Path, *argv: str) -> subprocess.CompletedProcess:
    """argv inside a namespace of its own, with a private /run."""
    script = ('mount -t tmpfs tmpfs /run && mkdir /run/sim-machine && '
              'mount --bind %s /run/sim-machine && PATH=%s exec %s' % (
                  shlex.quote(str(control)),
                  shlex.quote(ramdisk.IN_NAMESPACE + '/bin:/usr/bin:/bin'),
                  shlex.join(argv)))
    return subprocess.run(['unshare', '--mount', 'sh', '-c', script],
                          capture_output=True, text=True, timeout=30,
                          check=False)


def _logged(control: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in
            (control / 'commands.log').read_text().splitlines()]


def test_the_commands_that_only_fail_or_succeed_are_shell_scripts(control):
    for name in ramdisk.QUICK_STUB_NAMES:
        assert os.readlink(control / 'bin' / name) == 'sim-quick'
    assert (control / 'bin' / 'sim-quick').read_text().startswith(
        '#!/bin/sh\n')


@pytest.mark.parametrize('argv,code,error', [
    (('modprobe', 'ipmi_si'), 1, 'modprobe: FATAL: Module ipmi_si not found.'),
    (('mdadm', '--assemble', '--scan'), 1,
     'mdadm: No arrays found in config file or automatically'),
    (('hwclock', '-v', '--systohc'), 0, ''),
    # The host's container runtime is not the machine's.
    (('docker', '--version'), 127, 'docker: command not found'),
    (('podman', '--version'), 127, 'podman: command not found'),
])
def test_a_stand_in_answers_and_logs_the_call(control, argv, code, error):
    result = _run(control, *argv)
    assert (result.returncode, result.stderr.strip()) == (code, error)
    [call] = _logged(control)
    assert (call['command'], call['args'], call['done']) == \
        (argv[0], list(argv[1:]), True)
    assert isinstance(call['time'], float)


def test_an_argument_json_must_escape_is_logged_by_the_python_stand_in(
        control):
    result = _run(control, 'modprobe', 'quote"back\\slash')
    assert result.returncode == 1
    assert result.stderr.strip() == \
        'modprobe: FATAL: Module quote"back\\slash not found.'
    [call] = _logged(control)
    assert (call['command'], call['args']) == \
        ('modprobe', ['quote"back\\slash'])


def test_installing_again_points_every_name_at_its_script(control):
    (control / 'bin' / 'modprobe').unlink()
    (control / 'bin' / 'modprobe').symlink_to('sim-stub')
    ramdisk.install_stubs(control, 'machine-0', 'socket')
    assert os.readlink(control / 'bin' / 'modprobe') == 'sim-quick'
    assert os.readlink(control / 'bin' / 'poweroff') == 'sim-stub'
