"""Boot ISOs for virtual media: the agent's kernel and ramdisk with the
kernel command line inside, made with xorriso (Debian's ``xorriso``).

The ISO holds ``/vmlinuz``, ``/initrd``, and the command line in both
GRUB's (``/boot/grub/grub.cfg``, ``/EFI/BOOT/grub.cfg``) and ISOLINUX's
(``/isolinux/isolinux.cfg``) configuration; its volume label is
``VMEDIA_BOOT_ISO``, which the agent looks for. A real machine needs a
boot loader in it too: [deploy]isolinux_bin (with ldlinux_c32) makes it
bootable in BIOS mode, [deploy]esp_image (a FAT image holding a signed
shim and GRUB) in UEFI mode, as Ironic's ISOs are.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from ironside.common import exception
from ironside.common.conf import CONF
from ironside.drivers.modules import boot_files

VOLUME_ID = 'VMEDIA_BOOT_ISO'

GRUB_CFG = '''set default=0
set timeout=5
menuentry "boot" {
    linux /vmlinuz %(params)s
    initrd /initrd
}
'''

ISOLINUX_CFG = '''default boot
label boot
kernel /vmlinuz
append initrd=/initrd text %(params)s --
'''


def build(kernel: str, ramdisk: str, params: str, output: str) -> None:
    """Write an ISO booting ``kernel``/``ramdisk`` (local paths) with the
    command line ``params`` to ``output``, whole or not at all."""
    xorriso = shutil.which('xorriso')
    if xorriso is None:
        raise exception.ConfigInvalid(
            error_msg='xorriso is not installed: it is needed to build '
                      'boot ISOs for virtual media (Debian: apt-get install '
                      'xorriso)')
    with tempfile.TemporaryDirectory(prefix='ironside-iso-') as tree:
        shutil.copyfile(kernel, os.path.join(tree, 'vmlinuz'))
        shutil.copyfile(ramdisk, os.path.join(tree, 'initrd'))
        text = {'params': params}
        for relative in ('boot/grub/grub.cfg', 'EFI/BOOT/grub.cfg'):
            _write(os.path.join(tree, relative), GRUB_CFG % text)
        _write(os.path.join(tree, 'isolinux/isolinux.cfg'),
               ISOLINUX_CFG % text)
        args = [xorriso, '-as', 'mkisofs', '-quiet', '-J', '-R',
                '-V', VOLUME_ID]
        isolinux = CONF.deploy.isolinux_bin
        if isolinux:
            shutil.copyfile(isolinux,
                            os.path.join(tree, 'isolinux/isolinux.bin'))
            if CONF.deploy.ldlinux_c32:
                shutil.copyfile(CONF.deploy.ldlinux_c32,
                                os.path.join(tree, 'isolinux/ldlinux.c32'))
            args += ['-b', 'isolinux/isolinux.bin', '-c',
                     'isolinux/boot.cat', '-no-emul-boot',
                     '-boot-load-size', '4', '-boot-info-table']
        if CONF.deploy.esp_image:
            shutil.copyfile(CONF.deploy.esp_image,
                            os.path.join(tree, 'EFI/BOOT/efiboot.img'))
            args += ['-eltorito-alt-boot', '-e', 'EFI/BOOT/efiboot.img',
                     '-no-emul-boot']
        os.makedirs(os.path.dirname(output), exist_ok=True)
        with boot_files.atomic_path(output) as tmp:
            result = subprocess.run(args + ['-o', tmp, tree],
                                    capture_output=True, text=True,
                                    timeout=600, check=False)
            if result.returncode != 0:
                raise exception.IronsideException(
                    'xorriso could not build the boot ISO: %s'
                    % (result.stderr.strip()[-500:] or result.returncode))


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as stream:
        stream.write(text)
