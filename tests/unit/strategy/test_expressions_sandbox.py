"""The expressions' sandbox, their functions as plugins, and memoised
lambdas giving what YAQL gives."""

from __future__ import annotations

import logging
import socket
import textwrap
import threading

import hypothesis
import pytest
import stevedore
import yaql
from hypothesis import strategies as st
from yaql.language import factory

from ironside.common import exception
from ironside.strategy.expressions import data
from ironside.strategy.expressions import engine as expression_engine
from ironside.strategy.expressions import functions
from ironside.strategy.expressions import memo
from ironside.strategy.expressions import sandbox
from tests.unit.strategy import expression_sites as sites


def refusal(text: str, evaluation=None) -> str:
    evaluation = evaluation or sites.unchanged()
    with pytest.raises(exception.ExpressionFailed) as raised:
        evaluation.evaluate(text)
    return raised.value.error.message


# Isolation

@pytest.mark.parametrize('text', [
    '$.configs.__class__', "$.configs.nova.parameter.value.__class__",
    "''.__class__.__mro__", '$.__dict__', '__import__',
])
def test_python_attributes_are_not_even_tokens(text):
    assert refusal(text).startswith("Lexical error: illegal character '_'")


@pytest.mark.parametrize('text, message', [
    ("$.cluster.status.upper", 'Unknown function "#property#upper"'),
    ('$.nodes.len().real', 'Unknown function "#property#real"'),
    ("'{0.__class__}'.format(1)", 'No method "format" for receiver '
                                  '{0.__class__} matches supplied arguments'),
    ("'%s'.format($)", 'No method "format" for receiver %s matches '
                       'supplied arguments'),
    ("open('/etc/passwd')", 'unknown function "open"'),
    ("import('os')", 'unknown function "import"'),
    ("getattr($, 'configs')", 'unknown function "getattr"'),
    ("eval('1')", 'unknown function "eval"'),
    ("call('#get_context_data', ['$%scope'], {})",
     'No function "#get_context_data" matches supplied arguments'),
    ('$%scope', "Lexical error: illegal character '%' at position 1"),
])
def test_no_way_to_python_objects_files_or_the_network(text, message):
    assert refusal(text) == message


def test_expressions_cannot_reach_a_listening_socket():
    """A real socket listens on loopback; every way an expression could
    name a connection is refused, and nothing ever connects."""
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(8)
    listener.settimeout(0.2)
    url = 'http://127.0.0.1:%d/' % listener.getsockname()[1]
    try:
        for text in ("urlopen('%s')" % url, "get('%s')" % url,
                     "socket('127.0.0.1', %d)" % listener.getsockname()[1],
                     "call('urlopen', ['%s'], {})" % url,
                     "$.configs.nova.select(urlopen('%s'))" % url,
                     "import('urllib.request').urlopen('%s')" % url):
            refusal(text)
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()


def test_the_evaluation_scope_is_unreachable():
    """The scope is kept under a name YAQL cannot spell; keys and values
    of the context hold only the site's data."""
    evaluation = sites.unchanged()
    assert evaluation.evaluate('$.keys()') == ['nodes', 'configs',
                                               'settings', 'cluster']
    assert evaluation.evaluate('let(x => $) -> $x.keys().len()') == 4


# Limits

def test_a_huge_range_is_refused():
    assert refusal('range(1000000000).len()') == \
        'Collection length exceeds %d elements' % sandbox.MAX_COLLECTION_SIZE
    assert refusal('list(range(200000))') == \
        'Collection length exceeds 100000 elements'


@pytest.mark.parametrize('text', [
    "'a' * 1000000000",
    "range(100).aggregate($1 + $1, 'ab')",
    "range(60).aggregate($1 + $1, [1, 2])",
])
def test_huge_strings_and_lists_are_refused(text):
    assert refusal(text) in ('Expression consumed too much memory',
                             'Collection length exceeds 100000 elements')


@pytest.mark.parametrize('text', [
    'pow(10, 100000000)', 'range(40).aggregate($1 * $1, 3)',
    'pow(2, 65537)',
])
def test_huge_integers_are_refused(text):
    assert refusal(text) == 'integer of more than 65536 bits refused'


def test_pow_of_small_numbers_still_works():
    evaluation = sites.unchanged()
    assert evaluation.evaluate('pow(2, 10)') == 1024
    assert evaluation.evaluate('pow(2, 100, 7)') == 2
    assert evaluation.evaluate('pow(-1, 100000000)') == 1
    assert evaluation.evaluate('6 * 7') == 42


def test_recursion_is_refused():
    assert refusal('def(f, f()) -> f()') == \
        'RecursionError: maximum recursion depth exceeded'


def test_an_evaluation_that_runs_too_long_is_stopped():
    engine = expression_engine.Engine(time_limit=0.2)
    evaluation = sites.evaluation(sites.DEPLOYED, None, engine=engine)
    assert refusal('range(90000).select($ * 2 + 1).sum()', evaluation) == \
        'evaluation took longer than 0.2 s'
    assert evaluation.evaluate('range(10).sum()') == 45


# Functions as plugins

def test_built_in_functions_come_through_the_entry_points():
    loaded = expression_engine.load_functions()
    for name in ('new', 'old', 'changed', 'changed_all', 'changed_any',
                 'added', 'deleted', 'is_undef', 'to_json', 'to_yaml'):
        assert getattr(functions, name) in loaded
    bare = expression_engine.Engine(functions=[])
    assert bare.check('changed($.nodes)')[1] == 'unknown function "changed"'


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A distribution installed in a directory of sys.path, declaring one
    good and one broken function."""
    (tmp_path / 'ironside_test_functions.py').write_text(textwrap.dedent('''
        from yaql.language import specs

        @specs.parameter('part', int)
        @specs.parameter('whole', int)
        def percent_of(part, whole):
            return 100 * part // whole if whole else 0

        def now():
            return 'pinned'
    '''))
    info = tmp_path / 'ironside_test_functions-1.0.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text(
        'Metadata-Version: 2.1\nName: ironside-test-functions\n'
        'Version: 1.0\n')
    (info / 'entry_points.txt').write_text(textwrap.dedent('''
        [ironside.site.expression_functions]
        percentOf = ironside_test_functions:percent_of
        now = ironside_test_functions:now
        broken = ironside_test_functions:no_such_function
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    # stevedore keeps the entry points it read for the process's life.
    monkeypatch.setattr(stevedore.ExtensionManager, 'ENTRY_POINT_CACHE', {})
    return tmp_path


def test_a_plugin_function_is_loaded_and_used(plugin, caplog):
    with caplog.at_level(logging.ERROR):
        engine = expression_engine.Engine()
    assert 'Expression function broken' in caplog.text
    evaluation = sites.evaluation(sites.revised(add=('ctl04',)),
                                  sites.DEPLOYED, engine=engine)
    text = ("percentOf($.nodes.where($.status = 'ready').len(), "
            "$.nodes.len())")
    assert evaluation.evaluate(text) == 83
    assert evaluation.evaluate('changed($.nodes)') is True
    assert engine.check('broken()')[1] == 'unknown function "broken"'
    # A plugin function named like a standard one wins.
    assert evaluation.evaluate('now()') == 'pinned'
    assert expression_engine.get_engine().check(text)[1] == \
        'unknown function "percentOf"'


# One engine, shared by threads

def test_one_engine_per_process():
    assert expression_engine.get_engine() is expression_engine.get_engine()
    assert sites.unchanged().engine is expression_engine.get_engine()


def test_evaluations_in_threads_share_the_engine():
    texts = ['changed($.nodes.where($.rack = "rack0%d"))' % i
             for i in range(1, 4)] + ['%d + %d' % (i, i) for i in range(40)]
    failures = []

    def run() -> None:
        try:
            evaluation = sites.controller_added()
            for text in texts:
                evaluation.evaluate(text)
            assert evaluation.evaluate('39 + 39') == 78
            assert evaluation.evaluate(texts[0]) is True
        except Exception as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# Memoised lambdas answer as YAQL does

_PLAIN_ENGINE = factory.YaqlFactory().create()
_PLAIN_CONTEXT = yaql.create_context()

LAMBDAS = [
    '$.items.where($.a = 1)',
    '$.items.where($.a > $.b or $.name = "n1").name',
    '$.items.select($.a + 1)',
    '$.items.select([$.a, $.tags])',
    '$.items.where($.tags.contains("x")).name',
    '$.items.where($.tags.any($ = "y")).len()',
    '$.items.any($.b = 2)',
    '$.items.all($.a != null)',
    '$.items.where($ = $).len()',
    '$.items.where($.a in $.items.a).name',
    '$.items.select($.b).where($ != null)',
    '$.items.where($1.a = 2).a',
    '$.items.where(let(k => $.a) -> $k = 0).name',
    '$.items.groupBy($.a).select($[0])',
    '$.items.select([$.a, $.get("b")])',
    '$.items.where($.a = 1 and $.get("name") = "n1").b',
    '$.items.select($.a + $["b"])',
    '$.items.select({a => $.a, all => $})',
]

ITEMS = st.lists(st.fixed_dictionaries({
    'name': st.sampled_from(['n1', 'n2', 'n3']),
    'a': st.one_of(st.none(), st.integers(0, 3)),
    'b': st.integers(0, 3),
    'tags': st.lists(st.sampled_from(['x', 'y']), max_size=2),
}), max_size=12)


_PLAIN_PARSED = {text: _PLAIN_ENGINE(text) for text in LAMBDAS}
_OUR_PARSED = {text: expression_engine.get_engine().parse(text)
               for text in LAMBDAS}


def _plain_yaql(text, value):
    try:
        return _PLAIN_PARSED[text].evaluate(
            data=value, context=_PLAIN_CONTEXT.create_child_context())
    except Exception as exc:
        return type(exc)


def _ours(text, value):
    context = expression_engine.get_engine().context()
    context['$'] = data.freeze(value)
    try:
        return _OUR_PARSED[text].evaluate(context=context)
    except Exception as exc:
        return type(exc)


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(items=ITEMS)
def test_memoised_lambdas_give_what_yaql_gives(items):
    value = {'items': items}
    for text in LAMBDAS:
        assert _ours(text, value) == _plain_yaql(text, value), text


@pytest.mark.parametrize('text, keys', [
    ("$.status = 'ready' and 'controller' in $.roles", ('status', 'roles')),
    ('$1.a + $.b', ('a', 'b')),
    ('$.a = $x', ('a',)),
    ("$.a = 1 and $.get('b')", None),
    ('$.a and $', None),
    ('$.a > random()', None),
    ('$?.a', None),
    ('42', ()),
])
def test_projection(text, keys):
    parsed = expression_engine.get_engine().parse(text)
    assert memo.projection(parsed, memo.ELEMENT) == keys


def test_a_memoised_lambda_is_evaluated_once_per_projection():
    calls = []

    class Counted:
        def __init__(self, expression):
            self.__unwrapped__ = expression

        def __call__(self, element):
            calls.append(element)
            return element['a'] > 1

    expression = expression_engine.get_engine().parse('$.a > 1').expression
    predicate = memo.memoised(Counted(expression))
    elements = [data.freeze({'a': i % 3, 'name': str(i)}) for i in range(30)]
    assert [predicate(e) for e in elements] == [i % 3 > 1 for i in range(30)]
    assert len(calls) == 3
