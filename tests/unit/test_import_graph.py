"""tools/import_graph.py: the import graph of ``ironside/``, its cycles and
its imports that point up, on a made-up package and on the site layer."""

from __future__ import annotations

import functools
import importlib.util
import io
import pathlib
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / 'tools' / 'import_graph.py'


def _load_tool():
    spec = importlib.util.spec_from_file_location('import_graph', TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules['import_graph'] = module
    spec.loader.exec_module(module)
    return module


import_graph = _load_tool()


def _package(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _report(root: pathlib.Path, package: str, **kwargs) -> tuple[int, str]:
    modules = import_graph.read_package(root, 'ironside')
    out = io.StringIO()
    problems = import_graph.report(modules, package, False, False, out=out,
                                   **kwargs)
    return problems, out.getvalue()


@pytest.fixture
def tree(tmp_path):
    return _package(tmp_path, {
        'ironside/__init__.py': '',
        'ironside/common/__init__.py': '',
        'ironside/common/a.py': 'from ironside.common import b\n',
        'ironside/common/b.py': '''\
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from ironside.common.a import A
            ''',
        'ironside/db/__init__.py': '',
        'ironside/db/rows.py': '''\
            import json

            def load():
                from ironside.common import a  # deferred: no edge
            from ironside.conductor import manager
            ''',
        'ironside/conductor/__init__.py': '',
        'ironside/conductor/manager.py': 'from ..db import rows\n',
        'ironside/conductor/clean.py': 'from ironside.common import b\n',
    })


def test_a_type_checking_cycle_is_a_cycle(tree):
    problems, text = _report(tree, 'ironside.common')
    assert problems == 1
    assert text.splitlines()[0] == (
        'ironside.common: 3 modules, 1 levels, 2 edges (1 only under '
        'TYPE_CHECKING), 1 cycles, 1 back edges closing them, 0 upward '
        'edges, 0 late imports')
    assert 'cycle: ironside.common.a <-> ironside.common.b' in text


def test_upward_and_late_imports(tree):
    problems, text = _report(tree, 'ironside')
    # The cycle in common, db.rows <-> conductor.manager (a relative
    # import resolved), the upward edge db -> conductor, the late import.
    assert problems == 4
    assert 'ironside.db.rows (ironside.db) -> ironside.conductor.manager ' \
        '(ironside.conductor), line 5' in text
    assert 'ironside.db.rows imports ironside.conductor.manager at line 5' \
        in text
    assert 'ironside.common.a' not in text.split('upward edges (')[1]


def test_a_clean_package_passes(tree):
    problems, text = _report(tree, 'ironside.conductor')
    # manager -> db.rows leaves the package: not counted here.
    assert problems == 0
    assert text.startswith('ironside.conductor: 3 modules, 1 levels, 0 '
                           'edges')


def test_depth_counts_sub_packages_as_one(tree):
    _problems, text = _report(tree, 'ironside', depth=1)
    assert text.startswith('ironside: 4 modules, ')


def test_main_exits_non_zero_on_a_problem(tree, capsys):
    assert import_graph.main(['--root', str(tree), '--package',
                              'ironside.conductor']) == 0
    assert import_graph.main(['--root', str(tree), '--package',
                              'ironside.common']) == 1
    assert 'cycle:' in capsys.readouterr().out


def test_layers_are_compared_at_the_first_difference():
    upward = import_graph.upward
    Edge = import_graph.Edge
    assert upward(Edge('ironside.db.x', 'ironside.api.y', 1, False))
    assert not upward(Edge('ironside.api.y', 'ironside.db.x', 1, False))
    assert upward(Edge('ironside.strategy.reader.x', 'ironside.strategy.run.y',
                       1, False))
    assert not upward(Edge('ironside.strategy.run.y',
                           'ironside.strategy.reader.x', 1, False))


@functools.lru_cache(maxsize=1)
def _ironside() -> dict:
    """Every module of ironside/, read once for the tests below."""
    return import_graph.read_package(ROOT, 'ironside')


def test_the_product_imports_one_way():
    """All of ironside/: no cycle (TYPE_CHECKING imports included), no
    layer importing a higher one, no import at the bottom of a file."""
    modules = _ironside()
    out = io.StringIO()
    problems = import_graph.report(modules, 'ironside', False, False,
                                   out=out)
    assert problems == 0, out.getvalue()


def test_nothing_in_the_product_imports_the_tests():
    modules = _ironside()
    found = [(m.name, i.target) for m in modules.values()
             for i in m.imports + m.deferred
             if i.target.split('.')[0] == 'tests']
    assert found == []
