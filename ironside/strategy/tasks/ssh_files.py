"""Files to a node over SFTP: ``upload_file`` and ``rsync`` tasks.

``upload_file`` writes ``data`` to ``path`` as Astute's uploadfile agent
did: missing parent directories are made (``dir_permissions``, 0755), the
file gets ``permissions`` (0644) and replaces any file there. It is
written beside ``path`` and renamed over it, so the node never sees half
a file.

``rsync`` copies ``src``, a file or a directory on the conductor's
machine, to ``dst`` on the node with the result Fuel's ``mkdir -p dst &&
rsync -r --delete -l src dst`` had: rsync's trailing-slash rule (``src/``
copies the directory's contents into ``dst``, ``src`` copies the
directory or file itself into ``dst/``), symbolic links copied as links,
files and directories on the node that ``src`` no longer has removed
from the copied directories. It runs over SFTP on the task's own
connection rather than the node's rsync binary: no rsync needed on
either side, nothing spawned on the conductor, and a recursive copy of a
module tree is one channel. Like rsync's default quick check, a file
whose size and modification time already match is not sent again (Fuel
passed ``-c`` and compared checksums; times are kept on copy, so a
second run sends only what changed).
"""

from __future__ import annotations

import os
import posixpath
import stat
import uuid
from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

import asyncssh

from ironside.strategy.tasks import parameters


class TransferError(Exception):
    """A copy failed; str() names the path and the cause."""


async def upload_file(sftp: asyncssh.SFTPClient,
                      params: dict[str, Any]) -> str:
    """Write the file; returns a one-line summary."""
    path = params['path']
    mode = int(params['permissions'], 8)
    await _makedirs(sftp, posixpath.dirname(path),
                    int(params['dir_permissions'], 8))
    data = params['data'].encode('utf-8')
    await _write_atomically(sftp, path, mode,
                            lambda temporary: _write(sftp, temporary, data))
    return 'wrote %d bytes to %s (mode %04o)' % (len(data), path, mode)


async def _write(sftp: asyncssh.SFTPClient, path: str, data: bytes) -> None:
    async with sftp.open(path, 'wb') as remote:
        await remote.write(data)


async def rsync(sftp: asyncssh.SFTPClient, params: dict[str, Any]) -> str:
    """Mirror ``src`` into ``dst``; returns a one-line summary."""
    src, dst = params['src'], params['dst']
    if not os.path.lexists(src):
        raise TransferError("src %s does not exist on the conductor's "
                            "machine" % src)
    mirror = _Mirror(sftp)
    await _makedirs(sftp, dst, 0o755)
    if src.endswith('/'):
        if not os.path.isdir(src):
            raise TransferError('src %s is not a directory' % src)
        await mirror.directory(src, dst)
    else:
        remote = posixpath.join(dst, os.path.basename(src))
        await mirror.entry(src, remote, await _lstat(sftp, remote))
    return ('%s -> %s: %d copied, %d unchanged, %d deleted'
            % (src, dst, mirror.copied, mirror.unchanged, mirror.deleted))


class _Mirror:
    def __init__(self, sftp: asyncssh.SFTPClient) -> None:
        self.sftp = sftp
        self.copied = self.unchanged = self.deleted = 0

    async def entry(self, local: str, remote: str,
                    remote_attrs: asyncssh.SFTPAttrs | None) -> None:
        try:
            local_stat = os.lstat(local)
        except OSError as exc:
            raise TransferError('cannot read %s on the conductor: %s'
                                % (local, exc.strerror)) from None
        remote_mode = remote_attrs.permissions if remote_attrs else None
        if stat.S_ISLNK(local_stat.st_mode):
            await self._link(local, remote, remote_mode)
        elif stat.S_ISDIR(local_stat.st_mode):
            if remote_mode is not None and not stat.S_ISDIR(remote_mode):
                await self._delete(remote, remote_mode)
                remote_mode = None
            if remote_mode is None:
                await _call(remote, self.sftp.mkdir, remote)
            await _call(remote, self.sftp.chmod, remote,
                        stat.S_IMODE(local_stat.st_mode))
            await self.directory(local, remote)
        elif stat.S_ISREG(local_stat.st_mode):
            await self._file(local, remote, local_stat, remote_attrs)
        # Sockets, devices and fifos are skipped, as rsync -r does.

    async def directory(self, local: str, remote: str) -> None:
        remote_entries: dict[str, asyncssh.SFTPAttrs] = {}
        try:
            async for entry in self.sftp.scandir(remote):
                # A str path lists str names; fsdecode says so to mypy.
                filename = os.fsdecode(entry.filename)
                if filename not in ('.', '..'):
                    remote_entries[filename] = entry.attrs
        except asyncssh.SFTPError as exc:
            raise TransferError('%s on the node: %s'
                                % (remote, exc.reason)) from None
        try:
            local_names = sorted(os.listdir(local))
        except OSError as exc:
            raise TransferError('cannot read %s on the conductor: %s'
                                % (local, exc.strerror)) from None
        for name in local_names:
            await self.entry(os.path.join(local, name),
                             posixpath.join(remote, name),
                             remote_entries.pop(name, None))
        for name, attrs in sorted(remote_entries.items()):
            await self._delete(posixpath.join(remote, name),
                               attrs.permissions)

    async def _file(self, local: str, remote: str, local_stat: os.stat_result,
                    remote_attrs: asyncssh.SFTPAttrs | None) -> None:
        if remote_attrs is not None and stat.S_ISREG(
                remote_attrs.permissions or 0):
            if (remote_attrs.size == local_stat.st_size and
                    remote_attrs.mtime == int(local_stat.st_mtime)):
                self.unchanged += 1
                return
        elif remote_attrs is not None:
            await self._delete(remote, remote_attrs.permissions)

        async def put(temporary: str) -> None:
            await self.sftp.put(local, temporary, preserve=True)

        await _write_atomically(self.sftp, remote,
                                stat.S_IMODE(local_stat.st_mode), put)
        self.copied += 1

    async def _link(self, local: str, remote: str,
                    remote_mode: int | None) -> None:
        target = os.readlink(local)
        if remote_mode is not None and stat.S_ISLNK(remote_mode):
            if await _call(remote, self.sftp.readlink, remote) == target:
                self.unchanged += 1
                return
        if remote_mode is not None:
            await self._delete(remote, remote_mode)
        await _call(remote, self.sftp.symlink, target, remote)
        self.copied += 1

    async def _delete(self, remote: str, mode: int | None) -> None:
        if mode is not None and stat.S_ISDIR(mode):
            await _call(remote, self.sftp.rmtree, remote)
        else:
            await _call(remote, self.sftp.remove, remote)
        self.deleted += 1


async def _write_atomically(sftp: asyncssh.SFTPClient, path: str, mode: int,
                            write: Callable[[str], Awaitable[object]]
                            ) -> None:
    """``write(temporary)`` beside ``path``, then rename it over ``path``."""
    directory, name = posixpath.split(path)
    temporary = posixpath.join(directory, '.%s.ironside-%s'
                               % (name, uuid.uuid4().hex[:8]))
    try:
        await write(temporary)
        # chmod after writing: the server's umask applies at open.
        await sftp.chmod(temporary, mode)
        await sftp.posix_rename(temporary, path)
    except asyncssh.SFTPError as exc:
        try:
            await sftp.remove(temporary)
        except asyncssh.SFTPError:
            pass
        raise TransferError('%s on the node: %s' % (path, exc.reason)
                            ) from None
    except OSError as exc:
        raise TransferError('%s: %s' % (path, exc.strerror or exc)
                            ) from None


async def _makedirs(sftp: asyncssh.SFTPClient, path: str, mode: int) -> None:
    """``mkdir -p``; the directories it makes get ``mode``."""
    missing = []
    while path not in ('/', ''):
        attrs = await _lstat(sftp, path)
        if attrs is not None:
            if not stat.S_ISDIR(attrs.permissions or 0):
                raise TransferError('%s on the node is not a directory'
                                    % path)
            break
        missing.append(path)
        path = posixpath.dirname(path)
    for directory in reversed(missing):
        await _call(directory, sftp.mkdir, directory)
        await _call(directory, sftp.chmod, directory, mode)


async def _lstat(sftp: asyncssh.SFTPClient, path: str
                 ) -> asyncssh.SFTPAttrs | None:
    try:
        return await sftp.lstat(path)
    except asyncssh.SFTPNoSuchFile:
        return None
    except asyncssh.SFTPError as exc:
        raise TransferError('%s on the node: %s' % (path, exc.reason)
                            ) from None


async def _call(path: str, method: Callable[..., Awaitable[Any]],
                *args: Any) -> Any:
    """``method(*args)``, its SFTP error naming ``path``."""
    try:
        return await method(*args)
    except asyncssh.SFTPError as exc:
        raise TransferError('%s on the node: %s' % (path, exc.reason)
                            ) from None


TRANSFERS = {parameters.UPLOAD_FILE: upload_file, parameters.RSYNC: rsync}
