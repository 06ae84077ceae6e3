"""The layers import downward only (DESIGN.md): a test, so that a
shortcut through a layer is caught when it is written."""

from __future__ import annotations

import ast
import pathlib

import pytest

import ironside

PACKAGE = pathlib.Path(ironside.__file__).parent

# Layer → the Ironside packages its modules must not import.
FORBIDDEN = {
    'common': ('api', 'conductor', 'db', 'drivers', 'strategy', 'osc'),
    'db': ('api', 'conductor', 'drivers', 'strategy', 'osc'),
    'drivers': ('api', 'conductor', 'db', 'strategy', 'osc'),
    'conductor': ('api', 'strategy', 'osc'),
}


def _imports(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.level == 0:
            found.append(node.module)
    return found


@pytest.mark.parametrize('layer', sorted(FORBIDDEN))
def test_layer_imports_downward_only(layer):
    wrong = []
    for path in sorted((PACKAGE / layer).rglob('*.py')):
        for module in _imports(path):
            parts = module.split('.')
            if parts[0] == 'ironside' and len(parts) > 1 and \
                    parts[1] in FORBIDDEN[layer]:
                wrong.append('%s imports %s'
                             % (path.relative_to(PACKAGE), module))
    assert not wrong, '\n'.join(wrong)
