"""The ``openstack site`` plugin is a client: it imports no server module.

An operator's workstation installs the client to talk to the API; it
must not load the database models, the conductor or the site layer
(nor SQLAlchemy), which would also tie the client to the server's
version. Both the imports the code names (followed through every
Ironside module they reach) and what importing the plugin loads are
checked.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OSC = ROOT / 'ironside' / 'osc'
FORBIDDEN = ('ironside.db', 'ironside.conductor', 'ironside.strategy',
             'ironside.api', 'ironside.drivers', 'ironside.cmd',
             'sqlalchemy', 'oslo_db', 'alembic')


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + '.') for f in FORBIDDEN)


def _module_file(name: str) -> pathlib.Path | None:
    path = ROOT.joinpath(*name.split('.'))
    for candidate in (path.with_suffix('.py'), path / '__init__.py'):
        if candidate.exists():
            return candidate
    return None


def _imports(name: str, path: pathlib.Path) -> set[str]:
    """Every module ``name`` imports, and the packages above them."""
    found = set()
    package = name if path.name == '__init__.py' else name.rpartition('.')[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')[:len(package.split('.')) -
                                          node.level + 1]
                base = '.'.join(parts + ([base] if base else []))
            found.add(base)
            found.update('%s.%s' % (base, alias.name) for alias in node.names)
    parents = {'.'.join(n.split('.')[:i]) for n in found
               for i in range(1, n.count('.') + 1)}
    return found | parents


def test_the_plugin_names_no_server_module():
    seen: dict[str, str] = {}
    todo = [('ironside.osc.' + p.stem if p.stem != '__init__'
             else 'ironside.osc', 'ironside.osc') for p in OSC.glob('*.py')]
    todo.append(('ironside', 'ironside.osc'))
    while todo:
        name, by = todo.pop()
        if name in seen:
            continue
        seen[name] = by
        path = _module_file(name) if name.split('.')[0] == 'ironside' \
            else None
        if path is not None:
            todo += [(imported, name) for imported in _imports(name, path)]
    bad = sorted('%s (imported by %s)' % (name, by)
                 for name, by in seen.items() if _forbidden(name))
    assert bad == []


def test_loading_the_plugin_loads_no_server_module():
    modules = ['ironside.osc.' + p.stem for p in sorted(OSC.glob('*.py'))
               if p.stem != '__init__']
    code = ('import sys\n' +
            ''.join('import %s\n' % m for m in modules) +
            'print("\\n".join(sorted(sys.modules)))\n')
    loaded = subprocess.run([sys.executable, '-c', code], check=True,
                            capture_output=True, text=True,
                            cwd=ROOT).stdout.split()
    assert [name for name in loaded if _forbidden(name)] == []
