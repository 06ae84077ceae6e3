"""An expression's error reads the same whether a commit or an action
found it: the document, ``task "X"`` or ``group "Y"``, the field, the node
it failed on, and the expression's line in the document as committed."""

from __future__ import annotations

import textwrap

import pytest
import sqlalchemy as sa

from ironside.common import exception
from ironside.db import session as db_session
from ironside.db.design_models import DesignRevision
from ironside.db.design_models import DesignRevisionDocument
from ironside.strategy import actions
from ironside.strategy.plan import computed_fields
from ironside.strategy.reader import fuel
from ironside.strategy.reader.registry import TASK_GRAPH
from ironside.strategy.reader.source import read_documents
from tests.unit.strategy import expression_sites
from tests.unit.strategy.conftest import fault
from tests.unit.strategy.test_computed_fields_actions import TASKS
from tests.unit.strategy.test_computed_fields_actions import commit

GRAPH = textwrap.dedent("""\
    schema: ironside/TaskGraph/v1
    metadata:
      name: site-tasks
    data:
      tasks:
        - id: controller
          type: group
          role: [controller]
          parameters:
            strategy:
              type: {yaql_exp: "%(group)s"}
        - id: nova
          type: shell
          groups: [controller]
          condition: {yaql_exp: "%(condition)s"}
          parameters: {cmd: record nova}
    """)


def graph(condition: str = 'true', group: str = "'parallel'") -> str:
    return GRAPH % {'condition': condition, 'group': group}


def line_of(text: str, expression: str) -> int:
    """The line of ``text`` holding ``expression`` (1-based)."""
    (number,) = [n for n, line in enumerate(text.splitlines(), 1)
                 if expression in line]
    return number


def computed_error(text: str) -> str:
    """The error computing the graph's fields at action create, the
    reader's checks left aside (as a revision, checked at commit)."""
    (source,) = read_documents(text)
    document = computed_fields.SiteDocument(
        TASK_GRAPH, 'site-tasks', source.data, source.lines)
    with pytest.raises(exception.ExpressionFailed) as raised:
        computed_fields.compute([document], expression_sites.unchanged())
    return str(raised.value)


def test_the_same_error_reads_the_same_at_commit_and_at_action_create():
    text = graph(condition='nosuch($.configs.nova)')
    (source,) = read_documents(text)
    errors, _warnings = fuel.check(source.data, source.lines, 'site-tasks')
    (at_commit,) = errors
    at_create = computed_error(text)
    line = line_of(text, 'nosuch(')
    assert str(at_commit) == at_create
    assert at_create.startswith(
        'document "site-tasks", task "nova", field "condition": '
        'expression "nosuch($.configs.nova)": ')
    assert at_create.endswith('(line %d)' % line)


def test_a_group_is_named_a_group():
    text = graph(group='nosuch()')
    message = computed_error(text)
    assert message.startswith('document "site-tasks", group "controller", '
                              'field "parameters.strategy.type": ')
    assert message.endswith('(line %d)' % line_of(text, 'nosuch()'))


def test_documents_given_directly_are_placed_on_their_line(graph_site):
    graph_site.add_roles({'controller': ['c1', 'c2']})
    text = graph(condition='$.configs.nova.workers / 0 > 1')
    with pytest.raises(exception.ExpressionFailed) as raised:
        actions.create_action(graph_site.nodes, 'deploy_site',
                              documents=[text])
    assert str(raised.value).startswith(
        'document "site-tasks", task "nova", field "condition": ')
    assert str(raised.value).endswith(
        '(line %d)' % line_of(text, '/ 0 > 1'))


# A design revision: the line of the text it was committed from

NOVA = "changed($.configs.nova)"


def test_a_revision_error_names_the_line_the_commit_names(graph_site):
    with pytest.raises(exception.InvalidDesign) as refused:
        commit(tasks=TASKS.replace(NOVA, 'nosuch($.configs.nova)'))
    (issue,) = [i for i in refused.value.issues if i.severity == 'error']
    commit(tasks=TASKS.replace(NOVA, '$.configs.nova.workers / 0 > 1'))
    with pytest.raises(exception.ExpressionFailed) as raised:
        actions.create_action(graph_site.nodes, 'deploy_site')
    message = str(raised.value)
    assert str(issue).startswith(
        'collection "site", file "input.yaml", schema '
        '"ironside/TaskGraph/v1", document "site", task "nova", field '
        '"condition": ')
    assert message.startswith(
        'file "input.yaml", document "site", task "nova", field '
        '"condition": ')
    assert issue.error.line is not None
    assert raised.value.error.line == issue.error.line
    assert message.endswith('(line %d)' % issue.error.line)


def test_a_node_dependent_failure_names_the_node_and_the_line(graph_site):
    tasks = TASKS.replace('condition: {yaql_exp: "$node.pending_addition"}',
                          'condition: {yaql_exp: "$node.name / 2"}')
    commit(tasks=tasks)
    with pytest.raises(exception.ExpressionFailed) as raised:
        actions.create_action(graph_site.nodes, 'deploy_site')
    message = str(raised.value)
    assert message.startswith('file "input.yaml", document "site", task '
                              '"join", field "condition", node "cmp01": '
                              'expression "$node.name / 2": ')
    assert raised.value.error.line is not None
    assert message.endswith('(line %d)' % raised.value.error.line)


def test_the_api_400_carries_the_place_and_line(client):
    commit(tasks=TASKS.replace(NOVA, '$.configs.nova.workers / 0 > 1'))
    response = client.simulate_post('/site/v1/actions',
                                    json={'action': 'deploy_site'})
    assert response.status_code == 400
    message = fault(response)
    assert message.startswith(
        'file "input.yaml", document "site", task "nova", field '
        '"condition": ')
    assert '(line ' in message


def test_computed_parameters_refused_by_the_plan_name_the_line(graph_site):
    """Checked when the plan is built, after the fields are computed."""
    tasks = TASKS.replace("""'record join ' + $node.name + ' of ' +
                      str(len($.nodes.where('controller' in $.roles)))""",
                          "len($node.name)")
    commit(tasks=tasks)
    with pytest.raises(exception.ExpressionFailed) as raised:
        actions.create_action(graph_site.nodes, 'deploy_site')
    message = str(raised.value)
    assert message.startswith('file "input.yaml", document "site", task '
                              '"join", field "parameters", node "ctl01": ')
    assert raised.value.error.line is not None
    assert message.endswith('(line %d)' % raised.value.error.line)


def test_a_computed_value_a_field_can_not_hold_names_the_line(graph_site):
    tasks = TASKS.replace("  requires: [database]\n",
                          "  requires: {yaql_exp: '3'}\n")
    commit(tasks=tasks)
    with pytest.raises(exception.InvalidTaskGraph) as raised:
        actions.create_action(graph_site.nodes, 'deploy_site')
    (error,) = raised.value.errors
    assert (error.document, error.task, error.field) == (
        'site', 'rabbitmq', 'requires')
    assert error.line is not None
    assert 'expression "3" computed 3' in str(error)


def test_a_revision_that_kept_no_texts_is_placed_without_a_line(
        graph_site):
    """Revisions committed before they kept their texts."""
    commit(tasks=TASKS.replace(NOVA, '$.configs.nova.workers / 0 > 1'))
    with db_session.writer() as session:
        session.execute(sa.update(DesignRevision).values(sources=None))
        session.execute(sa.update(DesignRevisionDocument).values(
            source=None, source_index=None))
    with pytest.raises(exception.ExpressionFailed) as raised:
        actions.create_action(graph_site.nodes, 'deploy_site')
    assert str(raised.value).startswith(
        'document "site", task "nova", field "condition": ')
    assert raised.value.error.line is None
