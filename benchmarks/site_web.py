"""The site web view at scale: one running action of ``--nodes`` nodes in
five groups, shown in headless Chromium.

    python benchmarks/site_web.py --nodes 10000

One process holds a fresh SQLite database, the API (site API and web
view) served by cheroot on a free port, and the action: created over the
in-memory node twin (no conductors, so 10,000 nodes cost nothing but
their rows) and run by the site runner in a thread while the page
watches. Debian's ``chromium`` and ``chromedriver`` drive the page
(``tools/install-system-deps.sh``). Printed, and written to
``benchmarks/results/site-web-<UTC time>.json``:

``first render``
    From navigation to the first report drawn (HTML, scripts, the
    report's GET and the first render).
``update``
    Rendering one new report while the action runs (median and worst);
    ``fetch`` is the GET of the report as the page saw it.
``filter``
    Applying a filter to the node table (typing a name).
``DOM``
    Elements on the page while it shows the action.

The five groups (``site_document``) are those of the web view's browser
test: ntp (critical), control (critical, after ntp), monitoring, and two
compute groups after control, the second also after monitoring and
failing its criteria when ``failing`` of its nodes fail.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import platform
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

RESULTS_DIR = pathlib.Path(__file__).resolve().parent / 'results'
GROUPS = ('ntp', 'control', 'monitoring', 'compute-a', 'compute-b')
EDGES = {('ntp', 'control'), ('control', 'compute-a'),
         ('control', 'compute-b'), ('monitoring', 'compute-b')}


def group_sizes(nodes: int) -> dict[str, int]:
    """Nodes per group: one NTP server, a few control and monitoring
    nodes, the rest compute in two halves."""
    control = max(3, nodes * 4 // 100)
    monitoring = max(2, nodes * 5 // 100)
    rest = nodes - 1 - control - monitoring
    return {'ntp': 1, 'control': control, 'monitoring': monitoring,
            'compute-a': rest - rest // 2, 'compute-b': rest // 2}


def site_document(prefix: str, nodes: int) -> dict:
    """The five groups, selecting nodes by the racks ``node_specs``
    gives them (racks named after the prefix, so sites do not mix)."""
    wave = max(5, nodes // 10)

    def group(name, depends_on=(), critical=False, **more):
        rack = '%s-%s' % (prefix, name)
        return dict({'name': name, 'critical': critical,
                     'depends_on': list(depends_on),
                     'selectors': [{'rack_names': [rack]}]}, **more)
    return {
        'schema': 'ironside/DeploymentStrategy/v1',
        'metadata': {'name': '%s-strategy' % prefix},
        'data': {'groups': [
            group('ntp', critical=True,
                  success_criteria={'minimum_successful_nodes': 1}),
            group('control', ['ntp'], critical=True),
            group('monitoring'),
            group('compute-a', ['control'],
                  strategy={'type': 'parallel', 'amount': wave}),
            group('compute-b', ['control', 'monitoring'],
                  strategy={'type': 'parallel', 'amount': wave},
                  success_criteria={'percent_successful_nodes': 90}),
        ]},
    }


def node_specs(prefix: str, nodes: int, failing: int = 0
               ) -> list[tuple[str, str, bool]]:
    """(name, rack, fails deploy) of every node; the first ``failing``
    nodes of compute-b fail their deploy."""
    specs = []
    index = 0
    for name, size in group_sizes(nodes).items():
        for position in range(size):
            specs.append(('%s-%05d' % (prefix, index),
                          '%s-%s' % (prefix, name),
                          name == 'compute-b' and position < failing))
            index += 1
    return specs


# The measurement

def _serve():
    from cheroot import wsgi

    from ironside.api import app as api_app
    from ironside.api import site as site_api
    server = wsgi.Server(('127.0.0.1', 0), api_app.build_app(
        None, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)]),
        numthreads=4)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    return server, thread


def start_memory_action(nodes: int, in_flight: int = 500,
                        pause: float = 0.25):
    """A running deploy_site over ``nodes`` in-memory nodes, whose
    states are read at most every ``pause`` seconds (so that it runs for
    a while); returns the action's UUID, the event that stops its runner
    and the runner's thread."""
    from ironside.db import site as site_db
    from ironside.strategy import actions
    from ironside.strategy.run import runner
    from tests.unit.strategy import memory_nodes
    from tests.unit.strategy.memory_limit import InFlightLimit

    class SlowNodes(memory_nodes.MemoryNodes):
        def read_states(self, node_uuids):
            time.sleep(pause)
            return super().read_states(node_uuids)

    site = SlowNodes()
    for name, rack, fails in node_specs('scale', nodes,
                                        failing=nodes // 20):
        site.add(name, rack=rack, fail_deploy=fails)
    actions.create_strategy(site_document('scale', nodes))
    row = actions.create_action(site, 'deploy_site', 'scale-strategy')
    assert site_db.claim_action(row.id, 'benchmark', None, None)
    stop = threading.Event()
    action_runner = runner.ActionRunner(row.uuid, 'benchmark', site,
                                        InFlightLimit(in_flight), stop)
    thread = threading.Thread(target=action_runner.run, daemon=True)
    thread.start()
    return row.uuid, stop, thread


STATS_JS = 'return window.Ironside && window.Ironside.stats'


def _wait(driver, condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition(driver)
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError('timed out after %ss waiting for %s' % (timeout, what))


def measure_page(driver, url: str, updates: int = 5,
                 timeout: float = 120) -> dict:
    """Open the action's page and time it: first render, ``updates``
    renders of new reports, a filter, and the DOM's size."""
    driver.get(url)
    _wait(driver, lambda d: (d.execute_script(STATS_JS) or {}).get(
        'firstRenderAt'), timeout, 'the first render')
    _wait(driver, lambda d: d.execute_script(STATS_JS)['renders'] >=
          updates + 1, timeout, '%d updates' % updates)
    stats = driver.execute_script(STATS_JS)
    dom = driver.execute_script(
        'return document.getElementsByTagName("*").length')
    rows = driver.execute_script(
        'return document.querySelectorAll("table.nodes tbody tr").length')
    filter_ms = driver.execute_script('''
        var input = document.getElementById('node-search');
        var started = performance.now();
        input.value = arguments[0];
        input.dispatchEvent(new Event('input'));
        var took = performance.now() - started;
        input.value = '';
        input.dispatchEvent(new Event('input'));
        return took;''', '-0099')
    heap = driver.execute_script(
        'return performance.memory ? performance.memory.usedJSHeapSize : null')
    updates_ms = stats['renderMs'][1:]
    return {
        'first_render_ms': round(stats['firstRenderAt'], 1),
        'update_ms_median': round(statistics.median(updates_ms), 1),
        'update_ms_max': round(max(updates_ms), 1),
        'fetch_ms_last': round(stats['lastFetchMs'], 1),
        'renders': stats['renders'],
        'not_modified': stats['notModified'],
        'filter_ms': round(filter_ms, 1),
        'dom_elements': dom,
        'node_rows': rows,
        'js_heap_mb': round(heap / 2 ** 20, 1) if heap else None,
    }


def run(nodes: int, workdir: pathlib.Path) -> dict:
    """Serve, start the action, measure the page; the database must be
    set up already."""
    import urllib.request

    from tests.functional.fixtures import browser

    server, thread = _serve()
    uuid, stop, runner_thread = start_memory_action(nodes)
    try:
        base = 'http://127.0.0.1:%d/site' % server.bind_addr[1]
        with urllib.request.urlopen('%s/v1/actions/%s' % (base, uuid)) as r:
            report_bytes = len(r.read())
        with browser.headless_chromium(workdir) as driver:
            figures = measure_page(driver, '%s/#/actions/%s' % (base, uuid))
        figures.update(nodes=nodes, report_bytes=report_bytes)
        return figures
    finally:
        stop.set()
        runner_thread.join(30)
        server.stop()
        thread.join(10)


def _fresh_database(workdir: str) -> None:
    from ironside.common.conf import CONF
    from ironside.db import migration
    from ironside.db import session as db_session
    CONF([], project='ironside', default_config_files=[])
    CONF.set_override('connection', 'sqlite:///%s/site-web.sqlite' % workdir,
                      'database')
    db_session.dispose()
    migration.upgrade()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, default=10000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        _fresh_database(workdir)
        figures = run(args.nodes, pathlib.Path(workdir))
    print('site web view, one action of %d nodes in 5 groups' % args.nodes)
    print('  report         %8.2f MB' % (figures['report_bytes'] / 2 ** 20))
    print('  first render   %8.0f ms' % figures['first_render_ms'])
    print('  update         %8.0f ms median, %.0f ms worst (fetch %.0f ms)'
          % (figures['update_ms_median'], figures['update_ms_max'],
             figures['fetch_ms_last']))
    print('  filter         %8.0f ms' % figures['filter_ms'])
    print('  DOM            %8d elements (%d node rows)'
          % (figures['dom_elements'], figures['node_rows']))
    if figures['js_heap_mb']:
        print('  JS heap        %8.1f MB' % figures['js_heap_mb'])
    RESULTS_DIR.mkdir(exist_ok=True)
    path = RESULTS_DIR / ('site-web-%s.json' % datetime.datetime.now(
        datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ'))
    path.write_text(json.dumps(dict(figures, machine=platform.node()),
                               indent=2))
    print('written to %s' % path)


if __name__ == '__main__':
    main()
