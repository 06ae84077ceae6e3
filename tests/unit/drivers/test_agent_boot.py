"""What the agent is booted and fed with: iPXE scripts in Ironic's
layout, boot ISOs and config drives (built with the real xorriso, read
back with it), and the checks of what a deploy writes."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import threading
import types

import pytest

from ironside.common import exception
from ironside.drivers.modules import boot_files
from ironside.drivers.modules import boot_iso
from ironside.drivers.modules import pxe
from ironside.drivers.modules.agent import images

UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
MAC = '52:54:00:ab:cd:ef'


def _iso_file(iso: str, path: str) -> str:
    """A file of an ISO, read with xorriso."""
    out = iso + '.extracted'
    subprocess.run(['xorriso', '-osirrox', 'on', '-indev', iso, '-extract',
                    path, out], capture_output=True, check=True)
    try:
        with open(out) as stream:
            return stream.read()
    finally:
        os.chmod(out, 0o600)
        os.unlink(out)


class _Management:
    def __init__(self) -> None:
        self.boot = []

    def set_boot_device(self, task, device, persistent=False):
        self.boot.append((device, persistent))


def _task(tmp_path, **driver_info):
    kernel = tmp_path / 'ipa.kernel'
    ramdisk = tmp_path / 'ipa.initramfs'
    kernel.write_text('kernel')
    ramdisk.write_text('ramdisk')
    info = {'deploy_kernel': str(kernel),
            'deploy_ramdisk': 'file://%s' % ramdisk}
    info.update(driver_info)
    node = types.SimpleNamespace(uuid=UUID, driver_info=info,
                                 instance_info={}, driver='ipmi')
    return types.SimpleNamespace(
        node=node, ports=[{'address': MAC}],
        driver=types.SimpleNamespace(management=_Management()),
        context=None)


@pytest.fixture
def http_root(tmp_path, conf):
    root = tmp_path / 'httpboot'
    conf.set('deploy', http_root=str(root), http_url='http://192.0.2.1/b',
             image_cache=str(tmp_path / 'cache'))
    return root


def test_ipxe_layout_is_ironics(tmp_path, http_root):
    task = _task(tmp_path, kernel_append_params='console=ttyS0')
    pxe.IPXEBoot().prepare_ramdisk(task, {'ipa-api-url': 'http://api'})
    boot = (http_root / 'boot.ipxe').read_text()
    assert 'chain http://192.0.2.1/b/pxelinux.cfg/${mac:hexhyp}' in boot
    link = http_root / 'pxelinux.cfg' / '52-54-00-ab-cd-ef'
    assert os.readlink(link) == '../%s/config' % UUID
    script = link.read_text()
    assert ('kernel http://192.0.2.1/b/%s/deploy_kernel console=ttyS0 '
            'ipa-api-url=http://api BOOTIF=${mac} initrd=deploy_ramdisk'
            % UUID) in script
    assert 'initrd http://192.0.2.1/b/%s/deploy_ramdisk' % UUID in script
    assert (http_root / UUID / 'deploy_ramdisk').read_text() == 'ramdisk'
    assert task.driver.management.boot == [('pxe', False)]
    pxe.IPXEBoot().prepare_instance(task)
    assert not link.exists() and not (http_root / UUID).exists()
    assert task.driver.management.boot[-1] == ('disk', True)


def test_a_ramdisk_must_be_named(tmp_path, http_root, conf):
    task = _task(tmp_path)
    task.node.driver_info = {}
    with pytest.raises(exception.MissingParameterValue) as error:
        pxe.IPXEBoot().validate_ramdisk(task)
    assert 'deploy_kernel' in str(error.value)
    conf.set('conductor', deploy_kernel='http://x/k',
             deploy_ramdisk='relative/path')
    with pytest.raises(exception.InvalidParameterValue) as error:
        pxe.IPXEBoot().validate_ramdisk(task)
    assert 'deploy_ramdisk' in str(error.value)
    conf.set('deploy', http_url=None)
    conf.set('conductor', deploy_ramdisk='http://x/r')
    with pytest.raises(exception.InvalidParameterValue) as error:
        pxe.IPXEBoot().validate_ramdisk(task)
    assert 'http_url' in str(error.value)


def test_boot_iso_carries_the_kernel_line(tmp_path):
    kernel = tmp_path / 'k'
    ramdisk = tmp_path / 'r'
    kernel.write_text('kernel')
    ramdisk.write_text('ramdisk')
    iso = str(tmp_path / 'boot.iso')
    boot_iso.build(str(kernel), str(ramdisk),
                   'ipa-api-url=http://api boot_method=vmedia', iso)
    grub = _iso_file(iso, '/boot/grub/grub.cfg')
    assert 'linux /vmlinuz ipa-api-url=http://api boot_method=vmedia' \
        in grub
    assert 'initrd=/initrd text ipa-api-url=http://api' in \
        _iso_file(iso, '/isolinux/isolinux.cfg')
    assert _iso_file(iso, '/initrd') == 'ramdisk'
    label = subprocess.run(['xorriso', '-indev', iso, '-pvd_info'],
                           capture_output=True, text=True).stdout
    assert boot_iso.VOLUME_ID in label


def test_config_drive_from_an_object(tmp_path):
    node = types.SimpleNamespace(uuid=UUID, instance_info={'configdrive': {
        'meta_data': {'public_keys': {'0': 'ssh-ed25519 AAAA test'},
                      'hostname': 'vm-1'},
        'user_data': '#cloud-config\n',
        'network_data': {'links': []}}})
    encoded = images.config_drive(node)
    iso = tmp_path / 'cd.iso'
    iso.write_bytes(gzip.decompress(base64.b64decode(encoded)))
    meta = json.loads(_iso_file(str(iso), '/openstack/latest/meta_data.json'))
    assert meta == {'public_keys': {'0': 'ssh-ed25519 AAAA test'},
                    'hostname': 'vm-1', 'uuid': UUID}
    assert _iso_file(str(iso), '/openstack/latest/user_data') == \
        '#cloud-config\n'
    label = subprocess.run(['xorriso', '-indev', str(iso), '-pvd_info'],
                           capture_output=True, text=True).stdout
    assert 'config-2' in label
    # Nova's (a string) goes to the agent as it came.
    node.instance_info['configdrive'] = 'H4sIAAAA'
    assert images.config_drive(node) == 'H4sIAAAA'


@pytest.mark.parametrize('instance_info,message', [
    ({}, 'missing image_source'),
    ({'image_source': 'glance-uuid'}, 'must be an http(s) URL'),
    ({'image_source': 'http://i/disk.raw'}, 'image_os_hash_algo'),
    ({'image_source': 'http://i/disk.raw', 'image_os_hash_algo': 'crc',
      'image_os_hash_value': 'x'}, 'must be one of'),
    ({'image_source': 'http://i/disk.raw', 'image_checksum': 'abc',
      'image_disk_format': 'iso9660'}, 'image_disk_format'),
    ({'image_source': 'http://i/root.img', 'image_checksum': 'abc',
      'image_type': 'lvm'}, 'Invalid image_type "lvm"'),
    ({'image_source': 'http://i/root.img', 'image_checksum': 'abc',
      'image_type': 'partition'}, 'missing root_gb'),
    ({'image_source': 'http://i/root.img', 'image_checksum': 'abc',
      'kernel': 'http://i/vmlinuz', 'ramdisk': 'http://i/initrd',
      'root_gb': 'ten'}, "root_gb must be a whole number, not 'ten'"),
    ({'image_source': 'http://i/root.img', 'image_checksum': 'abc',
      'image_type': 'partition', 'root_gb': 0}, 'root_gb must be at least'),
    ({'image_source': 'http://i/root.img', 'image_checksum': 'abc',
      'image_type': 'partition', 'root_gb': 4, 'swap_mb': -1},
     'swap_mb must be a whole number'),
])
def test_image_checks(instance_info, message):
    node = types.SimpleNamespace(uuid=UUID, instance_info=instance_info,
                                 properties={}, boot_mode=None)
    with pytest.raises(exception.InvalidParameterValue) as error:
        images.validate(node)
    assert message in str(error.value)


def test_image_info():
    node = types.SimpleNamespace(uuid=UUID, properties={}, boot_mode=None,
                                 instance_info={
        'image_source': 'http://i/images/disk.qcow2',
        'image_os_hash_algo': 'sha256', 'image_os_hash_value': 'ab' * 32,
        'image_disk_format': 'qcow2'})
    images.validate(node)
    info = images.image_info(node)
    assert info['urls'] == ['http://i/images/disk.qcow2']
    assert info['id'] == 'disk.qcow2'
    assert (info['os_hash_algo'], info['disk_format']) == ('sha256', 'qcow2')
    assert 'checksum' not in info
    assert 'image_type' not in info and 'root_mb' not in info


@pytest.mark.parametrize('partition_image', [
    {'image_type': 'partition'},
    # Ironic's rule for an image outside Glance: a kernel or a ramdisk
    # beside it (as metalsmith's HttpPartitionImage sets them).
    {'kernel': 'http://i/vmlinuz', 'ramdisk': 'http://i/initrd'},
    {'kernel': 'http://i/vmlinuz'},
])
def test_partition_image_info(partition_image):
    node = types.SimpleNamespace(
        uuid=UUID, boot_mode='bios',
        properties={'capabilities': 'boot_mode:bios,disk_label:msdos'},
        instance_info=dict(partition_image,
                           image_source='http://i/images/root.img',
                           image_checksum='abc', image_disk_format='raw',
                           root_gb=2, swap_mb=256, ephemeral_gb=1,
                           preserve_ephemeral='false',
                           capabilities={'boot_mode': 'uefi'}))
    images.validate(node)
    assert not images.is_whole_disk(node)
    info = images.image_info(node)
    assert {key: info[key] for key in (
        'image_type', 'root_mb', 'swap_mb', 'ephemeral_mb',
        'ephemeral_format', 'preserve_ephemeral', 'boot_option',
        'deploy_boot_mode', 'disk_label')} == {
        'image_type': 'partition', 'root_mb': 2048, 'swap_mb': 256,
        'ephemeral_mb': 1024, 'ephemeral_format': 'ext4',
        'preserve_ephemeral': False, 'boot_option': 'local',
        # The instance's capability before the node's, as Ironic reads.
        'deploy_boot_mode': 'uefi', 'disk_label': 'msdos'}


def test_image_type_says_whole_disk_over_a_kernel():
    node = types.SimpleNamespace(uuid=UUID, instance_info={
        'image_source': 'http://i/disk.raw', 'image_type': 'whole-disk',
        'kernel': 'http://i/vmlinuz'})
    assert images.is_whole_disk(node)


def test_boot_files_are_whole_or_absent(tmp_path, http_root):
    path = str(http_root / 'x' / 'file')
    boot_files.write_text(path, 'one')
    with pytest.raises(RuntimeError):
        with boot_files.atomic_path(path) as tmp:
            open(tmp, 'w').write('half')
            raise RuntimeError('interrupted')
    assert open(path).read() == 'one'
    assert os.listdir(os.path.dirname(path)) == ['file']


def test_threads_write_the_same_boot_file_at_once(tmp_path, http_root):
    """A conductor's workers each write the shared boot.ipxe (and their
    node's files) as they boot agents: no write may fail or tear."""
    path = str(http_root / 'boot.ipxe')
    texts = ['#!ipxe %d\n' % n * 50 for n in range(10)]
    failures = []

    def write(text):
        try:
            for _ in range(50):
                boot_files.write_text(path, text)
        except Exception as exc:  # what a deploy would fail with
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(text,))
               for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert open(path).read() in texts
    assert os.listdir(http_root) == ['boot.ipxe']
