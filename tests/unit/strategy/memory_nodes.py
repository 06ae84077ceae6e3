"""The node seam over an in-memory site.

Its nodes follow Ironic's provision states on the paths the site layer
uses (enroll → verifying → manageable → cleaning → available → deploying
→ wait call-back → active) and move one state further each time their
states are read, so the runner sees transitional states as it would on
real hardware. Knobs per node make verification, cleaning or deployment
fail, refuse requests a number of times with ``Busy`` (or ``Locked``),
or keep a node from moving at all. Nodes in ``clean failed`` and
``inspect failed`` are managed as Ironic's are (at once, to
``manageable``). Every request made is logged in ``requests``.

It is the seam's test twin: the runner is tested against it without any
conductor, and it shows what another implementation (another
Ironic-compatible endpoint) must do. It lives with the tests, never in
the product.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import states
from ironside.strategy.core import selectors as site_selectors
from ironside.strategy.core.selectors import Selector
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.nodes import seam

# state → (next state on success, next state on failure, failure knob)
_PROGRESS = {
    states.VERIFYING: (states.MANAGEABLE, states.ENROLL, 'fail_verify'),
    states.CLEANING: (states.CLEANWAIT, states.CLEANFAIL, 'fail_prepare'),
    states.CLEANWAIT: (states.AVAILABLE, states.CLEANFAIL, 'fail_prepare'),
    states.DELETING: (states.CLEANING, states.ERROR, 'fail_teardown'),
    states.DEPLOYING: (states.DEPLOYWAIT, states.DEPLOYFAIL, 'fail_deploy'),
    states.DEPLOYWAIT: (states.ACTIVE, states.DEPLOYFAIL, 'fail_deploy'),
}

# request → (states it is accepted in, the state it starts)
_REQUESTS = {
    seam.MANAGE: ((states.ENROLL,), states.VERIFYING),
    seam.PROVIDE: ((states.MANAGEABLE,), states.CLEANING),
    seam.DEPLOY: ((states.AVAILABLE,), states.DEPLOYING),
    seam.TEARDOWN: ((states.ACTIVE, states.DEPLOYFAIL, states.ERROR),
                    states.DELETING),
    seam.CLEAN: ((states.MANAGEABLE,), states.CLEANING),
}


@dataclasses.dataclass
class MemoryNode:
    node: SiteNode
    provision_state: str = states.ENROLL
    last_error: str | None = None
    maintenance: bool = False
    maintenance_reason: str | None = None
    fail_verify: bool = False
    fail_prepare: bool = False
    fail_deploy: bool = False
    fail_teardown: bool = False
    # A manual clean step that fails ("interface.step").
    fail_clean_step: str | None = None
    # Power off requests refused before one is accepted (Rejected).
    refuse_power_off: int = 0
    # Requests refused with Busy before one is accepted.
    busy: int = 0
    # Who holds the node's lock: every request is refused with Locked.
    locked_by: str | None = None
    # A frozen node stays in whatever state it is in.
    frozen: bool = False
    deploy_steps: list = dataclasses.field(default_factory=list)
    # The node's extra field, where selectors read rack, tags and labels;
    # and, for a node a design enrolled, what it was enrolled with.
    extra: dict = dataclasses.field(default_factory=dict)
    enrolled: seam.NewNode | None = None
    power_state: str | None = states.POWER_ON
    retired: bool = False
    retired_reason: str | None = None
    # Cleaning asked for with clean steps ends in manageable.
    manual_clean: bool = False
    # Every manual clean's steps, in order.
    clean_steps: list = dataclasses.field(default_factory=list)


class MemoryNodes:
    def __init__(self) -> None:
        self.nodes: dict[str, MemoryNode] = {}
        self.requests: list[tuple[str, str]] = []
        self.reads = 0
        self._lock = threading.Lock()

    def add(self, name: str, rack: str | None = None,
            tags: Sequence[str] = (), labels: Mapping[str, str] | None = None,
            roles: Sequence[str] = (), **knobs) -> MemoryNode:
        extra: dict[str, Any] = {'tags': list(tags)}
        if rack is not None:
            extra['rack'] = rack
        if labels:
            extra['labels'] = dict(labels)
        if roles:
            extra['roles'] = list(roles)
        uuid = '00000000-0000-4000-8000-%012d' % (len(self.nodes) + 1)
        node = MemoryNode(node=site_selectors.site_node(uuid, name, extra),
                          extra=extra, **knobs)
        self.nodes[uuid] = node
        return node

    def by_name(self, name: str) -> MemoryNode:
        for node in self.nodes.values():
            if node.node.name == name:
                return node
        raise KeyError(name)

    def requests_for(self, name: str) -> list[str]:
        uuid = self.by_name(name).node.uuid
        return [verb for node, verb in self.requests if node == uuid]

    # The seam

    def resolve(self, selectors: Sequence[Selector]) -> list[SiteNode]:
        nodes = sorted((n.node for n in self.nodes.values()),
                       key=lambda n: n.name)
        return site_selectors.select(selectors, nodes)

    def read_states(self, node_uuids: Sequence[str]
                    ) -> dict[str, seam.NodeState]:
        with self._lock:
            self.reads += 1
            result = {}
            for uuid in node_uuids:
                node = self.nodes.get(uuid)
                if node is None:
                    continue
                self._advance(node)
                result[uuid] = seam.NodeState(
                    uuid=uuid, provision_state=node.provision_state,
                    last_error=node.last_error,
                    maintenance=node.maintenance,
                    maintenance_reason=node.maintenance_reason,
                    power_state=node.power_state)
            return result

    def _advance(self, node: MemoryNode) -> None:
        if node.frozen or node.provision_state not in _PROGRESS:
            return
        success, failure, knob = _PROGRESS[node.provision_state]
        if node.manual_clean and node.provision_state == states.CLEANWAIT:
            failed = [step for step in node.clean_steps[-1] if '%s.%s' % (
                step.get('interface'), step.get('step')) ==
                node.fail_clean_step]
            node.manual_clean = False
            if failed:
                node.provision_state = states.CLEANFAIL
                node.last_error = 'fake clean step %s failed' \
                    % node.fail_clean_step
            else:
                node.provision_state = states.MANAGEABLE
            return
        if getattr(node, knob):
            node.provision_state = failure
            node.last_error = 'fake %s failure' % knob.split('_', 1)[1]
        elif success == states.AVAILABLE and node.retired:
            node.provision_state = states.MANAGEABLE
        else:
            node.provision_state = success
            if success == states.ACTIVE:
                node.power_state = states.POWER_ON

    def _request(self, node_uuid: str, verb: str) -> MemoryNode:
        with self._lock:
            node = self.nodes.get(node_uuid)
            if node is None:
                raise seam.Rejected('node %s not found' % node_uuid)
            if node.busy:
                node.busy -= 1
                raise seam.Busy('no free conductor worker')
            if node.locked_by:
                raise seam.Locked('node %s is locked by host %s'
                                  % (node.node.name, node.locked_by))
            if node.maintenance:
                raise seam.Rejected('node %s is in maintenance'
                                    % node.node.name)
            sources, target = _REQUESTS[verb]
            if verb == seam.MANAGE and node.provision_state in (
                    states.AVAILABLE, states.CLEANFAIL, states.INSPECTFAIL):
                sources, target = (node.provision_state,), \
                    states.MANAGEABLE
            if verb == seam.PROVIDE and node.retired:
                raise seam.Rejected('node %s is retired' % node.node.name)
            if node.provision_state not in sources:
                raise seam.Rejected(
                    'the requested action "%s" can not be performed on '
                    'node "%s" while it is in state "%s"'
                    % (verb, node.node.name, node.provision_state))
            self.requests.append((node_uuid, verb))
            node.provision_state = target
            node.last_error = None
            return node

    def start_prepare(self, node_uuid: str, verb: str) -> None:
        self._request(node_uuid, verb)

    def start_deploy(self, node_uuid: str,
                     deploy_steps: Sequence[dict] = (),
                     deploy_templates: Sequence[str] = ()) -> None:
        node = self._request(node_uuid, seam.DEPLOY)
        node.deploy_steps = list(deploy_steps) + [
            {'template': name} for name in deploy_templates]

    def find_nodes(self, names: Sequence[str]) -> dict[str, seam.KnownNode]:
        wanted = set(names)
        with self._lock:
            return {n.node.name: seam.KnownNode(n.node.uuid, n.node.name,
                                                dict(n.extra))
                    for n in self.nodes.values() if n.node.name in wanted}

    def enroll(self, nodes: Sequence[seam.NewNode]) -> dict[str, str]:
        created = {}
        for new in nodes:
            node = self.add(new.name)
            with self._lock:
                self._set_extra(node, new.extra)
                node.enrolled = new
            self.requests.append((node.node.uuid, 'enroll'))
            created[new.name] = node.node.uuid
        return created

    def _set_extra(self, node: MemoryNode, extra: Mapping[str, Any]) -> None:
        node.extra = dict(extra)
        node.node = site_selectors.site_node(node.node.uuid, node.node.name,
                                             node.extra)

    def set_extra(self, node_uuid: str, extra: Mapping[str, Any]) -> None:
        with self._lock:
            node = self.nodes.get(node_uuid)
            if node is None:
                raise seam.Rejected('node %s not found' % node_uuid)
            self._set_extra(node, extra)
            self.requests.append((node_uuid, 'set_extra'))

    def start_teardown(self, node_uuid: str) -> None:
        self._request(node_uuid, seam.TEARDOWN)

    def start_clean(self, node_uuid: str, clean_steps: Sequence[dict]
                    ) -> None:
        node = self._request(node_uuid, seam.CLEAN)
        node.manual_clean = True
        node.clean_steps.append([dict(s) for s in clean_steps])

    def power_off(self, node_uuid: str) -> None:
        with self._lock:
            node = self.nodes.get(node_uuid)
            if node is None:
                raise seam.Rejected('node %s not found' % node_uuid)
            if node.refuse_power_off:
                node.refuse_power_off -= 1
                raise seam.Rejected('fake BMC refused to power off')
            self.requests.append((node_uuid, seam.POWER_OFF))
            node.power_state = states.POWER_OFF

    def set_retired(self, node_uuid: str, retired: bool,
                    reason: str | None = None) -> None:
        with self._lock:
            node = self.nodes.get(node_uuid)
            if node is None:
                raise seam.Rejected('node %s not found' % node_uuid)
            if retired and not node.retired and \
                    node.provision_state == states.AVAILABLE:
                raise seam.Rejected('node %s is available: manage it '
                                    'first' % node.node.name)
            node.retired = retired
            node.retired_reason = reason if retired else None
            self.requests.append((node_uuid, 'retire' if retired
                                  else 'unretire'))
