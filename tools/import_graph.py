#!/usr/bin/env python3
"""The import graph of ``ironside/``: cycles and imports that point up.

Layers import downward only (DESIGN.md, "Layers"). This tool reads every
module of the package with :mod:`ast` (nothing is imported), keeps the
imports that run when a module is loaded — module-level ones, those under
``if TYPE_CHECKING:`` included, since a cycle a type checker sees is still
a cycle for the reader — and reports:

- the graph's size: modules, edges, levels (the longest chain of imports,
  a cycle counted as one module);
- the cycles (strongly connected components of more than one module, or a
  module that imports itself) and the edges that close them;
- the edges from a lower layer to a higher one, against :data:`LAYERS`;
- imports written after the first function or class of a module (an
  import at the bottom of a file hides a cycle).

It exits 1 when it finds any of the last three. ``--package`` narrows the
report (and the verdict) to one package's modules and the imports between
them; ``--graph`` prints every edge. Imports inside functions are not
edges (they run later); ``--deferred`` lists them.

Usage::

    tools/import_graph.py                       # all of ironside/
    tools/import_graph.py --package ironside.strategy --graph
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import pathlib
import sys
from collections.abc import Iterable
from collections.abc import Iterator
from typing import TextIO

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The layer order, lowest first: a module may import its own layer and the
# ones before it, never one after it. An entry is a package (or module)
# name; a pair names a package and the order of the layers inside it.
# DESIGN.md's "Layers" section shows the same order; change both together.
LAYERS: tuple[str | tuple[str, tuple], ...] = (
    'ironside.common',
    'ironside.db',
    'ironside.drivers',
    'ironside.conductor',
    ('ironside.strategy', (
        'ironside.strategy.core',
        'ironside.strategy.progress',
        'ironside.strategy.expressions',
        'ironside.strategy.tasks',
        'ironside.strategy.nodes',
        'ironside.strategy.reader',
        'ironside.strategy.decommission',
        'ironside.strategy.designs',
        'ironside.strategy.plan',
        'ironside.strategy.run',
        'ironside.strategy.actions',
        'ironside.strategy.service',
    )),
    'ironside.api',
    'ironside.osc',
    'ironside.cmd',
    'ironside',
)


@dataclasses.dataclass(frozen=True)
class Import:
    """One ``import`` statement's target as it is written in a module."""

    target: str
    fallback: str | None
    line: int
    type_checking: bool
    late: bool


@dataclasses.dataclass
class Module:
    name: str
    path: pathlib.Path
    imports: list[Import]
    deferred: list[Import]


def module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = list(path.relative_to(root).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == 'TYPE_CHECKING') or \
        (isinstance(test, ast.Attribute) and test.attr == 'TYPE_CHECKING')


def _targets(node: ast.Import | ast.ImportFrom,
             package: str) -> Iterator[tuple[str, str | None]]:
    """The modules an import names, relative ones resolved: ``from a
    import b`` names the module ``a.b`` if there is one, else ``a``."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, None
        return
    base = node.module or ''
    if node.level:
        parts = package.split('.')
        parts = parts[:len(parts) - node.level + 1]
        base = '.'.join(parts + ([base] if base else []))
    for alias in node.names:
        yield '%s.%s' % (base, alias.name), base


def read_module(path: pathlib.Path, root: pathlib.Path) -> Module:
    name = module_name(path, root)
    package = name if path.name == '__init__.py' else name.rpartition('.')[0]
    tree = ast.parse(path.read_text(), str(path))
    module = Module(name, path, [], [])

    def visit(body: Iterable[ast.stmt], type_checking: bool,
              deferred: bool, state: dict[str, bool]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not deferred:
                    state['defined'] = True
                visit(node.body, type_checking, True, state)
                continue
            if isinstance(node, ast.ClassDef):
                if not deferred:
                    state['defined'] = True
                visit(node.body, type_checking, deferred, state)
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found = module.deferred if deferred else module.imports
                for target, fallback in _targets(node, package):
                    found.append(Import(target, fallback, node.lineno,
                                        type_checking,
                                        state['defined'] and not deferred))
                continue
            if isinstance(node, ast.If):
                inner = type_checking or _is_type_checking(node.test)
                visit(node.body, inner, deferred, state)
                visit(node.orelse, type_checking, deferred, state)
                continue
            for field in ('body', 'orelse', 'finalbody', 'handlers'):
                visit(getattr(node, field, []) or [], type_checking,
                      deferred, state)

    visit(tree.body, False, False, {'defined': False})
    return module


def read_package(root: pathlib.Path, top: str) -> dict[str, Module]:
    modules = {}
    for path in sorted((root / top).rglob('*.py')):
        module = read_module(path, root)
        modules[module.name] = module
    return modules


@dataclasses.dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    type_checking: bool


def _resolve(item: Import, modules: dict[str, Module]) -> str | None:
    for name in (item.target, item.fallback):
        if name in modules:
            return name
    return None


def build_edges(modules: dict[str, Module],
                deferred: bool = False) -> list[Edge]:
    """One edge per (importer, imported module), the first line kept.

    Loading ``a.b.c`` loads the package ``a.b`` first; when that
    package's ``__init__`` imports anything itself, the importer depends
    on it too (unless the importer lives inside it)."""
    edges: dict[tuple[str, str], Edge] = {}
    for module in modules.values():
        found = module.imports + (module.deferred if deferred else [])
        for item in found:
            target = _resolve(item, modules)
            if target is None or target == module.name:
                continue
            chain = [target]
            parent = target.rpartition('.')[0]
            while parent:
                if parent in modules and modules[parent].imports and \
                        not (module.name + '.').startswith(parent + '.'):
                    chain.append(parent)
                parent = parent.rpartition('.')[0]
            for name in chain:
                key = (module.name, name)
                known = edges.get(key)
                if known is None or (known.type_checking and
                                     not item.type_checking):
                    edges[key] = Edge(module.name, name, item.line,
                                      item.type_checking)
    return sorted(edges.values(), key=lambda e: (e.source, e.target))


def strongly_connected(nodes: Iterable[str],
                       successors: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(successors.get(start, [])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors.get(child, []))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(sorted(component))
    return result


def closing_edges(nodes: Iterable[str],
                  successors: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The edges a depth-first walk from the top (modules nothing imports
    first, then in name order) finds pointing back to a module still being
    walked: remove them and no cycle is left."""
    state: dict[str, int] = {}
    found = []
    imported = {t for targets in successors.values() for t in targets}
    tops = sorted(n for n in nodes if n not in imported)
    for start in tops + sorted(nodes):
        if start in state:
            continue
        state[start] = 1
        work = [(start, iter(sorted(successors.get(start, []))))]
        while work:
            node, children = work[-1]
            for child in children:
                if state.get(child) == 1:
                    found.append((node, child))
                elif child not in state:
                    state[child] = 1
                    work.append((child,
                                 iter(sorted(successors.get(child, [])))))
                    break
            else:
                state[node] = 2
                work.pop()
    return found


def levels(nodes: list[str], successors: dict[str, list[str]],
           components: list[list[str]]) -> dict[str, int]:
    """Each module's level: 1 for a module importing nothing here, else one
    more than the highest level it imports (a cycle is one module)."""
    component_of = {m: i for i, c in enumerate(components) for m in c}
    level: dict[int, int] = {}
    # Tarjan yields components in reverse topological order: those a
    # component imports come before it.
    for i, component in enumerate(components):
        below = [level[component_of[t]] for m in component
                 for t in successors.get(m, []) if component_of[t] != i]
        level[i] = 1 + max(below, default=0)
    return {m: level[component_of[m]] for m in nodes}


def _layer_key(name: str, layers: tuple = LAYERS,
               prefix: tuple[int, ...] = ()) -> tuple[int, ...] | None:
    """Where ``name`` sits in :data:`LAYERS`: a tuple of positions, one
    per nesting; None when no layer holds it."""
    best = None
    for position, entry in enumerate(layers):
        package, inner = entry if isinstance(entry, tuple) else (entry, ())
        if name == package or name.startswith(package + '.'):
            if best is None or len(package) > len(best[0]):
                best = (package, position, inner)
    if best is None:
        return None
    package, position, inner = best
    key = prefix + (position,)
    if inner and name != package:
        deeper = _layer_key(name, inner, key)
        if deeper is not None:
            return deeper
    return key


def _layer_name(key: tuple[int, ...] | None) -> str:
    if key is None:
        return '(no layer)'
    layers: tuple = LAYERS
    name = ''
    for position in key:
        entry = layers[position]
        name, layers = entry if isinstance(entry, tuple) else (entry, ())
    return name


def upward(edge: Edge) -> bool:
    """Whether ``edge`` goes from a lower layer to a higher one: compared
    at the first nesting where the two differ, within a package of the
    order only (``ironside.strategy.x`` and ``ironside.strategy`` itself,
    its ``__init__``, are compared as one layer)."""
    source = _layer_key(edge.source)
    target = _layer_key(edge.target)
    if source is None or target is None:
        return False
    for a, b in zip(source, target, strict=False):
        if a != b:
            return a < b
    return False


def unplaced(names: Iterable[str]) -> list[str]:
    """Modules of a layered package that no inner layer names."""
    missing = []
    for name in names:
        key = _layer_key(name)
        if key is None:
            continue
        layers: tuple = LAYERS
        for position in key:
            entry = layers[position]
            package, layers = entry if isinstance(entry, tuple) \
                else (entry, ())
        if layers and name != package:
            missing.append(name)
    return missing


def inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + '.')


def collapse(name: str, package: str, depth: int | None) -> str:
    """``name`` cut to ``depth`` parts below ``package`` (None: whole)."""
    if depth is None:
        return name
    keep = len(package.split('.')) + depth
    return '.'.join(name.split('.')[:keep])


def report(modules: dict[str, Module], package: str, show_graph: bool,
           show_deferred: bool, depth: int | None = None,
           out: TextIO | None = None) -> int:
    """Prints the report for ``package``; returns how many problems.

    With ``depth``, a module stands for everything below it: depth 1
    counts each module and sub-package right under ``package`` as one."""
    out = out if out is not None else sys.stdout
    names = sorted({collapse(m, package, depth) for m in modules
                    if inside(m, package)})
    edges = {}
    for edge in build_edges(modules):
        if not (inside(edge.source, package) and
                inside(edge.target, package)):
            continue
        source = collapse(edge.source, package, depth)
        target = collapse(edge.target, package, depth)
        known = edges.get((source, target))
        if source != target and (known is None or known.type_checking):
            edges[source, target] = Edge(source, target, edge.line,
                                         edge.type_checking)
    edges = sorted(edges.values(), key=lambda e: (e.source, e.target))
    successors: dict[str, list[str]] = {m: [] for m in names}
    for edge in edges:
        successors[edge.source].append(edge.target)
    components = strongly_connected(names, successors)
    cycles = [c for c in components
              if len(c) > 1 or c[0] in successors.get(c[0], [])]
    closing = closing_edges(names, successors)
    level = levels(names, successors, components)
    up = [e for e in edges if upward(e)]
    late = [(m.name, i) for m in modules.values() if inside(m.name, package)
            for i in m.imports if i.late and _resolve(i, modules)]
    missing = unplaced(names) if depth is None else []
    type_checking = sum(1 for e in edges if e.type_checking)

    print('%s: %d modules, %d levels, %d edges (%d only under '
          'TYPE_CHECKING), %d cycles, %d back edges closing them, '
          '%d upward edges, %d late imports'
          % (package, len(names), max(level.values(), default=0),
             len(edges), type_checking, len(cycles), len(closing), len(up),
             len(late)), file=out)
    if show_graph:
        print('\nlevels:', file=out)
        for name in sorted(names, key=lambda n: (level[n], n)):
            print('  %2d  %s' % (level[name], name), file=out)
        print('\nedges:', file=out)
        for edge in edges:
            print('  %s -> %s%s' % (edge.source, edge.target,
                                    '  (TYPE_CHECKING)'
                                    if edge.type_checking else ''), file=out)
    for component in cycles:
        print('\ncycle: %s' % ' <-> '.join(component), file=out)
    if closing:
        print('\nback edges (each closes a cycle):', file=out)
        for source, target in closing:
            print('  %s -> %s' % (source, target), file=out)
    if up:
        print('\nupward edges (a lower layer importing a higher one):',
              file=out)
        for edge in up:
            print('  %s (%s) -> %s (%s), line %d'
                  % (edge.source, _layer_name(_layer_key(edge.source)),
                     edge.target, _layer_name(_layer_key(edge.target)),
                     edge.line), file=out)
    if late:
        print('\nlate imports (after the first function or class):',
              file=out)
        for name, item in late:
            print('  %s imports %s at line %d'
                  % (name, _resolve(item, modules), item.line), file=out)
    if missing:
        print('\nmodules in no layer of their package:', file=out)
        for name in missing:
            print('  %s' % name, file=out)
    if show_deferred:
        print('\nimports inside functions (not edges):', file=out)
        for module in modules.values():
            if not inside(module.name, package):
                continue
            for item in module.deferred:
                target = _resolve(item, modules)
                if target:
                    print('  %s imports %s at line %d'
                          % (module.name, target, item.line), file=out)
    return len(cycles) + len(up) + len(late) + len(missing)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--package', action='append',
                        help='report on this package only (repeatable); '
                             'default: ironside')
    parser.add_argument('--graph', action='store_true',
                        help='print every module with its level, and every '
                             'edge')
    parser.add_argument('--deferred', action='store_true',
                        help='list the imports made inside functions')
    parser.add_argument('--depth', type=int,
                        help='count a module or sub-package this many '
                             'levels below the package as one module')
    parser.add_argument('--root', type=pathlib.Path, default=ROOT,
                        help='the directory holding ironside/')
    args = parser.parse_args(argv)
    modules = read_package(args.root, 'ironside')
    problems = 0
    for index, package in enumerate(args.package or ['ironside']):
        if index:
            print()
        problems += report(modules, package, args.graph, args.deferred,
                           args.depth)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
