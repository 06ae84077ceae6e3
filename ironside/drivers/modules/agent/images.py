"""What the agent is told to write: the image (``instance_info``) and the
config drive.

The image is ``instance_info['image_source']``, an http(s) URL the agent
downloads itself, with ``image_os_hash_algo`` and ``image_os_hash_value``
(or ``image_checksum``) to verify it, and ``image_disk_format`` (``raw``
is streamed to the disk; anything else, qcow2 included, is converted by
qemu-img on the machine; unset, it is read off the image's first bytes).
Whole-disk images only: the image holds its
own partition table and boot loader.

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

from ironside.common import exception

HASH_ALGOS = ('md5', 'sha1', 'sha256', 'sha384', 'sha512')
DISK_FORMATS = ('raw', 'qcow2', 'vmdk', 'vdi', 'vhd', 'vhdx', 'qed')
CONFIG_DRIVE_LABEL = 'config-2'


def _bad(node: Any, reason: str) -> exception.ImageInvalid:
    return exception.ImageInvalid(
        image=(node.instance_info or {}).get('image_source'), reason=reason)


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
    return result


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

