"""What the agent is told to write: the image (``instance_info``) and the
config drive.

The image is ``instance_info['image_source']``, an http(s) URL the agent
downloads itself, with ``image_os_hash_algo`` and ``image_os_hash_value``
(or ``image_checksum``) to verify it, and ``image_disk_format`` (``raw``
is streamed to the disk; anything else, qcow2 included, is converted by
qemu-img on the machine; unset, it is read off the image's first bytes).

A whole-disk image holds its own partition table and boot loader. A
partition image (``instance_info['image_type'] = 'partition'``, or, as
Ironic reads an image outside Glance, a ``kernel`` or ``ramdisk`` given
beside it) is the root file system only: the agent partitions the disk
(``root_gb``, and ``swap_mb``, ``ephemeral_gb`` with
``ephemeral_format``), writes the image to the root partition and the
config drive to a partition of its own, and the boot loader is installed
afterwards (``prepare_instance_boot``).

The config drive is what the deploy request carried
(``instance_info['configdrive']``): a gzipped, base64-encoded ISO 9660
image (as Nova sends), a URL of one, or (API 1.56) a JSON object
(``meta_data``, ``user_data``, ``network_data``, ``vendor_data``) from
which Ironside builds the ISO (label ``config-2``, files under
``openstack/latest/``) with xorriso. The agent writes it to a partition
of its own at the end of the disk.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import shutil
import subprocess
import tempfile
from typing import Any
from urllib import parse

import requests

from ironside.common import capabilities
from ironside.common import exception

HASH_ALGOS = ('md5', 'sha1', 'sha256', 'sha384', 'sha512')
DISK_FORMATS = ('raw', 'qcow2', 'vmdk', 'vdi', 'vhd', 'vhdx', 'qed')
IMAGE_TYPES = ('whole-disk', 'partition')
PARTITION = 'partition'
# Ironic's [pxe]default_ephemeral_format: an ephemeral partition asked
# for without a file system gets this one.
DEFAULT_EPHEMERAL_FORMAT = 'ext4'
CONFIG_DRIVE_LABEL = 'config-2'


def _bad(node: Any, reason: str) -> exception.ImageInvalid:
    return exception.ImageInvalid(
        image=(node.instance_info or {}).get('image_source'), reason=reason)


def is_whole_disk(node: Any) -> bool:
    """Whether the image holds a whole disk, by Ironic's rule for an image
    outside Glance: ``image_type`` says; without it, an image given with
    a kernel or a ramdisk is a partition image."""
    info = node.instance_info or {}
    image_type = info.get('image_type')
    if image_type:
        return bool(image_type != PARTITION)
    return not info.get('kernel') and not info.get('ramdisk')


def partition_layout(node: Any) -> dict[str, Any]:
    """The disk layout of a partition image, as the agent takes it
    (sizes in MiB), from ``instance_info``; raises what Ironic raises
    for a missing or non-integer size."""
    info = node.instance_info or {}
    if info.get('root_gb') in (None, ''):
        raise exception.MissingParameterValue(
            err="Node %s: instance_info is missing root_gb, the size of "
                "the root partition a partition image is written to"
                % node.uuid)
    sizes = {}
    for name in ('root_gb', 'swap_mb', 'ephemeral_gb'):
        value = info.get(name, 0)
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = -1
        if number < 0 or isinstance(value, bool):
            raise exception.InvalidParameterValue(
                err='Node %s: instance_info %s must be a whole number, '
                    'not %r' % (node.uuid, name, value))
        sizes[name] = number
    if sizes['root_gb'] < 1:
        raise exception.InvalidParameterValue(
            err='Node %s: instance_info root_gb must be at least 1'
                % node.uuid)
    preserve = info.get('preserve_ephemeral', False)
    if not isinstance(preserve, bool):
        preserve = str(preserve).strip().lower() in ('1', 'true', 'yes',
                                                      'on', 'y', 't')
    ephemeral_format = info.get('ephemeral_format')
    if sizes['ephemeral_gb'] and not ephemeral_format:
        ephemeral_format = DEFAULT_EPHEMERAL_FORMAT
    return {'root_mb': 1024 * sizes['root_gb'],
            'swap_mb': sizes['swap_mb'],
            'ephemeral_mb': 1024 * sizes['ephemeral_gb'],
            'ephemeral_format': ephemeral_format,
            'preserve_ephemeral': preserve}


def validate(node: Any) -> None:
    """What writing the image needs, checked before the deploy starts."""
    info = node.instance_info or {}
    source = info.get('image_source')
    if not source:
        raise exception.MissingParameterValue(
            err='Node %s: instance_info is missing image_source (the URL '
                'of the image to write)' % node.uuid)
    parsed = parse.urlparse(str(source))
    if parsed.scheme not in ('http', 'https') or not parsed.hostname:
        raise exception.InvalidParameterValue(
            err='Node %s: instance_info image_source must be an http(s) '
                'URL the agent can download, not %r' % (node.uuid, source))
    algo = info.get('image_os_hash_algo')
    value = info.get('image_os_hash_value')
    if algo or value:
        if algo not in HASH_ALGOS or not value:
            raise exception.InvalidParameterValue(
                err='Node %s: instance_info image_os_hash_algo must be one '
                    'of %s and image_os_hash_value set with it'
                    % (node.uuid, ', '.join(HASH_ALGOS)))
    elif not info.get('image_checksum'):
        raise exception.MissingParameterValue(
            err='Node %s: instance_info needs image_os_hash_algo and '
                'image_os_hash_value (or image_checksum) to verify the '
                'image' % node.uuid)
    disk_format = info.get('image_disk_format')
    if disk_format is not None and disk_format not in DISK_FORMATS:
        raise exception.InvalidParameterValue(
            err='Node %s: instance_info image_disk_format must be one of '
                '%s, not %r' % (node.uuid, ', '.join(DISK_FORMATS),
                                disk_format))
    image_type = info.get('image_type')
    if image_type and image_type not in IMAGE_TYPES:
        raise exception.InvalidParameterValue(
            err='Invalid image_type "%s", valid are %s'
                % (image_type, ', '.join(IMAGE_TYPES)))
    if not is_whole_disk(node):
        # A whole-disk image ignores the layout (Nova sends swap_mb "0"
        # with every instance).
        partition_layout(node)
    configdrive = info.get('configdrive')
    if configdrive is not None and not isinstance(configdrive, (str, dict)):
        raise exception.InvalidParameterValue(
            err='Node %s: the config drive must be a string or an object'
                % node.uuid)


# The first bytes of the disk formats the agent converts (qemu-img's
# names); an image with none of them is raw.
_MAGIC = ((b'QFI\xfb', 'qcow2'), (b'KDMV', 'vmdk'), (b'vhdxfile', 'vhdx'),
          (b'QED\x00', 'qed'), (b'conectix', 'vhd'))


def sniff_disk_format(url: str) -> str:
    """The format of the image at ``url``, from its first bytes (one
    ranged GET): an image whose format nobody gave is otherwise named
    after its partition table by the agent, which then cannot read it."""
    try:
        with requests.get(url, headers={'Range': 'bytes=0-511'},
                          stream=True, timeout=30) as response:
            if response.status_code not in (200, 206):
                raise exception.ImageInvalid(
                    image=url, reason='HTTP %d' % response.status_code)
            head = response.raw.read(512)
    except requests.RequestException as exc:
        raise exception.ImageInvalid(image=url, reason=str(exc)) from None
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return 'raw'


def image_info(node: Any, stream_raw: bool = True) -> dict[str, Any]:
    """The ``image_info`` of the agent's write_image step."""
    info = node.instance_info or {}
    source = str(info['image_source'])
    result: dict[str, Any] = {
        'id': source.rstrip('/').rsplit('/', 1)[-1] or node.uuid,
        'urls': [source],
        'disk_format': info.get('image_disk_format') or
        sniff_disk_format(source),
        'container_format': info.get('image_container_format', 'bare'),
        'stream_raw_images': stream_raw,
        'node_uuid': node.uuid,
    }
    if info.get('image_os_hash_algo') and info.get('image_os_hash_value'):
        result['os_hash_algo'] = info['image_os_hash_algo']
        result['os_hash_value'] = info['image_os_hash_value']
    if info.get('image_checksum'):
        result['checksum'] = info['image_checksum']
    if not is_whole_disk(node):
        # The agent partitions the disk for the boot mode and label it
        # reads off the node; these say which, as Ironic sends them.
        result.update(partition_layout(node), image_type=PARTITION,
                      deploy_boot_mode=boot_mode(node), boot_option='local')
        label = disk_label(node)
        if label is not None:
            result['disk_label'] = label
    return result


def _capability(node: Any, name: str) -> str | None:
    return capabilities.lookup(name, node.instance_info, node.properties)


def boot_mode(node: Any) -> str:
    """The boot mode the instance boots in: its capability, the node's
    own, else BIOS."""
    return _capability(node, 'boot_mode') or node.boot_mode or 'bios'


def disk_label(node: Any) -> str | None:
    """The partition table asked for (``disk_label`` capability), if any."""
    return _capability(node, 'disk_label')


def config_drive(node: Any) -> str | None:
    """The config drive as the agent takes it: a gzipped, base64-encoded
    ISO, or a URL of one; None without one."""
    value = (node.instance_info or {}).get('configdrive')
    if not value:
        return None
    if isinstance(value, dict):
        return build_config_drive(node, value)
    return str(value)


def build_config_drive(node: Any, contents: dict[str, Any]) -> str:
    """An ISO 9660 config drive of ``contents``, gzipped and base64."""
    xorriso = shutil.which('xorriso')
    if xorriso is None:
        raise exception.ConfigInvalid(
            error_msg='xorriso is not installed: it is needed to build '
                      'config drives (Debian: apt-get install xorriso)')
    meta_data = dict(contents.get('meta_data') or {})
    meta_data.setdefault('uuid', node.uuid)
    with tempfile.TemporaryDirectory(prefix='ironside-cd-') as tree:
        latest = os.path.join(tree, 'openstack', 'latest')
        os.makedirs(latest)
        files = {'meta_data.json': json.dumps(meta_data)}
        if contents.get('network_data'):
            files['network_data.json'] = json.dumps(
                contents['network_data'])
        if contents.get('vendor_data'):
            files['vendor_data2.json'] = json.dumps(contents['vendor_data'])
        user_data = contents.get('user_data')
        if user_data is not None:
            files['user_data'] = user_data if isinstance(user_data, str) \
                else json.dumps(user_data)
        for name, text in files.items():
            with open(os.path.join(latest, name), 'w') as stream:
                stream.write(text)
        iso = os.path.join(tree, 'configdrive.iso')
        result = subprocess.run(
            [xorriso, '-as', 'mkisofs', '-quiet', '-J', '-R', '-V',
             CONFIG_DRIVE_LABEL, '-o', iso, '-m', 'configdrive.iso', tree],
            capture_output=True, text=True, timeout=120, check=False)
        if result.returncode != 0:
            raise exception.IronsideException(
                'xorriso could not build the config drive: %s'
                % (result.stderr.strip()[-500:] or result.returncode))
        with open(iso, 'rb') as stream:
            data = stream.read()
    return base64.b64encode(gzip.compress(data, 6)).decode()

