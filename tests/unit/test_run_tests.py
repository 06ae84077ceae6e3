"""tools/run-tests as a fresh machine runs it: it installs the Debian
packages the tests drive, and ``-e functional -- FILE`` runs only FILE."""

from __future__ import annotations

import configparser
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOLS = ROOT / 'tools'
INSTALL = str(TOOLS / 'install-system-deps.sh')


def test_functional_env_runs_only_the_files_given():
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / 'tox.ini')
    commands = tox['testenv:functional']['commands'].strip().splitlines()
    assert len(commands) == 1
    assert commands[0].startswith('pytest ')
    # Files given after "--" replace the default; nothing else names tests.
    assert commands[0].endswith(' {posargs:tests/functional}')
    assert 'tests/' not in commands[0].replace(
        '{posargs:tests/functional}', '')


def test_run_tests_installs_system_packages_before_tox():
    lines = [line.strip() for line in
             (TOOLS / 'run-tests').read_text().splitlines()
             if line.strip() and not line.startswith('#')]
    deps = lines.index('tools/install-system-deps.sh')
    assert deps < next(i for i, line in enumerate(lines) if 'tox' in line)


def _stub(directory: pathlib.Path, name: str, script: str = 'exit 0') -> None:
    path = directory / name
    path.write_text('#!/bin/sh\n%s\n' % script)
    path.chmod(0o755)


def test_missing_ipmitool_is_installed(tmp_path):
    """With ipmitool missing, the script asks apt-get for it (apt-get and
    sudo are stubs that record what they are asked: a test must not
    install packages on the machine running it)."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    for tool in ('sh', 'tr', 'id'):
        os.symlink(shutil.which(tool), bin_dir / tool)
    for present in ('etcd', 'etcdctl', 'kubectl', 'chromium',
                    'chromedriver', 'pg_ctlcluster'):
        _stub(bin_dir, present)
    calls = tmp_path / 'calls'
    _stub(bin_dir, 'apt-get', 'echo "apt-get $*" >> %s' % calls)
    _stub(bin_dir, 'sudo', '"$@"')
    subprocess.run([str(bin_dir / 'sh'), INSTALL],
                   env={'PATH': str(bin_dir)}, check=True,
                   capture_output=True)
    update, install = calls.read_text().splitlines()
    assert update == 'apt-get update -qq'
    assert install.startswith('apt-get install -y -qq --no-install-recommends')
    assert 'ipmitool' in install.split()
    assert 'etcd-server' not in install.split()


def test_nothing_is_installed_when_everything_is_there(tmp_path):
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    for tool in ('sh', 'tr', 'id'):
        os.symlink(shutil.which(tool), bin_dir / tool)
    script = (TOOLS / 'install-system-deps.sh').read_text()
    packages = script.split("PACKAGES='", 1)[1].split("'", 1)[0].split()
    for command in packages[::2]:
        if '/' not in command:
            _stub(bin_dir, command)
    absolute = [c for c in packages[::2] if '/' in c]
    if not all(os.access(c, os.X_OK) for c in absolute):
        pytest.skip('this machine lacks one of %s' % ', '.join(absolute))
    calls = tmp_path / 'calls'
    _stub(bin_dir, 'apt-get', 'echo "apt-get $*" >> %s' % calls)
    subprocess.run([str(bin_dir / 'sh'), INSTALL],
                   env={'PATH': str(bin_dir)}, check=True)
    assert not calls.exists()
