"""etcd's members and health through its v3 HTTP/JSON gateway (served by
every etcd on its client URLs), with the ``etcd3gw`` client: the
:class:`.etcd.EtcdMembership` of a decommission. The gateway's
``/v3/cluster/member/remove``, which etcd3gw has no method for, is called
through etcd3gw's own request helper.

Imported only when a decommission reaches a site's etcd clusters
(:mod:`..run.peers`): etcd3gw loads eventlet, ~1 s of CPU, which no
other part of a conductor needs.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from urllib import parse

import etcd3gw
import requests
from etcd3gw import exceptions as etcd_exc

from ironside.common import exception
from ironside.strategy.decommission import status as st
from ironside.strategy.decommission.etcd import ETCD_READY_TIMEOUT
from ironside.strategy.decommission.etcd import POLL_INTERVAL
from ironside.strategy.decommission.etcd import REMOVE_ETCD_TIMEOUT
from ironside.strategy.decommission.etcd import REQUEST_TIMEOUT
from ironside.strategy.decommission.etcd import Member
from ironside.strategy.decommission.etcd import Status
from ironside.strategy.reader.etcd_clusters import EtcdCluster
from ironside.strategy.reader.etcd_clusters import EtcdClusters

LOG = logging.getLogger(__name__)

# The shortest a request is given, even at the very end of a timeout.
MIN_REQUEST_TIMEOUT = 0.1


def _message(cluster: str, text: str, error: bool = False) -> st.Message:
    return st.Message(text, name=cluster, error=error,
                      kind=st.STEP_MESSAGE)


def _fail(reason: str, text: str,
          messages: Iterable[st.Message] = ()) -> exception.DecommissionFailed:
    return exception.DecommissionFailed(st.failure(reason, text, messages))


@dataclasses.dataclass
class _Deadline:
    """The end of a timeout, and how long the next request may take."""

    at: float | None
    clock: Callable[[], float]
    request_timeout: float

    def left(self) -> float:
        return float('inf') if self.at is None else self.at - self.clock()

    def request(self) -> float:
        return max(MIN_REQUEST_TIMEOUT, min(self.request_timeout,
                                            self.left()))


class EtcdGateway:
    """EtcdMembership over etcd's v3 HTTP gateway (etcd3gw)."""

    def __init__(self, document: EtcdClusters,
                 request_timeout: float = REQUEST_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.document = document
        self.request_timeout = request_timeout
        self._clock = clock
        self._sleep = sleep
        self._clients: dict[tuple[str, str], etcd3gw.Etcd3Client] = {}

    # Connections

    def _deadline(self, timeout: float | None) -> _Deadline:
        at = None if timeout is None else self._clock() + timeout
        return _Deadline(at, self._clock, self.request_timeout)

    def _client(self, cluster: EtcdCluster, url: str,
                deadline: _Deadline) -> etcd3gw.Etcd3Client:
        key = (cluster.name, url)
        client = self._clients.get(key)
        if client is None:
            parsed = parse.urlparse(url)
            if parsed.hostname is None or parsed.port is None:
                # The reader refuses an endpoint without both.
                raise ValueError('etcd endpoint %s has no host or port'
                                 % url)
            tls = cluster.tls
            client = etcd3gw.Etcd3Client(
                host=parsed.hostname, port=parsed.port,
                protocol=parsed.scheme,
                ca_cert=tls.ca_cert if tls else None,
                cert_key=tls.client_key if tls else None,
                cert_cert=tls.client_cert if tls else None)
            client.timeout = deadline.request()
            if cluster.auth:
                answer = client.post(client.get_url('/auth/authenticate'),
                                     json={'name': cluster.auth.username,
                                           'password': cluster.auth.password})
                client.session.headers['Authorization'] = answer['token']
            self._clients[key] = client
        client.timeout = deadline.request()
        return client

    def _forget(self, cluster: EtcdCluster, url: str) -> None:
        client = self._clients.pop((cluster.name, url), None)
        if client is not None:
            client.session.close()

    def _cluster(self, name: str) -> EtcdCluster:
        try:
            return self.document.cluster(name)
        except KeyError:
            raise _fail(st.NOT_FOUND, 'etcd cluster %s is not in the '
                        'EtcdClusters document %s'
                        % (name, self.document.name)) from None

    # Members

    def _members(self, cluster: EtcdCluster, deadline: _Deadline,
                 avoid: str | None = None) -> list[Member]:
        """The live member list, read from the first endpoint that
        answers, trying those not on ``avoid`` first."""
        urls = sorted(cluster.endpoints, key=lambda u: any(
            m.client_url == u and m.node == avoid for m in cluster.members))
        failures = []
        tried = []
        for url in urls:
            try:
                listed = self._client(cluster, url, deadline).members()
            except (etcd_exc.Etcd3Exception, requests.RequestException,
                    ValueError, KeyError) as exc:
                self._forget(cluster, url)
                tried.append('%s: %s' % (st.endpoint(url),
                                         st.unreachable(exc)))
                names = [m.name for m in cluster.members
                         if m.client_url == url] or [url]
                failures.append(st.Message(
                    st.UNABLE_TO_ACCESS_ETCD, name='%s/%s' % (
                        cluster.name, names[0]), error=True,
                    kind=st.HEALTH_MESSAGE))
                LOG.info('etcd cluster %s: %s did not list members: %s',
                         cluster.name, url, type(exc).__name__)
                continue
            return [Member(id=int(m.get('ID', 0)), name=m.get('name', ''),
                           peer_urls=tuple(m.get('peerURLs') or ()),
                           client_urls=tuple(m.get('clientURLs') or ()))
                    for m in listed]
        raise _fail(st.ETCD_NOT_ACCESSIBLE, 'No endpoint of etcd cluster %s '
                    'answered (%s)' % (cluster.name, '; '.join(tried)),
                    failures)

    @staticmethod
    def _hosted(cluster: EtcdCluster, member: Member, node: str) -> bool:
        if member.name == node:
            return True
        for spec in cluster.members_on(node):
            if spec.peer_url and spec.peer_url in member.peer_urls:
                return True
            if spec.client_url in member.client_urls:
                return True
        return False

    def clusters_hosting(self, node: str) -> list[str]:
        names = []
        for cluster in self.document.clusters:
            hosted = bool(cluster.members_on(node))
            if not hosted:
                try:
                    hosted = any(self._hosted(cluster, m, node) for m in
                                 self._members(cluster, self._deadline(None)))
                except exception.DecommissionFailed:
                    hosted = False
            if hosted:
                names.append(cluster.name)
        return names

    def members_on_node(self, cluster: str, node: str) -> list[Member]:
        spec = self._cluster(cluster)
        return [m for m in self._members(spec, self._deadline(None), node)
                if self._hosted(spec, m, node)]

    # Health

    def _member_health(self, cluster: EtcdCluster, member: Member,
                       deadline: _Deadline) -> str:
        answered = False
        for url in member.client_urls:
            try:
                client = self._client(cluster, url, deadline)
                response = client.session.get(url.rstrip('/') + '/health',
                                              timeout=deadline.request())
            except (etcd_exc.Etcd3Exception,
                    requests.RequestException) as exc:
                self._forget(cluster, url)
                LOG.debug('etcd member %s at %s did not answer: %s',
                          member, url, type(exc).__name__)
                continue
            answered = True
            try:
                healthy = response.json().get('health') in ('true', True)
            except ValueError:
                healthy = False
            if response.status_code == 200 and healthy:
                return st.HEALTHY
        return st.UNHEALTHY if answered else st.UNABLE_TO_ACCESS_ETCD

    def _health(self, cluster: EtcdCluster, ignore_node: str | None,
                deadline: _Deadline
                ) -> tuple[list[st.Message], int, list[Member]]:
        """(HealthMessages, healthy count, members on ignore_node)."""
        members = sorted(self._members(cluster, deadline, ignore_node),
                         key=lambda m: (m.name, m.id))
        messages = []
        healthy = 0
        on_node = []
        for member in members:
            if ignore_node and self._hosted(cluster, member, ignore_node):
                on_node.append(member)
                continue
            word = self._member_health(cluster, member, deadline)
            healthy += word == st.HEALTHY
            messages.append(st.Message(
                word, name='%s/%s' % (cluster.name, member.name or
                                      member.hex_id),
                error=word == st.UNABLE_TO_ACCESS_ETCD,
                kind=st.HEALTH_MESSAGE))
        return messages, healthy, on_node

    def health(self, cluster: str, ignore_node: str | None = None
               ) -> Status:
        try:
            spec = self._cluster(cluster)
            messages, healthy, _ = self._health(
                spec, ignore_node, self._deadline(None))
        except exception.DecommissionFailed as exc:
            return st.carried(exc)
        if messages and all(m.message == st.UNABLE_TO_ACCESS_ETCD
                            for m in messages):
            return st.failure(st.ETCD_NOT_ACCESSIBLE, 'No member of etcd '
                              'cluster %s answered its health check'
                              % cluster, messages)
        return st.success('etcd cluster %s: %d of %d members healthy'
                          % (cluster, healthy, len(messages)), messages)

    # Removal

    def remove_node_members(self, node: str,
                            timeout: float = REMOVE_ETCD_TIMEOUT) -> Status:
        deadline = self._deadline(timeout)
        plans = []
        messages = []
        try:
            for name in self.clusters_hosting(node):
                cluster = self._cluster(name)
                health, healthy, on_node = self._health(cluster, node,
                                                        deadline)
                if not on_node:
                    messages.append(_message(name, 'no member on node %s'
                                             % node))
                    continue
                if healthy < cluster.minimum_healthy_members:
                    raise _fail(st.REMOVE_ETCD_ERROR, 'Removing %s from etcd '
                                'cluster %s would leave %d healthy members, '
                                'fewer than its minimum of %d' % (
                                    ', '.join(map(str, on_node)), name,
                                    healthy,
                                    cluster.minimum_healthy_members),
                                health)
                plans.append((cluster, on_node))
            for cluster, on_node in plans:
                for member in on_node:
                    self._remove(cluster, member, node, deadline)
                    messages.append(_message(cluster.name, 'removed member '
                                             '%s' % member))
        except exception.DecommissionFailed as exc:
            failed = st.carried(exc)
            return dataclasses.replace(
                failed, messages=tuple(messages) + failed.messages)
        if not plans:
            return st.success('Node %s hosts no etcd member' % node,
                              messages)
        return st.success('etcd members on node %s removed' % node,
                          messages)

    def _remove(self, cluster: EtcdCluster, member: Member, node: str,
                deadline: _Deadline) -> None:
        """Remove one member, retrying what etcd may answer while it
        elects a leader or a peer is slow, until the deadline."""
        while True:
            error = None
            for url in cluster.endpoints:
                if any(s.client_url == url for s in cluster.members_on(node)):
                    continue
                try:
                    client = self._client(cluster, url, deadline)
                    client.post(client.get_url('/cluster/member/remove'),
                                json={'ID': member.id})
                    LOG.info('Removed etcd member %s from cluster %s',
                             member, cluster.name)
                    return
                except etcd_exc.Etcd3Exception as exc:
                    text = exc.detail_text or str(exc) or \
                        type(exc).__name__
                    if 'member not found' in text:
                        return  # removed already: the goal is reached
                    if isinstance(exc, (etcd_exc.ConnectionFailedError,
                                        etcd_exc.ConnectionTimeoutError,
                                        etcd_exc.InternalServerError)):
                        self._forget(cluster, url)
                        error = '%s: %s' % (st.endpoint(url), text if
                                            isinstance(exc, etcd_exc.
                                                       InternalServerError)
                                            else st.unreachable(exc))
                        continue
                    raise _fail(st.REMOVE_ETCD_ERROR, 'etcd refused to remove '
                                'member %s from cluster %s: %s'
                                % (member, cluster.name, text)) from None
                except requests.RequestException as exc:
                    self._forget(cluster, url)
                    error = '%s: %s' % (st.endpoint(url),
                                        st.unreachable(exc))
            if deadline.left() <= 0:
                raise _fail(st.REMOVE_ETCD_ERROR, 'Member %s of etcd cluster '
                            '%s was not removed within the timeout: %s'
                            % (member, cluster.name, error))
            self._sleep(min(1.0, max(deadline.left(), 0)))

    # Waiting

    def wait_until_healthy(self, node: str, clusters: Iterable[str],
                           timeout: float = ETCD_READY_TIMEOUT,
                           interval: float = POLL_INTERVAL) -> Status:
        if interval <= 0:
            raise ValueError('interval must be positive')
        deadline = self._deadline(timeout)
        names = list(dict.fromkeys(clusters))
        while True:
            messages, waiting = self._poll(names, node, deadline)
            if not waiting:
                return st.success('etcd clusters %s are healthy without '
                                  'node %s' % (', '.join(names) or '(none)',
                                               node), messages)
            left = deadline.left()
            if left < MIN_REQUEST_TIMEOUT:
                return st.failure(
                    st.REMOVE_ETCD_ERROR, 'etcd did not become healthy '
                    'without node %s within %ss: %s'
                    % (node, _seconds(timeout), '; '.join(waiting)),
                    messages)
            self._sleep(min(interval, left))

    def _poll(self, names: Sequence[str], node: str, deadline: _Deadline
              ) -> tuple[list[st.Message], list[str]]:
        """Health messages of every cluster, and why each that is not
        ready yet is not."""
        messages: list[st.Message] = []
        waiting = []
        for name in names:
            try:
                cluster = self._cluster(name)
                health, healthy, on_node = self._health(cluster, node,
                                                        deadline)
            except exception.DecommissionFailed as exc:
                messages.extend(exc.status.messages)
                waiting.append(exc.status.message)
                continue
            messages.extend(health)
            if on_node:
                waiting.append('cluster %s still lists %s' % (
                    name, ', '.join(map(str, on_node))))
            elif healthy < cluster.minimum_healthy_members:
                waiting.append('cluster %s has %d healthy members of the '
                               'minimum %d' % (
                                   name, healthy,
                                   cluster.minimum_healthy_members))
        return messages, waiting


def _seconds(value: float) -> str:
    return ('%d' % value) if float(value).is_integer() else '%.1f' % value
