"""The conductor's side of the agent's REST API (ironic-python-agent).

The agent serves ``/v1/commands/`` at the ``callback_url`` it sent in its
heartbeat (``driver_internal_info['agent_url']``). Every request carries
the token the agent was given at lookup (``agent_token`` query
parameter), and, when the agent serves HTTPS with a certificate of its
own (API 1.68), is verified with the certificate it sent
(``driver_internal_info['agent_verify_ca']``).

A command is ``{"name": "<extension>.<command>", "params": {...}}``; its
result ``{id, command_name, command_status (RUNNING, SUCCEEDED, FAILED,
VERSION_MISMATCH), command_error, command_result}``. A command that
failed still answers 200, with status FAILED.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any
from urllib import parse

import requests

from ironside.common import exception
from ironside.common.conf import CONF

LOG = logging.getLogger(__name__)

RUNNING = 'RUNNING'
SUCCEEDED = 'SUCCEEDED'
FAILED = 'FAILED'
VERSION_MISMATCH = ('VERSION_MISMATCH', 'CLEAN_VERSION_MISMATCH')

# driver_internal_info keys the heartbeat fills in and the client reads.
AGENT_URL = 'agent_url'
AGENT_TOKEN = 'agent_secret_token'
AGENT_CA = 'agent_verify_ca'

_SESSION = requests.Session()
_SESSION.headers['Content-Type'] = 'application/json'


def command_error(result: dict[str, Any]) -> str:
    """What went wrong with a command, as the agent said it."""
    error = result.get('command_error')
    if isinstance(error, dict):
        return str(error.get('details') or error.get('message') or error)
    return str(error or 'the agent gave no reason')


def command_error_type(result: dict[str, Any]) -> str:
    """The agent's class of error (ImageChecksumError...), as a reason."""
    error = result.get('command_error')
    kind = error.get('type') if isinstance(error, dict) else None
    if isinstance(kind, str) and kind.isidentifier():
        return kind
    return exception.AgentCommandFailed.failure_reason


def command_failed(node_uuid: str, command: str, result: dict[str, Any]
                   ) -> exception.AgentCommandFailed:
    """The error of a command that failed on the agent, with the agent's
    class of error as its failure reason."""
    error = exception.AgentCommandFailed(
        node=node_uuid, command=command, error=command_error(result))
    error.failure_reason = command_error_type(result)
    return error


def _ca_file(pem: str) -> str:
    """A file holding ``pem``, for requests' ``verify``; one per
    certificate, shared by every node whose agent sent it."""
    digest = hashlib.sha256(pem.encode()).hexdigest()[:32]
    directory = os.path.join(tempfile.gettempdir(), 'ironside-agent-ca')
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, digest + '.pem')
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=directory)
        with os.fdopen(fd, 'w') as stream:
            stream.write(pem)
        os.replace(tmp, path)
    return path


class AgentClient:
    """Requests to the agent of one node, as its record says."""

    def __init__(self, node: Any) -> None:
        info = node.driver_internal_info or {}
        self.node_uuid = node.uuid
        url = info.get(AGENT_URL)
        if not url:
            raise exception.AgentConnectionFailed(
                node=node.uuid, url='(none)',
                reason='the agent has not heartbeated yet, so its address '
                       'is not known')
        self.url = url.rstrip('/')
        self._token = info.get(AGENT_TOKEN)
        self._verify: bool | str = True
        ca = info.get(AGENT_CA)
        if not CONF.agent.verify_ca:
            self._verify = False
        elif ca:
            self._verify = _ca_file(ca)

    def _params(self, **extra: str) -> dict[str, str]:
        params = dict(extra)
        if self._token:
            params['agent_token'] = self._token
        return params

    def _request(self, method: str, path: str, what: str,
                 **kwargs: Any) -> requests.Response:
        """One request, retried on connection errors only."""
        attempts = CONF.agent.max_command_attempts
        for attempt in range(1, attempts + 1):
            try:
                return _SESSION.request(
                    method, self.url + path, verify=self._verify,
                    timeout=CONF.agent.command_timeout, **kwargs)
            except (requests.ConnectionError, requests.Timeout) as exc:
                if attempt == attempts or \
                        isinstance(exc, requests.ReadTimeout):
                    raise exception.AgentConnectionFailed(
                        node=self.node_uuid, url=self.url,
                        reason='%s: %s' % (what, _short(exc))) from None
                time.sleep(min(0.5 * attempt, 2.0))
            except requests.RequestException as exc:
                raise exception.AgentConnectionFailed(
                    node=self.node_uuid, url=self.url,
                    reason='%s: %s' % (what, _short(exc))) from None
        raise AssertionError('unreachable')

    def _json(self, response: requests.Response, command: str
              ) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code >= 400:
            fault = body.get('faultstring') if isinstance(body, dict) \
                else None
            fault = str(fault or response.text[:200] or response.reason)
            if response.status_code == 409 or \
                    'agent is busy' in fault.lower():
                raise exception.AgentInProgress(node=self.node_uuid,
                                                command=command, error=fault)
            raise exception.AgentAPIError(node=self.node_uuid,
                                          command=command,
                                          status=response.status_code,
                                          error=fault)
        if not isinstance(body, dict):
            raise exception.AgentAPIError(
                node=self.node_uuid, command=command,
                status=response.status_code,
                error='the answer is not a JSON object')
        return body

    def run(self, command: str, params: dict[str, Any],
            wait: bool = False) -> dict[str, Any]:
        """Send ``command`` (``extension.name``); with ``wait`` the agent
        answers once it ended. Returns the command's result record."""
        LOG.debug('Sending %s to the agent of node %s (params %s)', command,
                  self.node_uuid, ', '.join(sorted(params)))
        response = self._request(
            'POST', '/v1/commands/', 'sending %s' % command,
            params=self._params(wait='true' if wait else 'false'),
            json={'name': command, 'params': params})
        result = self._json(response, command)
        if not result.get('command_status'):
            raise exception.AgentAPIError(
                node=self.node_uuid, command=command,
                status=response.status_code,
                error='the answer has no command_status')
        return result

    def commands(self) -> list[dict[str, Any]]:
        """Every command the agent ran since it started, oldest first."""
        response = self._request('GET', '/v1/commands/',
                                 'reading command status',
                                 params=self._params())
        commands = self._json(response, 'status').get('commands')
        if not isinstance(commands, list):
            raise exception.AgentAPIError(
                node=self.node_uuid, command='status',
                status=response.status_code,
                error='the answer has no list of commands')
        return commands

    def watcher(self, command_id: str) -> Callable[[float], bool]:
        """A call that waits (at most the seconds given) for the command
        to end: True once it ended, or once the agent cannot say."""
        url = '%s/v1/commands/%s' % (self.url, parse.quote(command_id))
        params = self._params(wait='true')
        verify = self._verify

        def ended(seconds: float) -> bool:
            try:
                response = _SESSION.get(
                    url, params=params, verify=verify,
                    timeout=(CONF.agent.command_timeout, seconds))
            except requests.ReadTimeout:
                return False
            except requests.RequestException:
                return True
            if response.status_code != 200:
                return True
            try:
                status = response.json().get('command_status')
                return bool(status != RUNNING)
            except ValueError:
                return True
        return ended

    def run_and_wait(self, command: str, params: dict[str, Any]
                     ) -> dict[str, Any]:
        """Send ``command`` and read its status until it ends (for
        commands that may outlast one HTTP request)."""
        started = self.run(command, params)
        name = command.split('.', 1)[-1]
        result = started
        for _ in range(CONF.agent.command_wait_attempts):
            if result.get('command_status') != RUNNING:
                return result
            time.sleep(CONF.agent.command_wait_interval)
            found = [c for c in self.commands()
                     if c.get('id') == started.get('id') or
                     (started.get('id') is None and
                      c.get('command_name') == name)]
            if found:
                result = found[-1]
        raise exception.AgentTimeout(
            what='The agent of node %s did not finish %s in %d status '
                 'reads' % (self.node_uuid, command,
                            CONF.agent.command_wait_attempts))


def _short(exc: BaseException) -> str:
    """A connection error in one line, without the adapter's noise."""
    text = str(exc)
    for marker in ('Caused by ', 'Failed to establish a new connection: '):
        if marker in text:
            text = text.split(marker, 1)[1]
    return text.strip("()'\" ")[:300] or exc.__class__.__name__
