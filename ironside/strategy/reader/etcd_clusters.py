"""The EtcdClusters design document: which etcd clusters a site runs.

A kind of design document (:mod:`.kinds`): a commit checks it, and a
``redeploy_server`` action reads it from its design revision. The
teardown spec names the document ``promenade/EtcdClusters/v1``;
Ironside accepts it under that schema and as ``ironside/EtcdClusters/v1``::

    schema: promenade/EtcdClusters/v1
    metadata:
      name: etcd-clusters
    data:
      clusters:
        - name: kubernetes
          minimum_healthy_members: 2     # default: a majority of members
          members:
            - node: control-0            # the node's host name
              name: control-0            # etcd member name; default: node
              client_url: https://10.0.0.10:2379
              peer_url: https://10.0.0.10:2380   # optional
          tls:                           # optional; files on the conductor
            ca_cert: /etc/ironside/etcd/ca.pem
            client_cert: /etc/ironside/etcd/client.pem
            client_key: /etc/ironside/etcd/client-key.pem
          auth:                          # optional; etcd's own users
            username: root
            password: secret

A member of a running cluster is hosted on a node when its etcd name is
the node's name (Promenade's convention), or when its peer URL is the
one this document gives for that node. ``minimum_healthy_members`` is
the site's threshold for a usable cluster: a member is not removed when
fewer healthy members would remain, and a decommission waits until at
least that many remaining members are healthy.

Passwords and key paths never appear in a repr, a log or an error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any
from urllib import parse

import jsonschema

from ironside.common import exception
from ironside.strategy.core.paths import Path
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.registry import Kind
from ironside.strategy.reader.schema import envelope
from ironside.strategy.reader.schema import schema_errors
from ironside.strategy.reader.source import SourceError
from ironside.strategy.reader.source import read_documents

PROMENADE_SCHEMA = 'promenade/EtcdClusters/v1'
IRONSIDE_SCHEMA = 'ironside/EtcdClusters/v1'
SCHEMAS = (PROMENADE_SCHEMA, IRONSIDE_SCHEMA)

_URL = {'type': 'string', 'minLength': 1}
_TEXT = {'type': 'string', 'minLength': 1}

_MEMBER_SCHEMA = {
    'type': 'object',
    'required': ['node', 'client_url'],
    'properties': {
        'node': _TEXT,
        'name': _TEXT,
        'client_url': _URL,
        'peer_url': _URL,
    },
    'additionalProperties': False,
}

_CLUSTER_SCHEMA = {
    'type': 'object',
    'required': ['name', 'members'],
    'properties': {
        'name': _TEXT,
        'minimum_healthy_members': {'type': 'integer', 'minimum': 1},
        'members': {'type': 'array', 'items': _MEMBER_SCHEMA,
                    'minItems': 1},
        'tls': {
            'type': 'object',
            'properties': {'ca_cert': _TEXT, 'client_cert': _TEXT,
                           'client_key': _TEXT},
            'additionalProperties': False,
        },
        'auth': {
            'type': 'object',
            'required': ['username', 'password'],
            'properties': {'username': _TEXT, 'password': _TEXT},
            'additionalProperties': False,
        },
    },
    'additionalProperties': False,
}

DOCUMENT_SCHEMA = envelope(list(SCHEMAS), {
    'type': 'object',
    'required': ['clusters'],
    'properties': {'clusters': {'type': 'array', 'items': _CLUSTER_SCHEMA}},
    'additionalProperties': False,
})

# Errors are reported as the DeploymentStrategy reader reports its own:
# one format, and the same YAML line mapping, for every design document.
_VALIDATOR = jsonschema.Draft202012Validator(DOCUMENT_SCHEMA)


@dataclasses.dataclass(frozen=True)
class MemberSpec:
    """An etcd member as the document places it on a node."""

    node: str
    name: str
    client_url: str
    peer_url: str | None = None


@dataclasses.dataclass(frozen=True)
class TLSFiles:
    ca_cert: str | None = None
    client_cert: str | None = None
    client_key: str | None = dataclasses.field(default=None, repr=False)


@dataclasses.dataclass(frozen=True)
class Credentials:
    username: str
    password: str = dataclasses.field(repr=False)


@dataclasses.dataclass(frozen=True)
class EtcdCluster:
    name: str
    members: tuple[MemberSpec, ...]
    minimum_healthy_members: int
    tls: TLSFiles | None = None
    auth: Credentials | None = None

    @property
    def endpoints(self) -> tuple[str, ...]:
        """Client URLs of the members, in document order."""
        return tuple(m.client_url for m in self.members)

    def members_on(self, node: str) -> tuple[MemberSpec, ...]:
        return tuple(m for m in self.members if m.node == node)


@dataclasses.dataclass(frozen=True)
class EtcdClusters:
    name: str
    schema: str
    clusters: tuple[EtcdCluster, ...]

    def cluster(self, name: str) -> EtcdCluster:
        for cluster in self.clusters:
            if cluster.name == name:
                return cluster
        raise KeyError(name)

    def clusters_on(self, node: str) -> tuple[EtcdCluster, ...]:
        """The clusters the document says have a member on ``node``."""
        return tuple(c for c in self.clusters if c.members_on(node))


def majority(members: int) -> int:
    return members // 2 + 1


# Reading and validation

def _url_error(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    parsed = parse.urlparse(value)
    try:
        port = parsed.port
    except ValueError:
        port = None
    if parsed.scheme not in ('http', 'https') or not parsed.hostname or \
            port is None:
        return 'must be an http(s) URL with a host and a port, not %r' \
            % value
    return None


def _semantic_errors(document: Any, errors: ErrorCollector) -> None:
    data = document.get('data') if isinstance(document, Mapping) else None
    clusters = data.get('clusters') if isinstance(data, Mapping) else None
    if not isinstance(clusters, list):
        return
    seen_clusters: dict[str, int] = {}
    for c_index, cluster in enumerate(clusters):
        if not isinstance(cluster, Mapping):
            continue
        path = ('data', 'clusters', c_index)
        name = cluster.get('name')
        if isinstance(name, str):
            if name in seen_clusters:
                errors.add(path + ('name',), 'duplicate cluster name; '
                           'cluster #%d has it too'
                           % (seen_clusters[name] + 1))
            seen_clusters.setdefault(name, c_index)
        members = cluster.get('members')
        members = members if isinstance(members, list) else []
        seen_nodes: dict[str, int] = {}
        for m_index, member in enumerate(members):
            if not isinstance(member, Mapping):
                continue
            m_path = path + ('members', m_index)
            for key in ('client_url', 'peer_url'):
                problem = _url_error(member.get(key))
                if problem:
                    errors.add(m_path + (key,), problem)
            node = member.get('node')
            if isinstance(node, str):
                if node in seen_nodes:
                    errors.add(m_path + ('node',), 'node %s already hosts '
                               'member #%d of this cluster'
                               % (node, seen_nodes[node] + 1))
                seen_nodes.setdefault(node, m_index)
        minimum = cluster.get('minimum_healthy_members')
        if isinstance(minimum, int) and not isinstance(minimum, bool) and \
                members and minimum > len(members):
            errors.add(path + ('minimum_healthy_members',),
                       'must be at most the number of members (%d), not %d'
                       % (len(members), minimum))
        tls = cluster.get('tls')
        if isinstance(tls, Mapping) and \
                bool(tls.get('client_cert')) != bool(tls.get('client_key')):
            errors.add(path + ('tls',), 'client_cert and client_key go '
                       'together')


def check(document: Any, lines: Mapping[Path, int] | None = None,
          name: str = '<input>') -> list[DocumentError]:
    """Every problem of a parsed EtcdClusters document; empty if valid."""
    errors = ErrorCollector(document_name(document, name), lines)
    schema_errors(_VALIDATOR, document, errors)
    _semantic_errors(document, errors)
    return errors.sorted()


def build(document: Mapping[str, Any]) -> EtcdClusters:
    """The model of a document that passed ``check``."""
    clusters = []
    for value in document['data']['clusters']:
        members = tuple(MemberSpec(node=m['node'],
                                   name=m.get('name') or m['node'],
                                   client_url=m['client_url'].rstrip('/'),
                                   peer_url=(m.get('peer_url') or '').rstrip(
                                       '/') or None)
                        for m in value['members'])
        tls = value.get('tls')
        auth = value.get('auth')
        clusters.append(EtcdCluster(
            name=value['name'], members=members,
            minimum_healthy_members=value.get(
                'minimum_healthy_members', majority(len(members))),
            tls=TLSFiles(**tls) if tls else None,
            auth=Credentials(**auth) if auth else None))
    return EtcdClusters(name=document['metadata']['name'],
                        schema=document['schema'], clusters=tuple(clusters))


KIND = Kind('EtcdClusters', SCHEMAS, check, build)


def load(source: str | Mapping[str, Any], name: str = '<input>'
         ) -> EtcdClusters:
    """Read and validate an EtcdClusters document (YAML/JSON text holding
    it, possibly among other documents, or a parsed mapping).

    Raises InvalidDesignDocument listing every problem.
    """
    lines: Mapping[Path, int] = {}
    document: Any = source
    if isinstance(source, str):
        try:
            parsed = read_documents(source)
        except SourceError as exc:
            raise exception.InvalidDesignDocument([DocumentError(
                name, 'not valid YAML or JSON: %s' % exc.problem,
                line=exc.line)]) from None
        found = [(d.data, d.lines) for d in parsed if KIND.reads(d.data)]
        if len(found) != 1:
            raise exception.InvalidDesignDocument([DocumentError(
                name, '%d documents with schema %s or %s; give one'
                % ((len(found),) + SCHEMAS))])
        document, lines = found[0]
    errors = check(document, lines, name)
    if errors:
        raise exception.InvalidDesignDocument(errors)
    return build(document)
