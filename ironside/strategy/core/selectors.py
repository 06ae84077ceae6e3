"""Selectors: which nodes belong to a group.

A selector has four criteria, ``node_names``, ``node_tags``,
``node_labels`` and ``rack_names``, and Ironside's fifth, ``node_roles``
(how a Fuel task graph's group picks its nodes). A node matches a
criterion if it has any of the listed values (its name, one of its tags,
one of its labels, its rack, one of its roles), and matches a selector if
it matches every criterion the selector lists: a selector is an
intersection. A list of selectors is the
union of what each selects. An omitted or empty criterion is ignored; no
selectors at all, or a selector without criteria, selects every node.

Where an Ironside node keeps what selectors look at, all in fields an
operator sets with ``openstack baremetal node set``:

``name``
    The node's name (a node without one is known by its UUID, which
    ``node_names`` also matches).
``extra.rack``
    The rack's name: ``--extra rack=rack01``.
``extra.tags``
    A list of tags, ``--extra tags='["control", "ntp"]'``, or one string
    of comma-separated tags, ``--extra tags=control,ntp``.
``extra.labels``
    An object of label keys and values,
    ``--extra labels='{"ucp_control_plane": "enabled"}'``, or a list of
    ``"key: value"`` strings.
``extra.roles``
    The node's roles in a Fuel task graph, written like tags: a list,
    ``--extra roles='["controller", "cinder"]'``, or one string,
    ``--extra roles=controller,cinder``. A site design's inventory
    writes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

CRITERIA = ('node_names', 'node_tags', 'node_labels', 'rack_names',
            'node_roles')


class LabelError(ValueError):
    """A label that is not of the form ``key: value``."""


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) and value is not None


def parse_label(label: Any) -> tuple[str, str]:
    """``"key: value"`` (or ``key:value``) or ``{key: value}`` → (key, value).

    Exactly one colon in the string form, and neither side empty, as
    Shipyard requires; YAML turns ``- key: value`` into a one-entry
    mapping, which is accepted too.
    """
    if isinstance(label, Mapping):
        if len(label) != 1:
            raise LabelError('label %s must have exactly one key: value '
                             'pair' % dict(label))
        key, value = next(iter(label.items()))
        if not _scalar(key) or not _scalar(value):
            raise LabelError('label %s is not of the form key: value'
                             % dict(label))
        key, value = str(key).strip(), str(value).strip()
        if not key or not value:
            raise LabelError('label %s has an empty key or value'
                             % dict(label))
        return key, value
    if not isinstance(label, str):
        raise LabelError('label %r is not of the form key: value' % (label,))
    parts = label.split(':')
    if len(parts) != 2:
        raise LabelError('label "%s" is not of the form key: value (it '
                         'needs exactly one colon)' % label)
    key, value = parts[0].strip(), parts[1].strip()
    if not key or not value:
        raise LabelError('label "%s" is not of the form key: value (key '
                         'and value must not be empty)' % label)
    return key, value


@dataclasses.dataclass(frozen=True)
class SiteNode:
    """What selectors see of a node."""

    uuid: str
    name: str
    rack: str | None = None
    tags: frozenset[str] = frozenset()
    labels: frozenset[tuple[str, str]] = frozenset()
    roles: frozenset[str] = frozenset()


def _tags(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset(t.strip() for t in value.split(',') if t.strip())
    if isinstance(value, (list, tuple)):
        return frozenset(str(t) for t in value if _scalar(t))
    return frozenset()


def _labels(value: Any) -> frozenset[tuple[str, str]]:
    if isinstance(value, Mapping):
        items = [{k: v} for k, v in value.items()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return frozenset()
    labels = set()
    for item in items:
        try:
            labels.add(parse_label(item))
        except LabelError:
            continue
    return frozenset(labels)


def site_node(uuid: str, name: str | None,
              extra: Mapping[str, Any] | None) -> SiteNode:
    """A node as selectors see it, from its name and ``extra`` field."""
    extra = extra or {}
    rack = extra.get('rack')
    return SiteNode(uuid=uuid, name=name or uuid,
                    rack=str(rack) if _scalar(rack) else None,
                    tags=_tags(extra.get('tags')),
                    labels=_labels(extra.get('labels')),
                    roles=_tags(extra.get('roles')))


@dataclasses.dataclass(frozen=True)
class Selector:
    node_names: frozenset[str] = frozenset()
    node_tags: frozenset[str] = frozenset()
    node_labels: frozenset[tuple[str, str]] = frozenset()
    rack_names: frozenset[str] = frozenset()
    node_roles: frozenset[str] = frozenset()

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Selector:
        """From a validated selector mapping (labels may raise LabelError)."""
        return cls(
            node_names=frozenset(value.get('node_names') or ()),
            node_tags=frozenset(value.get('node_tags') or ()),
            node_labels=frozenset(parse_label(label) for label in
                                  value.get('node_labels') or ()),
            rack_names=frozenset(value.get('rack_names') or ()),
            node_roles=frozenset(value.get('node_roles') or ()))

    def as_dict(self) -> dict[str, list[str]]:
        value = {
            'node_names': sorted(self.node_names),
            'node_tags': sorted(self.node_tags),
            'node_labels': ['%s: %s' % kv for kv in sorted(self.node_labels)],
            'rack_names': sorted(self.rack_names),
        }
        if self.node_roles:
            value['node_roles'] = sorted(self.node_roles)
        return value

    @property
    def selects_all(self) -> bool:
        return not (self.node_names or self.node_tags or self.node_labels or
                    self.rack_names or self.node_roles)

    def matches(self, node: SiteNode) -> bool:
        if self.node_names and node.name not in self.node_names and \
                node.uuid not in self.node_names:
            return False
        if self.rack_names and node.rack not in self.rack_names:
            return False
        if self.node_tags and not self.node_tags & node.tags:
            return False
        if self.node_labels and not self.node_labels & node.labels:
            return False
        if self.node_roles and not self.node_roles & node.roles:
            return False
        return True


def select(selectors: Sequence[Selector],
           nodes: Iterable[SiteNode]) -> list[SiteNode]:
    """The nodes the union of ``selectors`` selects, in the given order."""
    nodes = list(nodes)
    if not selectors or any(s.selects_all for s in selectors):
        return nodes
    return [n for n in nodes if any(s.matches(n) for s in selectors)]


class NodeIndex:
    """Nodes indexed by name, rack, tag, label and role, so that selecting
    from thousands of nodes looks up each criterion instead of testing
    every node. Selects what :func:`select` selects, in the same order."""

    def __init__(self, nodes: Iterable[SiteNode]) -> None:
        self.nodes = list(nodes)
        self._names: dict[str, set[int]] = {}
        self._racks: dict[str | None, set[int]] = {}
        self._tags: dict[str, set[int]] = {}
        self._labels: dict[tuple[str, str], set[int]] = {}
        self._roles: dict[str, set[int]] = {}
        for index, node in enumerate(self.nodes):
            self._names.setdefault(node.name, set()).add(index)
            self._names.setdefault(node.uuid, set()).add(index)
            self._racks.setdefault(node.rack, set()).add(index)
            for tag in node.tags:
                self._tags.setdefault(tag, set()).add(index)
            for label in node.labels:
                self._labels.setdefault(label, set()).add(index)
            for role in node.roles:
                self._roles.setdefault(role, set()).add(index)

    @staticmethod
    def _any(index: Mapping[Any, set[int]], values: Iterable[Any]
             ) -> set[int]:
        found: set[int] = set()
        for value in values:
            found |= index.get(value, set())
        return found

    def _matching(self, selector: Selector) -> set[int]:
        found: set[int] | None = None
        for index, values in ((self._names, selector.node_names),
                              (self._racks, selector.rack_names),
                              (self._tags, selector.node_tags),
                              (self._labels, selector.node_labels),
                              (self._roles, selector.node_roles)):
            if values:
                matches = self._any(index, values)
                found = matches if found is None else found & matches
        return found if found is not None else set(range(len(self.nodes)))

    def select(self, selectors: Sequence[Selector]) -> list[SiteNode]:
        if not selectors or any(s.selects_all for s in selectors):
            return list(self.nodes)
        chosen: set[int] = set()
        for selector in selectors:
            chosen |= self._matching(selector)
        return [self.nodes[i] for i in sorted(chosen)]
