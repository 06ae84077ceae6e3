"""Parameters of the node task types: Fuel's names, defaults, errors."""

from __future__ import annotations

import pytest

from ironside.common import exception
from ironside.strategy.tasks import parameters


def test_shell_defaults_as_fuel():
    assert parameters.resolve('shell', {'cmd': 'run_setup_network.sh',
                                        'timeout': 120}) == {
        'cmd': 'run_setup_network.sh', 'timeout': 120, 'cwd': '/'}


def test_puppet_defaults_as_fuel():
    assert parameters.resolve('puppet', {}) == {
        'puppet_manifest': '/etc/puppet/manifests/site.pp',
        'puppet_modules': '/etc/puppet/modules', 'cwd': '/'}


def test_puppet_manifests_as_the_spec_spells_it():
    resolved = parameters.resolve('puppet', {
        'puppet_manifests': '/etc/puppet/manifests/controller.pp',
        'puppet_modules': '/etc/puppet/modules', 'timeout': 360})
    assert resolved['puppet_manifest'] == \
        '/etc/puppet/manifests/controller.pp'
    # The right spelling wins when both are given.
    resolved = parameters.resolve('puppet', {
        'puppet_manifest': '/a.pp', 'puppet_manifests': '/b.pp'})
    assert resolved['puppet_manifest'] == '/a.pp'


def test_upload_file_modes_default_as_astute():
    resolved = parameters.resolve('upload_file', {'path': '/etc/x',
                                                  'data': ''})
    assert (resolved['permissions'], resolved['dir_permissions']) == (
        '0644', '0755')


def test_unknown_parameters_are_kept_and_nulls_dropped():
    resolved = parameters.resolve('rsync', {'src': '/a', 'dst': '/b',
                                            'retries': 10, 'timeout': None})
    assert resolved == {'src': '/a', 'dst': '/b', 'retries': 10}


@pytest.mark.parametrize('task_type,params,message', [
    ('shell', {}, "shell task needs parameter 'cmd'"),
    ('shell', {'cmd': ''}, "shell task parameter 'cmd': '' should be "
                           "non-empty"),
    ('shell', {'cmd': 'x', 'cwd': 'tmp'},
     "shell task parameter 'cwd': must be an absolute path on the node"),
    ('shell', {'cmd': 'x', 'timeout': 0},
     "shell task parameter 'timeout': 0 is less than or equal to the "
     "minimum of 0"),
    ('shell', {'cmd': 'x', 'timeout': 'soon'},
     "shell task parameter 'timeout': 'soon' is not of type 'number'"),
    ('upload_file', {'path': '/x'}, "upload_file task needs parameter "
                                    "'data'"),
    ('upload_file', {'path': '/x', 'data': '', 'permissions': 'rw'},
     "upload_file task parameter 'permissions': must be an octal mode "
     "such as 0644"),
    ('rsync', {'src': 'rsync://10.20.0.2/puppet/', 'dst': '/etc/puppet'},
     "rsync task parameter 'src': must be an absolute path on the "
     "conductor's machine"),
    ('rsync', {'src': '/a'}, "rsync task needs parameter 'dst'"),
    ('puppet', {'puppet_manifest': 'site.pp'},
     "puppet task parameter 'puppet_manifest': must be an absolute path "
     "on the node"),
    ('reboot', {}, "unknown task type 'reboot' (known: puppet, rsync, "
                   "shell, upload_file)"),
])
def test_errors_name_the_parameter(task_type, params, message):
    with pytest.raises(exception.InvalidParameterValue) as raised:
        parameters.check(task_type, params)
    assert str(raised.value) == message


def test_timeout_order():
    assert parameters.timeout_of('shell', {'timeout': 120}, None) == 120
    assert parameters.timeout_of('shell', {'timeout': 120}, 5) == 5
    assert parameters.timeout_of('shell', {}, None) == 300
    assert parameters.timeout_of('puppet', {}, None) == 5400
    assert parameters.timeout_of('rsync', {}, None) == 300
    assert parameters.timeout_of('upload_file', {}, None) == 60
