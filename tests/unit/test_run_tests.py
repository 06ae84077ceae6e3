"""tools/run-tests as a fresh machine runs it: it installs the Debian
packages the tests drive, and ``-e functional -- FILE`` runs only FILE."""

from __future__ import annotations

import configparser
import os
import pathlib
import shutil
import subprocess
import sys

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


def _tools(tmp_path: pathlib.Path, *present: str) -> pathlib.Path:
    """A PATH of the shell's tools, python3 and stubs of ``present``."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    for tool in ('sh', 'tr', 'id'):
        os.symlink(shutil.which(tool), bin_dir / tool)
    # The interpreter itself: python3 on a PATH may be a shell shim.
    os.symlink(pathlib.Path(sys.executable).resolve(), bin_dir / 'python3')
    for command in present:
        _stub(bin_dir, command)
    return bin_dir


def _install(bin_dir: pathlib.Path, sudo: bool = True
             ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the script on ``bin_dir`` with an apt-get stub (and a sudo
    stub) that records what it is asked: the run, and the apt-get calls."""
    calls = bin_dir.parent / 'calls'
    _stub(bin_dir, 'apt-get', 'echo "apt-get $*" >> %s' % calls)
    if sudo:
        _stub(bin_dir, 'sudo', '"$@"')
    result = subprocess.run([str(bin_dir / 'sh'), INSTALL],
                            env={'PATH': str(bin_dir)}, capture_output=True,
                            text=True)
    return result, calls.read_text().splitlines() if calls.exists() else []


def test_missing_ipmitool_is_installed(tmp_path):
    """With ipmitool missing, the script asks apt-get for it (apt-get and
    sudo are stubs that record what they are asked: a test must not
    install packages on the machine running it)."""
    bin_dir = _tools(tmp_path, 'etcd', 'etcdctl', 'kubectl', 'chromium',
                     'chromedriver', 'pg_ctlcluster')
    result, (update, install) = _install(bin_dir)
    assert result.returncode == 0, result.stderr
    assert update == 'apt-get update -qq'
    assert install.startswith('apt-get install -y -qq --no-install-recommends')
    assert 'ipmitool' in install.split()
    assert 'etcd-server' not in install.split()
    assert 'python3-venv' not in install.split()


def test_python_without_venv_gets_python3_venv(tmp_path):
    """Debian's python3 cannot make the test runner's virtualenv
    without python3-venv (a python3 stub that lacks ensurepip)."""
    bin_dir = _tools(tmp_path, 'ipmitool', 'etcd', 'etcdctl', 'kubectl',
                     'chromium', 'chromedriver', 'pg_ctlcluster')
    (bin_dir / 'python3').unlink()
    _stub(bin_dir, 'python3', 'exit 1')
    result, calls = _install(bin_dir)
    assert result.returncode == 0, result.stderr
    assert 'python3-venv' in calls[1].split()


def test_without_root_or_sudo_it_names_what_is_missing(tmp_path):
    bin_dir = _tools(tmp_path, 'etcd', 'etcdctl', 'kubectl', 'chromium',
                     'chromedriver', 'pg_ctlcluster')
    (bin_dir / 'id').unlink()
    _stub(bin_dir, 'id', 'echo 1000')
    result, calls = _install(bin_dir, sudo=False)
    assert result.returncode == 1
    assert 'missing Debian packages: ipmitool' in result.stderr
    assert 'apt-get install ipmitool' in result.stderr
    assert calls == []


def test_nothing_is_installed_when_everything_is_there(tmp_path):
    bin_dir = _tools(tmp_path)
    script = (TOOLS / 'install-system-deps.sh').read_text()
    packages = script.split("PACKAGES='", 1)[1].split("'", 1)[0].split()
    for command in packages[::2]:
        if '/' not in command:
            _stub(bin_dir, command)
    absolute = [c for c in packages[::2] if '/' in c]
    if not all(os.access(c, os.X_OK) for c in absolute):
        pytest.skip('this machine lacks one of %s' % ', '.join(absolute))
    result, calls = _install(bin_dir, sudo=False)
    assert result.returncode == 0, result.stderr
    assert calls == []
