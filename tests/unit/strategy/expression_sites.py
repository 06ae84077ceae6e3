"""A small site in the states the expression tests evaluate on.

Three controllers and two computes, deployed once (the design of the last
successful action, ``DEPLOYED``), and the changes an operator makes:
a controller added, a compute removed, ``nova`` reconfigured, nothing
changed, and the first deploy of a site without any successful action.
"""

from __future__ import annotations

import dataclasses

from ironside.strategy import expressions

CONTROLLERS = ('ctl01', 'ctl02', 'ctl03')
COMPUTES = ('cmp01', 'cmp02')

CONFIGS = {
    'nova': {'parameter': {'value': True}, 'workers': 8},
    'keystone': {'token_ttl': 3600},
}
SETTINGS = {'additional_components': {'murano': {'value': False}},
            'ntp': ['pool.ntp.org']}


def node(name: str) -> expressions.DesignNode:
    controller = name.startswith('ctl')
    return expressions.DesignNode(
        name=name, roles=('controller',) if controller else ('compute',),
        groups=('control-nodes',) if controller else ('compute-nodes',),
        rack='rack01' if controller else 'rack02',
        tags=('control',) if controller else (),
        labels={'zone': 'a'}, properties={'cpus': 8})


DEPLOYED = expressions.DesignState(
    nodes=tuple(node(n) for n in CONTROLLERS + COMPUTES),
    configs=CONFIGS, settings=SETTINGS, revision=1)


def revised(design: expressions.DesignState = DEPLOYED, *,
            add: tuple[str, ...] = (), remove: tuple[str, ...] = (),
            configs: dict | None = None, settings: dict | None = None
            ) -> expressions.DesignState:
    """The design with nodes added or removed and documents replaced."""
    nodes = tuple(n for n in design.nodes if n.name not in remove) + \
        tuple(node(n) for n in add)
    return dataclasses.replace(
        design, nodes=nodes, configs=configs or design.configs,
        settings=settings or design.settings,
        revision=(design.revision or 0) + 1)


def live(design: expressions.DesignState, state: str = 'active',
         **states: str) -> list[expressions.LiveNode]:
    """Ironside's nodes of a design, all in ``state`` but those named."""
    return [expressions.LiveNode(name=n.name, uuid='uuid-' + n.name,
                                 provision_state=states.get(n.name, state))
            for n in design.nodes]


def evaluation(target: expressions.DesignState,
               deployed: expressions.DesignState | None,
               nodes: list[expressions.LiveNode] | None = None,
               engine=None) -> expressions.Evaluation:
    if nodes is None:
        nodes = live(target) if deployed is not None else \
            live(target, 'available')
        known = {n.name for n in nodes}
        nodes += [n for n in live(deployed or target)
                  if n.name not in known]
    context = expressions.build_context(target, nodes, deployed)
    return expressions.Evaluation(context, engine=engine)


def first_deploy() -> expressions.Evaluation:
    return evaluation(DEPLOYED, None)


def unchanged() -> expressions.Evaluation:
    return evaluation(DEPLOYED, DEPLOYED)


def controller_added() -> expressions.Evaluation:
    target = revised(add=('ctl04',))
    return evaluation(target, DEPLOYED,
                      live(target, ctl04='available'))


def compute_removed() -> expressions.Evaluation:
    return evaluation(revised(remove=('cmp02',)), DEPLOYED, live(DEPLOYED))


def nova_changed() -> expressions.Evaluation:
    configs = dict(CONFIGS, nova={'parameter': {'value': False},
                                  'workers': 8})
    return evaluation(revised(configs=configs), DEPLOYED)
