"""SSH connections to deployed nodes: one per node, reused, reopened.

Runs inside the SSH runner's event loop. A node's connection is opened by
its first task and kept for the next ones (a task costs one channel, not
a key exchange), reopened when it was lost or when the node's address,
user, key or host key changed, and closed after ``idle_timeout`` without
tasks. At most ``max_concurrent_connects`` connections are being set up
at any time.

A connection that cannot be made raises :class:`Unreachable` with a
reason an operator can act on: connection refused, authentication
failed, host key mismatch, timed out connecting. The private key never
enters a reason or a log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import asyncssh

from ironside.strategy.tasks.base import TaskTarget

LOG = logging.getLogger(__name__)


class Unreachable(Exception):
    """The node could not be reached or logged in to; str() says why."""


# What a connection was opened with: address, port, user, the private
# key's digest and the host key. Another identity needs a new one.
_Identity = tuple[str, int, str, str | None, str | None]


@dataclasses.dataclass
class _NodeConnection:
    lock: asyncio.Lock
    connection: asyncssh.SSHClientConnection | None = None
    identity: _Identity | None = None
    last_used: float = 0.0
    busy: int = 0


class ConnectionPool:
    """The open connections of one runner, by node name."""

    def __init__(self, connect_timeout: float, max_concurrent_connects: int,
                 keepalive_interval: float, idle_timeout: float) -> None:
        self.connect_timeout = connect_timeout
        self.keepalive_interval = keepalive_interval
        self.idle_timeout = idle_timeout
        self._setups = asyncio.Semaphore(max_concurrent_connects)
        self._nodes: dict[str, _NodeConnection] = {}
        self._keys: dict[str, asyncssh.SSHKey] = {}
        self._sweeper: asyncio.Task[None] | None = None
        # How many connections were opened, for tests and benchmarks.
        self.opened = 0

    async def connection(self, target: TaskTarget,
                         failed: asyncssh.SSHClientConnection | None = None
                         ) -> asyncssh.SSHClientConnection:
        """The node's open connection, made now if needed; ``failed``: a
        connection that just proved dead, to be replaced."""
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(
                self._close_idle())
        entry = self._entry(target.node_name)
        identity = _identity(target)
        async with entry.lock:
            entry.last_used = time.monotonic()
            current = entry.connection
            if (current is not None and current is not failed
                    and not current.is_closed()
                    and entry.identity == identity):
                return current
            if current is not None:
                current.close()
                entry.connection = None
            entry.connection = await self._connect(target)
            entry.identity = identity
            entry.last_used = time.monotonic()
            return entry.connection

    @contextlib.asynccontextmanager
    async def lease(self, node_name: str) -> AsyncIterator[None]:
        """While a task of the node runs: its connection is busy (the
        idle sweep leaves it open)."""
        entry = self._entry(node_name)
        entry.busy += 1
        try:
            yield
        finally:
            entry.busy -= 1
            entry.last_used = time.monotonic()

    def _entry(self, node_name: str) -> _NodeConnection:
        entry = self._nodes.get(node_name)
        if entry is None:
            entry = self._nodes[node_name] = _NodeConnection(asyncio.Lock())
        return entry

    async def _connect(self, target: TaskTarget
                       ) -> asyncssh.SSHClientConnection:
        where = '%s:%d' % (target.address, target.port)
        # asyncssh.connect's keyword arguments.
        options: dict[str, Any] = dict(
            username=target.user, known_hosts=self._known_hosts(target),
            agent_path=None, config=None, preferred_auth='publickey',
            keepalive_interval=self.keepalive_interval or None,
            keepalive_count_max=3, connect_timeout=self.connect_timeout,
            login_timeout=self.connect_timeout)
        if target.private_key is not None:
            options['client_keys'] = [self._key(target.private_key,
                                                target.node_name)]
        started = time.monotonic()
        async with self._setups:
            waited = time.monotonic() - started
            try:
                connection = await asyncio.wait_for(
                    asyncssh.connect(target.address, target.port,
                                     **options),
                    self.connect_timeout)
            except (asyncio.TimeoutError, TimeoutError):
                raise Unreachable('timed out connecting to %s after %gs'
                                  % (where, self.connect_timeout)) from None
            except asyncssh.HostKeyNotVerifiable:
                raise Unreachable(
                    'host key mismatch: %s did not present the host key '
                    'the design gives for %s'
                    % (where, target.node_name)) from None
            except asyncssh.PermissionDenied:
                raise Unreachable(
                    'authentication failed: %s refused the key for user %r'
                    % (where, target.user)) from None
            except ConnectionRefusedError:
                raise Unreachable('connection refused by %s' % where
                                  ) from None
            except asyncssh.DisconnectError as exc:
                raise Unreachable('SSH connection to %s failed: %s'
                                  % (where, exc.reason)) from None
            except OSError as exc:
                raise Unreachable('cannot connect to %s: %s'
                                  % (where, _os_reason(exc))) from None
        self.opened += 1
        LOG.debug('SSH connection to %s (%s) open in %.3fs (%.3fs waiting '
                  'for a setup slot)', target.node_name, where,
                  time.monotonic() - started, waited)
        return connection

    def _key(self, private_key: str, node_name: str) -> asyncssh.SSHKey:
        digest = hashlib.sha256(private_key.encode()).hexdigest()
        key = self._keys.get(digest)
        if key is None:
            try:
                key = asyncssh.import_private_key(private_key)
            except (asyncssh.KeyImportError, ValueError, TypeError):
                # The library's message may quote the text: not shown.
                raise Unreachable(
                    'the private key for %s could not be read: it must be '
                    'an unencrypted PEM or OpenSSH private key'
                    % node_name) from None
            self._keys[digest] = key
        return key

    @staticmethod
    def _known_hosts(target: TaskTarget) -> tuple[
            list[asyncssh.SSHKey], list[asyncssh.SSHKey],
            list[asyncssh.SSHKey]] | None:
        """Trust only the host key given, when one is; else any."""
        if not target.host_key:
            return None
        try:
            key = asyncssh.import_public_key(target.host_key)
        except (asyncssh.KeyImportError, ValueError):
            raise Unreachable(
                'the host key given for %s could not be read: it must look '
                'like "ssh-ed25519 AAAA..."' % target.node_name) from None
        return ([key], [], [])

    async def _close_idle(self) -> None:
        while True:
            await asyncio.sleep(min(self.idle_timeout / 2, 60))
            now = time.monotonic()
            for name, entry in list(self._nodes.items()):
                if (entry.connection is not None and not entry.busy
                        and not entry.lock.locked()
                        and now - entry.last_used > self.idle_timeout):
                    LOG.debug('closing idle SSH connection to %s', name)
                    entry.connection.close()
                    entry.connection = None

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        connections = [entry.connection for entry in self._nodes.values()
                       if entry.connection is not None]
        self._nodes.clear()
        for connection in connections:
            connection.close()
        for connection in connections:
            await connection.wait_closed()


def _identity(target: TaskTarget) -> _Identity:
    key = target.private_key
    digest = hashlib.sha256(key.encode()).hexdigest() if key else None
    return (target.address, target.port, target.user, digest,
            target.host_key)


def _os_reason(exc: OSError) -> str:
    if exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return 'no route to host'
    return exc.strerror or str(exc)
