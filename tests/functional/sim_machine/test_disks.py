"""The simulated machines' loop disks, beside other test workers' disks."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.functional.fixtures import services
from tests.functional.fixtures.sim_machine import disks

pytestmark = pytest.mark.functional


def test_detaching_a_disk_leaves_a_disk_attached_after_it_alone(
        tmp_path, monkeypatch):
    """Another worker's ``losetup --find`` may take a device the moment
    it is free, and holds it by nothing until that worker opens it. The
    stand-in for that worker is the only mock here, as the moment cannot
    be caught otherwise: it attaches the other file right after the
    disk's detach lets go of its descriptor."""
    services.require(os.geteuid() == 0, 'root (loop devices)')
    disk = disks.LoopDisk(tmp_path / 'disk.img', 2 ** 20)
    other_file = tmp_path / 'other.img'
    other_file.write_bytes(bytes(2 ** 20))
    close = os.close
    others: list[str] = []

    def close_then_attach_the_other(fd: int) -> None:
        close(fd)
        monkeypatch.undo()  # once, and not for losetup's own descriptors
        others.append(subprocess.run(
            ['losetup', '--find', '--show', str(other_file)],
            capture_output=True, text=True, check=True).stdout.strip())

    disk.attach()
    try:
        monkeypatch.setattr(os, 'close', close_then_attach_the_other)
        disk.detach()
        assert disks.attached_to(tmp_path) == others
    finally:
        monkeypatch.undo()
        disk.detach()
        for device in others:
            subprocess.run(['losetup', '--detach', device])
    assert disks.attached_to(tmp_path) == []
