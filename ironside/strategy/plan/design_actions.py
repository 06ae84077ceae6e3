"""A site action that runs a design revision: what happens before it is
queued.

1. The target revision: the action's ``target-revision`` parameter, by
   default ``committed``. A version that does not exist stops here (404),
   as does a bad name (400), and nothing starts.
2. The intermediate-commit guard (:mod:`..designs.versions`), unless
   ``allow-intermediate-commits`` is true, which the action's log says.
3. The revision's design: the strategy its deployment configuration
   names, and its inventory.
4. The documents' ``yaql_exp`` fields are computed
   (:mod:`.computed_fields`) over the revision, Ironside's nodes now and
   the design of the last successful site action
   (:mod:`.site_context`), those computed per node on every node of the
   inventory: an expression that fails refuses the action (400) before
   anything is touched. Nodes of the inventory held by an unfinished
   action refuse the whole action (409) too.
5. The inventory is applied: nodes that do not exist are enrolled (name,
   driver, driver_info, properties, resource class), and the ``extra``
   fields ``rack``, ``tags``, ``labels`` and ``roles`` of the others are
   set to the design's, the rest of ``extra`` kept. Nodes outside the
   inventory are never touched.
6. What the plan is built from (:func:`.build.build_plan`): the
   strategy and every task graph of the design, each inventory node's
   ``os_access`` with the private key it names, and the inventory's
   nodes (each group's selectors and roles are resolved against them,
   as the design describes them); the action is stored with its
   revision.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from ironside.common import exception
from ironside.db import models
from ironside.db import site as site_db
from ironside.strategy import expressions
from ironside.strategy.core.paths import Path
from ironside.strategy.core.selectors import SiteNode
from ironside.strategy.designs import store
from ironside.strategy.designs import versions
from ironside.strategy.designs.checks import LinesOf
from ironside.strategy.designs.design import Design
from ironside.strategy.nodes import seam
from ironside.strategy.plan import computed_fields
from ironside.strategy.plan import parameters as action_parameters
from ironside.strategy.plan import site_context
from ironside.strategy.plan.computed_fields import ComputedFields
from ironside.strategy.reader import fuel
from ironside.strategy.reader.action_input import SiteDocument
from ironside.strategy.reader.action_input import TaskAccess
from ironside.strategy.reader.inventory import EXTRA_FIELDS
from ironside.strategy.reader.inventory import InventoryNode
from ironside.strategy.reader.registry import STRATEGY
from ironside.strategy.reader.registry import TASK_GRAPH

LOG = logging.getLogger(__name__)

# Node names listed in one log entry, at most.
_SHOWN = 20


@dataclasses.dataclass(frozen=True)
class Prepared:
    """Everything a design-driven action is created with: what its plan
    is built from (:func:`.build.build_plan`)."""

    revision: int
    # What the action is called: its strategy's name.
    name: str
    # The strategy, then the design's task graphs.
    documents: tuple[SiteDocument, ...]
    # How the inventory's nodes' OS is reached, with the design's keys.
    access: TaskAccess
    # The inventory's nodes, as selectors see them (UUIDs known now).
    site_nodes: list[SiteNode]
    log: list[dict[str, str]]
    # The documents with their fields computed; None without expressions.
    computed: ComputedFields | None = None


def log_entry(message: str) -> dict[str, str]:
    return {'at': models.utcnow().isoformat(), 'message': message}


def _nodes(count: int) -> str:
    return '%d node%s' % (count, '' if count == 1 else 's')


def _names(names: Sequence[str]) -> str:
    shown = ', '.join(names[:_SHOWN])
    if len(names) > _SHOWN:
        shown += ' and %d more' % (len(names) - _SHOWN)
    return shown


def target_revision(params: Mapping[str, Any]) -> int:
    version = params.get(action_parameters.TARGET_REVISION,
                         versions.COMMITTED)
    # Its parameter refuses the buffer (parameters.read_version).
    return versions.committed_revision_of(version)


def _extra(current: Mapping[str, Any], node: InventoryNode
           ) -> dict[str, Any] | None:
    """The node's new ``extra``, or None if it already says it all."""
    wanted = {k: v for k, v in node.extra_fields().items()
              if v not in (None, [], {})}
    extra = {k: v for k, v in current.items() if k not in EXTRA_FIELDS}
    extra.update(wanted)
    return None if extra == dict(current) else extra


def apply_inventory(nodes: seam.PlanNodes, design: Design,
                    only: Collection[str] | None = None
                    ) -> tuple[dict[str, str], list[str]]:
    """Enroll and update the inventory's nodes (or only those named in
    ``only``); their UUIDs by name and what was done, for the action's
    log."""
    inventory = design.nodes
    if only is not None:
        inventory = {n: inventory[n] for n in only if n in inventory}
    known = nodes.find_nodes(sorted(inventory))
    site_db.check_unclaimed([n.uuid for n in known.values()])
    missing = [seam.NewNode(
        name=name, driver=node.driver, driver_info=node.driver_info,
        properties=node.properties, resource_class=node.resource_class,
        extra={k: v for k, v in node.extra_fields().items()
               if v not in (None, [], {})})
        for name, node in sorted(inventory.items()) if name not in known]
    try:
        uuids = nodes.enroll(missing) if missing else {}
    except seam.Rejected as exc:
        raise exception.DesignIncomplete(revision=design.revision,
                                         reason=str(exc)) from None
    updated = []
    for name, found in sorted(known.items()):
        extra = _extra(found.extra, inventory[name])
        if extra is not None:
            try:
                nodes.set_extra(found.uuid, extra)
            except (seam.Busy, seam.Rejected) as exc:
                raise exception.Conflict(
                    'Node %s can not be updated from the design now: %s'
                    % (name, exc)) from None
            updated.append(name)
        uuids[name] = found.uuid
    done = []
    if missing:
        done.append('enrolled %s (%s)' % (
            _nodes(len(missing)), _names([n.name for n in missing])))
    if updated:
        done.append('updated rack, tags, labels and roles of %s (%s)'
                    % (_nodes(len(updated)), _names(updated)))
    unchanged = len(known) - len(updated)
    if unchanged:
        done.append('%s already as the design says' % _nodes(unchanged))
    return uuids, done


def prepare(nodes: seam.PlanNodes, action: str,
            params: Mapping[str, Any],
            only: Collection[str] | None = None,
            design: Design | None = None) -> Prepared:
    """Check and apply a design revision for ``action``; raises before
    changing anything when the action must not start. With ``only``
    (redeploy_server), only those inventory nodes are applied and
    planned. ``design``: the revision's design, when the caller has
    already loaded it to check the action (read once, and the revision
    checked is the one run)."""
    revision = design.revision if design is not None and \
        design.revision is not None else target_revision(params)
    log = [log_entry('Runs design revision %d (target-revision %s)' % (
        revision, params.get(action_parameters.TARGET_REVISION,
                             versions.COMMITTED)))]
    if params.get(action_parameters.ALLOW_INTERMEDIATE_COMMITS):
        found = versions.intermediate_commits(revision)
        skipped = 'allow-intermediate-commits=true: the intermediate-' \
                  'commit check is skipped'
        if found.revisions:
            skipped += ' (it would have refused revision%s %s)' % (
                's' if len(found.revisions) > 1 else '',
                ', '.join(str(r) for r in found.revisions))
        LOG.info('Site action %s on revision %d: %s', action, revision,
                 skipped)
        log.append(log_entry(skipped))
    else:
        versions.check_intermediate_commits(revision)
    if design is None or design.revision != revision:
        design = store.design(revision)
    strategy = design.strategy()
    if not design.nodes:
        raise exception.DesignIncomplete(
            revision=revision, reason='it has no ironside/BaremetalNode/v1 '
                                      'documents, so no nodes to act on')
    documents = run_documents(design)
    computed = None
    if computed_fields.has_expressions(documents):
        context = site_context.for_design(nodes, design, rebuilt=only or ())
        computed = computed_fields.compute(
            documents, expressions.Evaluation(context),
            _revision_lines(design, revision))
        computed.check_per_node(sorted(design.nodes))
        old = context.old.revision if context.old is not None else None
        log.append(log_entry(
            'Computed fields: the site is %s; old state: %s' % (
                context.new.cluster_status,
                'none (no site action has succeeded)' if old is None
                else 'design revision %d' % old)))
    uuids, done = apply_inventory(nodes, design, only)
    log.extend(log_entry('Inventory: %s' % entry) for entry in done)
    site_nodes = sorted((node.site_node(uuids[name])
                         for name, node in design.nodes.items()
                         if name in uuids),
                        key=lambda n: n.name)
    return Prepared(revision, strategy.name, documents,
                    access(design), site_nodes, log, computed)


def _revision_lines(design: Design, revision: int
                    ) -> computed_fields.DocumentLines:
    """The line map of each of the revision's documents an action runs,
    from the texts it was committed from: read (slow) only when an error
    is to be placed, and then once."""
    strategy = design.strategy()
    documents = {(TASK_GRAPH, d.name): d
                 for d in design.documents_of_kind(fuel.KIND.name)}
    found = design.document(strategy.schema, strategy.name)
    if found is not None:
        documents[(STRATEGY, strategy.name)] = found
    read: list[LinesOf] = []

    def lines(document: SiteDocument) -> Mapping[Path, int]:
        design_document = documents.get((document.kind, document.name))
        if design_document is None:
            return {}
        if not read:
            read.append(store.revision_lines(revision))
        return read[0](design_document)
    return lines


def run_documents(design: Design) -> tuple[SiteDocument, ...]:
    """What an action on the design runs: the strategy its configuration
    names, then every task graph of the design."""
    strategy = design.strategy()
    found = design.document(strategy.schema, strategy.name)
    return (SiteDocument(STRATEGY, strategy.name, strategy.document,
                         source=found.source_name if found else None),) + \
        tuple(SiteDocument(TASK_GRAPH, d.name, d.body, source=d.source_name)
              for d in design.documents_of_kind(fuel.KIND.name))


def access(design: Design) -> TaskAccess:
    """Each inventory node's ``os_access``, and the design's private keys
    they name (``identity``)."""
    nodes = {}
    keys = {}
    for name, node in design.nodes.items():
        found = node.os_access
        if found is None:
            continue
        nodes[name] = found
        key = design.private_key(found.identity) if found.identity \
            else None
        if found.identity and key:
            keys[found.identity] = key
    return TaskAccess(nodes, keys=keys)
