"""What the simulated firmware reads from a virtual media ISO: GRUB's
configuration in UEFI mode, ISOLINUX's in BIOS mode (as Ironic's ISOs
carry both), each with its kernel line. No machines."""

from __future__ import annotations

import subprocess

import pytest

from tests.functional.fixtures.sim_machine import boot_media

GRUB = """set default=1
menuentry "other" {
    linux /other/vmlinuz rescue
}
menuentry "boot_partition" {
    linuxefi /vmlinuz ipa-api-url=http://api boot_method=vmedia --
    initrdefi /initrd
}
"""

ISOLINUX = """default boot

label boot
kernel /vmlinuz
append initrd=/initrd text ipa-api-url=http://api boot_method=vmedia --
"""

pytestmark = pytest.mark.functional


@pytest.fixture
def iso(tmp_path):
    tree = tmp_path / 'tree'
    (tree / 'boot' / 'grub').mkdir(parents=True)
    (tree / 'isolinux').mkdir()
    kernel, ramdisk = boot_media.write_agent_images(tmp_path / 'agent')
    (tree / 'vmlinuz').write_bytes(kernel.read_bytes())
    (tree / 'initrd').write_bytes(ramdisk.read_bytes())
    (tree / 'boot' / 'grub' / 'grub.cfg').write_text(GRUB)
    (tree / 'isolinux' / 'isolinux.cfg').write_text(ISOLINUX)
    path = tmp_path / 'boot.iso'
    subprocess.run(['xorriso', '-as', 'mkisofs', '-r', '-V', 'VMEDIA_BOOT_ISO',
                    '-o', str(path), str(tree)], check=True,
                   capture_output=True)
    return path


@pytest.mark.parametrize('mode, source, cmdline', [
    ('uefi', 'boot/grub/grub.cfg',
     'ipa-api-url=http://api boot_method=vmedia --'),
    ('bios', 'isolinux/isolinux.cfg',
     'initrd=/initrd text ipa-api-url=http://api boot_method=vmedia --')])
def test_the_boot_mode_picks_the_boot_loader(iso, tmp_path, mode, source,
                                              cmdline):
    entry = boot_media.read_iso(iso, mode, tmp_path / mode)
    assert (entry.source, entry.cmdline) == (source, cmdline)
    boot_media.check_agent(entry.kernel, entry.initrds)


def test_an_iso_without_boot_configuration_is_not_bootable(tmp_path):
    (tmp_path / 'tree').mkdir()
    (tmp_path / 'tree' / 'readme').write_text('data')
    subprocess.run(['xorriso', '-as', 'mkisofs', '-o',
                    str(tmp_path / 'data.iso'), str(tmp_path / 'tree')],
                   check=True, capture_output=True)
    with pytest.raises(boot_media.NotBootable, match='no boot config'):
        boot_media.read_iso(tmp_path / 'data.iso', 'uefi', tmp_path / 'x')
