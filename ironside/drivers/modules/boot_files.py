"""Files machines boot from, under [deploy]http_root, served at
[deploy]http_url: the agent's kernel and ramdisk (copied from a path or
downloaded once into [deploy]image_cache, then hard-linked per node),
and what the boot interfaces write next to them (iPXE scripts, ISOs).

A node's ramdisk is ``driver_info['deploy_kernel']`` and
``['deploy_ramdisk']`` (``rescue_kernel``/``rescue_ramdisk`` to rescue),
each an http(s) URL, a ``file://`` URL or an absolute path; unset, the
conductor's ``[conductor]deploy_kernel``/``deploy_ramdisk``.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from collections.abc import Mapping
from typing import Any
from urllib import parse

import requests

from ironside.common import exception
from ironside.common.conf import CONF

LOG = logging.getLogger(__name__)

DEPLOY = 'deploy'
RESCUE = 'rescue'

PROPERTIES = {
    'deploy_kernel': 'URL or absolute path of the kernel of the agent\'s '
                     'ramdisk. Default: [conductor]deploy_kernel.',
    'deploy_ramdisk': 'URL or absolute path of the agent\'s ramdisk. '
                      'Default: [conductor]deploy_ramdisk.',
    'rescue_kernel': 'Kernel of the rescue ramdisk. Default: '
                     '[conductor]rescue_kernel, then the deploy kernel.',
    'rescue_ramdisk': 'The rescue ramdisk. Default: '
                      '[conductor]rescue_ramdisk, then the deploy ramdisk.',
    'kernel_append_params': 'Kernel parameters of the ramdisk, instead of '
                            '[pxe]kernel_append_params. Optional.',
}

_FETCH_LOCK = threading.Lock()


def ramdisk_sources(node_uuid: str, driver_info: Mapping[str, Any],
                    purpose: str = DEPLOY) -> tuple[str, str]:
    """(kernel, ramdisk) sources of the node's ``purpose`` ramdisk."""
    found = []
    for part in ('kernel', 'ramdisk'):
        value = driver_info.get('%s_%s' % (purpose, part))
        if not value and purpose == RESCUE:
            value = getattr(CONF.conductor, 'rescue_%s' % part) or \
                driver_info.get('deploy_%s' % part)
        if not value:
            value = getattr(CONF.conductor, 'deploy_%s' % part)
        if not value:
            raise exception.MissingParameterValue(
                err='Node %s: driver_info is missing %s_%s (and '
                    '[conductor]deploy_%s is not set): the agent\'s '
                    'ramdisk is needed to %s' % (
                        node_uuid, purpose, part, part,
                        'rescue' if purpose == RESCUE else 'deploy, clean '
                        'and inspect'))
        check_source(node_uuid, '%s_%s' % (purpose, part), value)
        found.append(value)
    return found[0], found[1]


def place_ramdisk(node_uuid: str, driver_info: Mapping[str, Any],
                  purpose: str = DEPLOY) -> tuple[str, str]:
    """The node's ``purpose`` kernel and ramdisk under its directory of
    http_root; their paths."""
    kernel, ramdisk = ramdisk_sources(node_uuid, driver_info, purpose)
    directory = node_dir(node_uuid)
    kernel_path = os.path.join(directory, '%s_kernel' % purpose)
    ramdisk_path = os.path.join(directory, '%s_ramdisk' % purpose)
    place(kernel, kernel_path)
    place(ramdisk, ramdisk_path)
    return kernel_path, ramdisk_path


def check_source(node_uuid: str, name: str, value: object) -> str:
    """A kernel, ramdisk or ISO source: a string naming an http(s) or
    file URL, or an absolute path."""
    if not isinstance(value, str) or not value.strip():
        raise exception.InvalidParameterValue(
            err='Node %s: %s must be a URL or an absolute path, not %r'
                % (node_uuid, name, value))
    parsed = parse.urlparse(value)
    if parsed.scheme in ('http', 'https') and parsed.hostname:
        return value
    if parsed.scheme == 'file' and parsed.path.startswith('/'):
        return value
    if not parsed.scheme and value.startswith('/'):
        return value
    raise exception.InvalidParameterValue(
        err='Node %s: %s must be an http(s) or file URL or an absolute '
            'path, not %r' % (node_uuid, name, value))


def http_url() -> str:
    """[deploy]http_url, which boot files need to be reachable."""
    url: str | None = CONF.deploy.http_url
    if not url:
        raise exception.InvalidParameterValue(
            err='[deploy]http_url is not set: machines cannot fetch their '
                'boot files')
    return url.rstrip('/')


def node_dir(node_uuid: str) -> str:
    return os.path.join(CONF.deploy.http_root, node_uuid)


def url_of(path: str) -> str:
    """The URL of a file under http_root."""
    relative = os.path.relpath(path, CONF.deploy.http_root)
    return '%s/%s' % (http_url(), parse.quote(relative.replace(os.sep, '/')))


def _cached(source: str) -> str:
    """A local copy of ``source`` in the image cache (one per source)."""
    parsed = parse.urlparse(source)
    if parsed.scheme in ('', 'file'):
        path = parse.unquote(parsed.path) if parsed.scheme else source
        if not os.path.isfile(path):
            raise exception.ImageInvalid(image=source,
                                         reason='no such file')
        return path
    digest = hashlib.sha256(source.encode()).hexdigest()[:32]
    cache = CONF.deploy.image_cache
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, digest)
    with _FETCH_LOCK:
        if os.path.exists(path):
            return path
        fd, tmp = tempfile.mkstemp(dir=cache, prefix='.partial-')
        try:
            with os.fdopen(fd, 'wb') as stream, requests.get(
                    source, stream=True, timeout=60) as response:
                if response.status_code != 200:
                    raise exception.ImageInvalid(
                        image=source, reason='HTTP %d'
                        % response.status_code)
                for chunk in response.iter_content(1 << 20):
                    stream.write(chunk)
            os.replace(tmp, path)
        except requests.RequestException as exc:
            raise exception.ImageInvalid(image=source,
                                         reason=str(exc)) from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    return path


def place(source: str, destination: str) -> None:
    """Put ``source``'s content at ``destination`` (a hard link to the
    cached copy where the file systems allow, a copy otherwise)."""
    cached = _cached(source)
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    with atomic_path(destination) as tmp:
        try:
            os.link(cached, tmp)
        except OSError:
            shutil.copyfile(cached, tmp)


def write_text(path: str, text: str) -> None:
    """Write a boot file whole or not at all; nothing if it holds
    ``text`` already (the shared boot.ipxe is written for every node)."""
    try:
        with open(path) as stream:
            if stream.read() == text:
                return
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with atomic_path(path) as tmp:
        with open(tmp, 'w') as stream:
            stream.write(text)


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """A temporary name, of this call alone (threads of a conductor write
    the same files at once), that becomes ``path`` if the block
    succeeds."""
    tmp = '%s.%s.new' % (path, uuid.uuid4().hex)
    try:
        yield tmp
        if not os.path.islink(tmp):
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
