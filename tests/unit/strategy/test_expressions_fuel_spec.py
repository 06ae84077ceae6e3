"""Every expression example of spec 004 (computable task fields), as written.

Each runs as the spec describes, or is refused when the design is
committed, with the reason and the line. The spec's text is copied
verbatim below, typographic quotes and all (a rendered document gives
them); where one is refused, the same example as the spec means it
(straight quotes, its parenthesis closed) is in the table too.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest

from ironside.common import exception
from ironside.strategy import expressions
from ironside.strategy.designs import store
from ironside.strategy.plan import site_context
from ironside.strategy.reader.documents import Source
from tests.unit.strategy import expression_sites as sites
from tests.unit.strategy.design_fixtures import configuration
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import stage
from tests.unit.strategy.design_fixtures import strategy

PROBLEM = 'Problem description'
NAILGUN = 'Proposed changes, Nailgun'


def compute_added() -> expressions.Evaluation:
    target = sites.revised(add=('cmp03',))
    return sites.evaluation(target, sites.DEPLOYED,
                            sites.live(target, cmp03='available'))


def labelled_testing() -> expressions.Evaluation:
    """cmp02 labelled ``testing`` since the last deploy."""
    target = sites.revised()
    target = dataclasses.replace(target, nodes=tuple(
        dataclasses.replace(n, labels=dict(n.labels, testing='yes'))
        if n.name == 'cmp02' else n for n in target.nodes))
    return sites.evaluation(target, sites.DEPLOYED)


def scheme(gateway: str) -> dict:
    return {'interfaces': {'eth0': {'mtu': 9000}}, 'endpoints': {
        'br-mgmt': {'IP': ['10.0.3.11/24'], 'routes': [
            {'net': '10.1.0.0/16', 'via': gateway}]},
        'br-ex': {'IP': ['192.0.2.11/24'], 'gateway': '192.0.2.1'}}}


def with_networks(design: expressions.DesignState, **gateways: str
                  ) -> expressions.DesignState:
    """The design with the computes in rack r1, and every node's network
    scheme (its management route through ``gateways[name]``, else
    10.0.3.1)."""
    return dataclasses.replace(design, nodes=tuple(dataclasses.replace(
        n, rack='r1' if 'compute' in n.roles else n.rack,
        network_scheme=scheme(gateways.get(n.name, '10.0.3.1')))
        for n in design.nodes))


def routes_unchanged() -> expressions.Evaluation:
    deployed = with_networks(sites.DEPLOYED)
    return sites.evaluation(with_networks(sites.revised()), deployed)


def compute_routes_changed() -> expressions.Evaluation:
    deployed = with_networks(sites.DEPLOYED)
    return sites.evaluation(
        with_networks(sites.revised(), cmp01='10.0.3.254'), deployed)


def controller_routes_changed() -> expressions.Evaluation:
    deployed = with_networks(sites.DEPLOYED)
    return sites.evaluation(
        with_networks(sites.revised(), ctl01='10.0.3.254'), deployed)


def murano_enabled() -> expressions.Evaluation:
    settings = dict(sites.SETTINGS,
                    additional_components={'murano': {'value': True}})
    return sites.evaluation(sites.revised(settings=settings), sites.DEPLOYED)


@dataclasses.dataclass(frozen=True)
class Example:
    """One expression of the spec and what becomes of it."""

    name: str
    # Where the spec has it.
    section: str
    text: str
    # (scenario, value) pairs, for an example that evaluates.
    values: tuple[tuple[Callable[[], expressions.Evaluation], Any], ...] = ()
    # What the refusal says, for one refused at commit.
    refused: str | None = None
    # What was changed from the spec's text, for an example as meant.
    as_meant: str | None = None


EXAMPLES = (
    # "Here goes an example of 'condition' field computation using
    # YAQL": the controllers' condition, over three lines. True on a
    # first deploy; false on an unchanged site, and false when a
    # controller is added, since the ready controllers are the same
    # before and after (the old state is the site as the last action
    # left it; the README says so and gives the form for additions).
    Example('controllers', PROBLEM,
            "changed($.nodes.where($.status = 'ready' and 'controller' in "
            "$.roles))\nand changed($.nodes.where($.status = 'discover' and "
            "'controller' in\n$.roles and $.pending_addition = true))",
            values=((sites.first_deploy, True), (sites.unchanged, False),
                    (sites.controller_added, False))),
    # "Identify cluster status": bare words are strings in YAQL.
    Example('cluster-status', NAILGUN,
            '$.cluster.status in [operational, new, partially_deployed]',
            values=((sites.first_deploy, True), (sites.unchanged, True))),
    # "Identify node number changes".
    Example('role', NAILGUN,
            "changed($.nodes.where($.role = ‘compute’))",
            refused='typographic quote ‘ at position 31: YAQL strings are '
                    "in straight quotes ('compute')"),
    Example('role-as-meant', NAILGUN,
            "changed($.nodes.where($.role = 'compute'))",
            as_meant='straight quotes',
            values=((compute_added, True), (sites.compute_removed, True),
                    (sites.controller_added, False),
                    (sites.unchanged, False), (sites.first_deploy, True))),
    # "Identify cluster settings changes".
    Example('configs', NAILGUN, 'changed($.configs.nova)',
            values=((sites.nova_changed, True), (sites.unchanged, False),
                    (sites.first_deploy, True))),
    # "Identify node settings changes".
    Example('network-scheme', NAILGUN,
            "changed($.nodes.where($.attribute = ‘r1’)"
            ".network_scheme(‘routes’))",
            refused="typographic quote ‘ at position 36: YAQL strings are "
                    "in straight quotes ('r1')"),
    Example('network-scheme-as-meant', NAILGUN,
            "changed($.nodes.where($.rack = 'r1')"
            ".network_scheme('routes'))",
            as_meant="straight quotes; the spec's placeholder attribute "
                     'is a node field: its rack',
            values=((compute_routes_changed, True),
                    (controller_routes_changed, False),
                    (routes_unchanged, False))),
    # "Identify changes of nodes with particular labels" (the spec
    # leaves the first parenthesis open).
    Example('label', NAILGUN,
            "changed($.nodes.where($.label = ‘testing’)",
            refused="typographic quote ‘ at position 32: YAQL strings are "
                    "in straight quotes ('testing')"),
    Example('label-as-meant', NAILGUN,
            "changed($.nodes.where($.label = 'testing'))",
            as_meant='straight quotes, the parenthesis closed',
            values=((labelled_testing, True), (sites.unchanged, False))),
    # "Identify expected or deployed value of existing parameters".
    Example('new-false', NAILGUN,
            'new($.configs.nova.parameter.value) = False',
            values=((sites.nova_changed, True), (sites.unchanged, False))),
    Example('old-true', NAILGUN,
            'old($.configs.nova.parameter.value) = True',
            values=((sites.nova_changed, True), (sites.unchanged, True),
                    (sites.first_deploy, False))),
    # "Identify actual value of existing settings".
    Example('settings', NAILGUN,
            'new($.settings.additional_components.murano.value) = True',
            values=((murano_enabled, True), (sites.unchanged, False))),
    # "we can specify the condition for a task to be run only for nodes
    # addition/deletion by the expression".
    Example('nodes', NAILGUN, 'changed($.nodes)',
            values=((sites.controller_added, True),
                    (sites.compute_removed, True), (sites.unchanged, False),
                    (sites.first_deploy, True))),
)

EVALUATED = [(example, scenario, value) for example in EXAMPLES
             for scenario, value in example.values]


@pytest.mark.parametrize(
    'example, scenario, value', EVALUATED,
    ids=['%s-%s' % (e.name, s.__name__) for e, s, _v in EVALUATED])
def test_spec_example_evaluates_as_the_spec_describes(example, scenario,
                                                      value):
    assert scenario().evaluate(example.text) is value


def task_graph_text(examples: tuple[Example, ...]) -> tuple[str, dict]:
    """A task graph document with one task per example, its condition
    the example's text; and the line of each task's condition."""
    lines = ['schema: ironside/TaskGraph/v1', 'metadata:',
             '  schema: metadata/Document/v1', '  name: spec-004',
             'data:', '  tasks:']
    condition_lines = {}
    for example in examples:
        lines += ['  - id: %s' % example.name, '    type: shell',
                  "    role: '*'"]
        condition_lines[example.name] = len(lines) + 1
        lines += ['    condition:', '      yaql_exp: %s'
                  % json.dumps(example.text, ensure_ascii=False),
                  "    parameters: {cmd: 'true'}"]
    return '\n'.join(lines) + '\n', condition_lines


def commit_examples(examples: tuple[Example, ...]) -> int:
    stage('site', configuration(), strategy(groups=[]))
    store.stage('tasks', [Source('spec-004.yaml',
                                 task_graph_text(examples)[0])])
    return store.commit().revision


def test_spec_examples_refused_at_commit_with_the_reason_and_line(db):
    with pytest.raises(exception.InvalidDesign) as err:
        commit_examples(EXAMPLES)
    condition_lines = task_graph_text(EXAMPLES)[1]
    issues = {i.error.task: i for i in err.value.issues
              if i.severity == 'error'}
    refused = {e.name: e for e in EXAMPLES if e.refused}
    # Exactly the refused examples; every other one is accepted.
    assert sorted(issues) == sorted(refused)
    for name, example in refused.items():
        issue = issues[name]
        assert issue.source == 'spec-004.yaml'
        assert issue.error.document == 'spec-004'
        assert issue.error.field == 'condition'
        assert issue.error.line == condition_lines[name], name
        assert example.text in issue.error.message
        assert example.refused in issue.error.message
    assert store.revisions() == []


def test_spec_examples_as_meant_are_committed(db):
    accepted = tuple(e for e in EXAMPLES if not e.refused)
    assert commit_examples(accepted) == 1


def test_settings_are_laid_out_as_fuel_sections(db):
    """Fuel's settings are sections of settings, each with its value; a
    design's Settings document is one section, named after it."""
    stage('site', configuration(), strategy(groups=[]), {
        'schema': 'ironside/Settings/v1',
        'metadata': {'schema': 'metadata/Document/v1',
                     'name': 'additional_components'},
        'data': {'murano': {'value': True}, 'sahara': {'value': False}}})
    design = store.design(store.commit().revision)
    context = expressions.build_context(
        site_context.design_state(design), [], None)
    evaluation = expressions.Evaluation(context)
    assert evaluation.evaluate(
        'new($.settings.additional_components.murano.value) = True') is True
    assert evaluation.evaluate(
        '$.settings.additional_components.sahara.value = False') is True


def test_network_schemes_come_from_the_inventory(db):
    """A BaremetalNode document's network_scheme is its node's, read by
    ``network_scheme()``; one that is not a mapping is refused."""
    def node_with(scheme: Any) -> dict:
        return node('cmp01', roles=['compute'], network_scheme=scheme)

    stage('site', configuration(), strategy())
    stage('nodes', node_with('br-mgmt'), name='nodes.yaml')
    with pytest.raises(exception.InvalidDesign) as err:
        store.commit()
    (issue,) = err.value.issues
    assert (issue.error.document, issue.error.field) == (
        'cmp01', 'data.network_scheme')
    stage('nodes', node_with({'endpoints': {'br-mgmt': {
        'IP': ['10.0.3.31/24'], 'routes': [{'net': '10.1.0.0/16',
                                            'via': '10.0.3.1'}]}}}),
          name='nodes.yaml')
    design = store.design(store.commit().revision)
    context = expressions.build_context(
        site_context.design_state(design), [], None)
    assert expressions.Evaluation(context).evaluate(
        "$.nodes.where($.role = 'compute').network_scheme('routes')") == [
        {'br-mgmt': [{'net': '10.1.0.0/16', 'via': '10.0.3.1'}]}]
