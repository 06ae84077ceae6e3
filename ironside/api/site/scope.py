"""Which nodes a caller of the site API may see and act on.

The site API checks nodes with /v1's node rules, so one policy file
says who may do what to a node whichever API is used:
``baremetal:node:list_all`` lets a caller see every node, else it sees
those its project owns or leases; ``baremetal:node:get`` decides whether
it sees a given node (404 if not, as /v1 answers), and
``baremetal:node:set_provision_state`` whether it acts on it (403).

Without keystone every caller passes every rule, and nothing is looked
up.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import falcon

from ironside.api import node_access
from ironside.api import nodes as nodes_api
from ironside.api import policy
from ironside.common import exception
from ironside.db import nodes as nodes_db
from ironside.db import site as site_db
from ironside.strategy.core.selectors import Selector
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.nodes import seam

SEE = 'baremetal:node:get'
ACT = 'baremetal:node:set_provision_state'


def visible_project(req: falcon.Request) -> str | None:
    """The project whose nodes alone the caller sees (None: every node)."""
    if not policy.enforced():
        return None
    return nodes_api.list_project(req, 'node')


def visible_nodes(req: falcon.Request) -> dict[str, str] | None:
    """The names of the nodes the caller sees, by UUID (None: every
    node)."""
    project = visible_project(req)
    if project is None:
        return None
    return {row.uuid: row.name for row in nodes_db.select_node_columns(
        ('uuid', 'name'), {'project': project})}


def visible_uuids(req: falcon.Request) -> set[str] | None:
    """The UUIDs of the nodes the caller sees (None: every node)."""
    seen = visible_nodes(req)
    return None if seen is None else set(seen)


def check_nodes(req: falcon.Request, uuids: Iterable[str],
                rule: str) -> None:
    """404 if the caller may not see one of these nodes, 403 if it may
    see but not pass ``rule`` on one; the first such node is named."""
    if not policy.enforced():
        return
    wanted = sorted(set(uuids))
    if not wanted:
        return
    for row in nodes_db.select_node_columns(
            ('uuid', 'name', 'owner', 'lessee'), {'uuid_in': wanted}):
        node_access.authorize_node(req, rule, dict(row._mapping),
                                   row.name or row.uuid)


def check_action(req: falcon.Request, uuid: str, rule: str) -> None:
    """Check ``rule`` on every node of site action ``uuid``: an action
    with a node the caller may not see is not found (without naming the
    node), one with a node it may see but not pass ``rule`` on is 403."""
    if not policy.enforced():
        return
    action = site_db.get_action(uuid)
    try:
        check_nodes(req, [n.node_uuid
                          for n in site_db.action_nodes(action.id)], rule)
    except exception.NodeNotFound:
        raise exception.SiteActionNotFound(action=uuid) from None


def action_visible(req: falcon.Request, action_id: int,
                   seen: set[str] | None) -> bool:
    """Whether the caller sees every node of an action (``seen``: the
    nodes it sees, None for all)."""
    if seen is None:
        return True
    return all(n.node_uuid in seen for n in site_db.action_nodes(action_id))


class ScopedNodes:
    """The node backend as a caller sees it, for the actions it starts.

    Selectors select among the nodes the caller sees (other projects'
    nodes are not there for it), and each selected node must pass the
    acting rule; a selector naming a node the caller cannot see is refused with
    404, as /v1 answers, a design naming one with 403, and enrolling a design's
    new nodes needs ``baremetal:node:create``. Every check is made while
    the plan is built, before anything is written.
    """

    def __init__(self, nodes: seam.NodeBackend, req: falcon.Request
                 ) -> None:
        self.nodes = nodes
        self.req = req
        self.seen = visible_nodes(req)

    def resolve(self, selectors: Sequence[Selector]) -> list[SiteNode]:
        found = self.nodes.resolve(selectors)
        if self.seen is not None:
            names = set(self.seen.values())
            for name in sorted({name for selector in selectors
                                for name in selector.node_names}):
                if name not in names:
                    raise exception.NodeNotFound(node=name)
            found = [n for n in found if n.uuid in self.seen]
        if selectors:
            check_nodes(self.req, [n.uuid for n in found], ACT)
        return found

    def read_states(self, node_uuids: Sequence[str]
                    ) -> dict[str, seam.NodeState]:
        return self.nodes.read_states(node_uuids)

    def start_prepare(self, node_uuid: str, verb: str) -> None:
        self.nodes.start_prepare(node_uuid, verb)

    def start_deploy(self, node_uuid: str, deploy_steps: Sequence[dict] = (),
                     deploy_templates: Sequence[str] = ()) -> None:
        self.nodes.start_deploy(node_uuid, deploy_steps, deploy_templates)

    def find_nodes(self, names: Sequence[str]) -> dict[str, seam.KnownNode]:
        known = self.nodes.find_nodes(names)
        if self.seen is not None and \
                any(k.uuid not in self.seen for k in known.values()):
            # A design is the whole site's: running one takes seeing
            # every node it names.
            policy.authorize('baremetal:node:list_all', self.req.context.ctx)
        check_nodes(self.req, [k.uuid for k in known.values()], ACT)
        return known

    def enroll(self, nodes: Sequence[seam.NewNode]) -> dict[str, str]:
        policy.authorize('baremetal:node:create', self.req.context.ctx)
        return self.nodes.enroll(nodes)

    def set_extra(self, node_uuid: str, extra: Mapping[str, Any]) -> None:
        self.nodes.set_extra(node_uuid, extra)
