"""The web view's server side: the page, its assets, ETags on the site
API, the report's fields the view draws from, and the node-status API."""

from __future__ import annotations

import base64
import re

import bcrypt
import pytest
from falcon import testing

from ironside.api import app as api_app
from ironside.api import auth
from ironside.api import site as site_api
from ironside.api.site import web
from ironside.strategy import actions
from ironside.strategy.nodes import conductor as conductor_nodes
from ironside.strategy.run import runner
from tests import utils
from tests.unit.strategy.conftest import INVENTORY
from tests.unit.strategy.conftest import fault
from tests.unit.strategy.conftest import run_partly
from tests.unit.strategy.conftest import start_action
from tests.unit.strategy.memory_limit import InFlightLimit

BASE = '/site/v1'


# The page and its assets

@pytest.mark.parametrize('path', ['/site', '/site/'])
def test_page(client, path):
    response = client.simulate_get(path)
    assert response.status_code == 200
    assert response.headers['content-type'].startswith('text/html')
    page = response.text
    assert '<meta name="ironside-api" content="/site/v1">' in page
    assert '<meta name="ironside-auth" content="noauth">' in page
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert scripts == ['/site/static/common.js', '/site/static/graph.js',
                       '/site/static/nodes.js', '/site/static/action.js',
                       '/site/static/app.js']
    assert "script-src 'self'" in \
        response.headers['content-security-policy']
    assert '<script>' not in page and 'style=' not in page


def test_page_is_served_under_the_wsgi_script_name(client):
    response = client.simulate_get('/site', extras={'SCRIPT_NAME': '/bm'})
    assert '<meta name="ironside-api" content="/bm/site/v1">' in \
        response.text
    assert '<link rel="stylesheet" href="/bm/site/static/site.css">' in \
        response.text


def test_every_asset_the_page_names_is_served(client):
    page = client.simulate_get('/site').text
    for path in re.findall(r'(?:src|href)="(/site/static/[^"]+)"', page):
        response = client.simulate_get(path)
        assert response.status_code == 200, path
        kind = 'text/css' if path.endswith('.css') else 'text/javascript'
        assert response.headers['content-type'].startswith(kind), path
        assert response.headers['etag']
        again = client.simulate_get(path, headers={
            'If-None-Match': response.headers['etag']})
        assert again.status_code == 304 and again.content == b''


@pytest.mark.parametrize('name', ['index.html', '..%2Fweb.py', 'nope.js'])
def test_only_assets_are_served(client, name):
    assert client.simulate_get('/site/static/' + name).status_code == 404


def test_assets_load_nothing_from_elsewhere():
    """No CDN: no asset names another origin (SVG's namespace is a name,
    never fetched)."""
    for path in web.STATIC_DIR.iterdir():
        text = path.read_text('utf-8').replace(
            'http://www.w3.org/2000/svg', '')
        assert not re.search(r'(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/', text,
                             re.I), path.name


# ETags on the site API

def test_site_api_gets_carry_etags(client, spec_strategy, memory_site):
    row = actions.create_action(memory_site, 'deploy_site',
                                'deployment-strategy')
    path = BASE + '/actions/' + row.uuid
    first = client.simulate_get(path)
    etag = first.headers['etag']
    assert first.json['uuid'] == row.uuid
    assert first.headers['cache-control'] == 'no-cache'
    same = client.simulate_get(path, headers={'If-None-Match': etag})
    assert same.status_code == 304
    assert same.content == b''
    assert client.simulate_get(path, headers={
        'If-None-Match': '"other", %s' % etag}).status_code == 304
    assert client.simulate_get(path, headers={
        'If-None-Match': '"other"'}).status_code == 200
    listed = client.simulate_get(BASE + '/actions')
    assert listed.headers['etag'] != etag


def test_etag_changes_when_the_report_does(client, spec_strategy,
                                           memory_site):
    row = start_action(memory_site)
    path = BASE + '/actions/' + row.uuid
    before = client.simulate_get(path).headers['etag']
    assert runner.ActionRunner(row.uuid, 'test-host', memory_site,
                               InFlightLimit(100)).run()
    after = client.simulate_get(path, headers={'If-None-Match': before})
    assert after.status_code == 200
    assert after.headers['etag'] != before


def test_errors_carry_no_etag(client):
    response = client.simulate_get(BASE + '/actions/nope')
    assert response.status_code == 404
    assert 'etag' not in response.headers


# What the report gives the view

def test_report_shows_the_state_and_step_of_nodes_in_flight(
        spec_strategy, memory_site):
    row = run_partly(memory_site, 8)
    plain = actions.action_report(row.uuid)
    assert any(n['in_flight'] for n in plain['nodes'])
    assert not any('provision_state' in n for n in plain['nodes'])
    live = actions.action_report(row.uuid, memory_site)
    for node in live['nodes']:
        if node['in_flight']:
            assert node['provision_state'] == \
                memory_site.nodes[node['uuid']].provision_state
            assert node['step'] is None
        else:
            assert 'provision_state' not in node
    control = next(g for g in live['groups'] if g['name'] == 'control-nodes')
    assert control['depends_on'] == ['ntp-node']
    assert control['strategy'] == {'type': 'parallel'}


def test_node_seam_reads_the_step_running_now(make_node):
    node = make_node(name='n1')
    utils.update_node(node.uuid, {'deploy_step': {
        'interface': 'deploy', 'step': 'write_image', 'priority': 80}})
    other = make_node(name='n2')
    utils.update_node(other.uuid, {'clean_step': {
        'interface': 'deploy', 'step': 'erase_devices_metadata'}})
    idle = make_node(name='n3')
    states = conductor_nodes.ConductorNodes().read_states(
        [node.uuid, other.uuid, idle.uuid])
    assert states[node.uuid].step == 'deploy.write_image'
    assert states[other.uuid].step == 'deploy.erase_devices_metadata'
    assert states[idle.uuid].step is None


# The node-status API

def _names(response):
    return [n['name'] for n in response.json['nodes']]


def test_node_status_of_every_node(client, enrolled):
    utils.update_node(enrolled['ntp01'], {
        'maintenance': True, 'fault': 'power failure',
        'maintenance_reason': 'BMC unreachable', 'last_error': 'boom',
        'power_state': 'power off'})
    response = client.simulate_get(BASE + '/nodes/status')
    assert response.status_code == 200
    assert _names(response) == sorted(e['name'] for e in INVENTORY['nodes'])
    ntp = next(n for n in response.json['nodes'] if n['name'] == 'ntp01')
    assert ntp == {
        'name': 'ntp01', 'uuid': enrolled['ntp01'], 'rack': 'rack03',
        'provision_state': 'enroll', 'target_provision_state': None,
        'provision_updated_at': ntp['provision_updated_at'],
        'power_state': 'power off', 'maintenance': True,
        'maintenance_reason': 'BMC unreachable', 'fault': 'power failure',
        'last_error': 'boom', 'step': None}


@pytest.mark.parametrize('query, names', [
    ('rack_names=rack01&node_tags=compute',
     ['cmp-r1-01', 'cmp-r1-02', 'cmp-r1-03', 'cmp-r1-04']),
    ('node_names=ntp01,mon01', ['mon01', 'ntp01']),
    ('node_names=ntp01&node_names=mon01', ['mon01', 'ntp01']),
    ('node_labels=ucp_control_plane:enabled&rack_names=rack03',
     ['ctl01', 'ctl02', 'ctl03', 'ctl04']),
    ('name=cmp-r2-*', ['cmp-r2-01', 'cmp-r2-02', 'cmp-r2-03']),
    ('name=cmp-*&rack_names=rack01', ['cmp-r1-01', 'cmp-r1-02',
                                       'cmp-r1-03', 'cmp-r1-04']),
    ('name=*-r1-0[12]', ['cmp-r1-01', 'cmp-r1-02']),
    ('provision_state=enroll&node_names=ntp01', ['ntp01']),
    ('provision_state=active', []),
])
def test_node_status_filters(client, enrolled, query, names):
    response = client.simulate_get(BASE + '/nodes/status',
                                   query_string=query)
    assert response.status_code == 200, response.text
    assert _names(response) == names


def test_node_status_refuses_a_bad_label(client, enrolled):
    response = client.simulate_get(BASE + '/nodes/status',
                                   query_string='node_labels=nocolon')
    assert response.status_code == 400
    assert fault(response) == (
        'document "node status query", field "selectors[0].node_labels[0]"'
        ': label "nocolon" is not of the form key: value (it needs exactly '
        'one colon)')


def test_root_names_the_node_status_endpoint(client):
    assert client.simulate_get(BASE).json['resources']['nodes/status'] == \
        BASE + '/nodes/status'


# Authentication of the page

def _wrapped(rpc):
    return testing.TestClient(auth.wrap(api_app.build_app(
        rpc, extra_apis=[(site_api.DEFAULT_PREFIX, site_api.register)])))


def test_http_basic_guards_the_page_its_data_and_metrics(rpc, conf,
                                                         tmp_path):
    path = tmp_path / 'htpasswd'
    path.write_text('admin:%s\n' % bcrypt.hashpw(
        b's3cret', bcrypt.gensalt(rounds=4)).decode())
    conf.set(auth_strategy='http_basic', http_basic_auth_user_file=str(path))
    conf.set('metrics', enabled=True)
    client = _wrapped(rpc)
    basic = {'Authorization': 'Basic ' +
             base64.b64encode(b'admin:s3cret').decode()}
    for url in ('/site', '/site/', '/site/static/app.js',
                '/site/v1/actions', '/site/v1/nodes/status', '/metrics'):
        refused = client.simulate_get(url)
        assert refused.status_code == 401, url
        # The browser asks for credentials once, then sends them along.
        assert refused.headers['WWW-Authenticate'].startswith('Basic')
        assert client.simulate_get(url, headers=basic).status_code == 200, \
            url
    conf.set('metrics', api_unauthenticated=True)
    assert _wrapped(rpc).simulate_get('/metrics').status_code == 200


def test_keystone_serves_the_page_and_asks_for_a_token(rpc, conf):
    from keystonemiddleware import auth_token  # registers its options
    assert auth_token.AuthProtocol
    conf.set(auth_strategy='keystone')
    conf.set('keystone_authtoken',
             www_authenticate_uri='http://keystone.invalid/identity')
    client = _wrapped(rpc)
    page = client.simulate_get('/site/')
    assert page.status_code == 200
    assert '<meta name="ironside-auth" content="keystone">' in page.text
    for name in re.findall(r'/site/static/([a-z]+\.(?:js|css))', page.text):
        assert client.simulate_get('/site/static/' + name).status_code == \
            200, name
    for url in ('/site/v1/actions', '/site/v1/nodes/status',
                '/site/static/../v1/actions', '/site/static/nope.js'):
        assert client.simulate_get(url).status_code == 401, url


# Colours

def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
              for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_state_colours_meet_wcag_aa():
    """Text on every state's background at least 4.5:1; borders and
    arrows at least 3:1 on the page and on the graph's background."""
    css = (web.STATIC_DIR / 'site.css').read_text()
    colours = dict(re.findall(r'--([a-z-]+):\s*(#[0-9a-fA-F]{6})', css))
    states = {name[:-3] for name in colours if name.endswith('-bg')}
    assert states >= {'pending', 'running', 'success', 'partial', 'failed'}
    for state in states:
        assert contrast(colours[state + '-bg'],
                        colours[state + '-ink']) >= 4.5, state
        for background in ('#ffffff', '#f8f9fa'):
            assert contrast(colours[state + '-line'], background) >= 3, state
    for name in ('ink', 'muted'):
        assert contrast(colours[name], '#ffffff') >= 4.5, name
        assert contrast(colours[name], '#f8f9fa') >= 4.5, name


def test_every_state_has_an_icon_and_words():
    """Readable without colour: the words and icons the page uses."""
    common = (web.STATIC_DIR / 'common.js').read_text()
    for state, word in (('pending', 'not started'), ('running', 'running'),
                        ('success', 'success'),
                        ('partial', 'success with failures'),
                        ('failed', 'failed')):
        assert re.search(r"%s: \{icon: '[^']+', word: '%s'\}"
                         % (state, word), common), state
