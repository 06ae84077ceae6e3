"""Malformed and random requests against the served OpenAPI document.

Two runs against one real Ironside:

* schemathesis generates requests for every operation of /openapi.json,
  valid and invalid (wrong types, missing and unknown fields, bad
  headers), half of them aimed at a real node;
* hypothesis sends the malformations clients really produce to a real
  node: bad JSON, wrong types, unknown fields, bad JSON-patch paths and
  ops, oversized bodies.

No answer may be a 5xx, and a refused request must leave the node exactly
as it was. ``IRONSIDE_FUZZ_EXAMPLES`` sets how many requests each run
sends (default 1000 each, about 2000 in all, the same ones each time,
kept small for CI); setting it also draws new requests on each run.
"""

from __future__ import annotations

import json
import os

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from schemathesis import checks
from schemathesis.core import failures as failures_module
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi import checks as openapi_checks

from tests.functional.fixtures import ironside_process

pytestmark = pytest.mark.functional

EXAMPLES = int(os.environ.get('IRONSIDE_FUZZ_EXAMPLES', '1000'))
SEED = 'fuzz-seed'
# CI sends the same requests each run; a run asked for explores anew.
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, database=None,
    derandomize='IRONSIDE_FUZZ_EXAMPLES' not in os.environ,
    suppress_health_check=list(HealthCheck))
# Fields that change without any request (bookkeeping of the conductor).
VOLATILE = {'updated_at', 'provision_updated_at', 'conductor', 'reservation',
            'links', 'ports', 'portgroups', 'states', 'volume'}
HEADERS = {'X-OpenStack-Ironic-API-Version': 'latest'}


class Seed:
    """A node the fuzzers aim at, recreated whenever a request deletes it."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.http = requests.Session()
        self.http.headers.update(HEADERS)
        self.refusals_checked = 0   # 4xx answers the node was compared for

    def url(self, path: str) -> str:
        return self.endpoint + path

    def snapshot(self) -> dict | None:
        """The node's fields, or None if it is gone or busy."""
        response = self.http.get(self.url('/v1/nodes/%s' % SEED))
        if response.status_code == 404:
            self.http.post(self.url('/v1/nodes'), json={
                'name': SEED, 'driver': 'fake-hardware',
                'extra': {'keep': 'me'}, 'properties': {'cpus': 1}})
            response = self.http.get(self.url('/v1/nodes/%s' % SEED))
        node = response.json()
        if node.get('target_provision_state') or node.get(
                'target_power_state') or node.get('reservation'):
            return None
        return {k: v for k, v in node.items() if k not in VOLATILE}


def check_refusal(seed: Seed, before: dict | None, response) -> None:
    """No 5xx; a 4xx in Ironic's format that left the node unchanged."""
    assert response.status_code < 500, (response.request.method,
                                        response.request.url,
                                        response.request.body,
                                        response.text)
    if response.status_code < 400:
        return
    if response.status_code != 405 and response.content:
        body = response.json()
        assert 'error_message' in body, response.text
        assert json.loads(body['error_message'])['faultstring']
    after = seed.snapshot()
    if before is not None and after is not None:
        seed.refusals_checked += 1
        assert after == before, (response.request.method,
                                 response.request.url,
                                 response.request.body, response.text)


@pytest.fixture(scope='module')
def ironside(tmp_path_factory):
    """This module's own server: a 1 MiB body limit, cheap to exceed."""
    yield from ironside_process.serve(
        tmp_path_factory.mktemp('ironside'),
        options={'api': {'max_body_size': 1024 * 1024}})


@pytest.fixture(scope='module')
def seed(ironside) -> Seed:
    return Seed(ironside.endpoint)


@pytest.fixture(scope='module')
def schema(ironside):
    """The bare metal API's operations: the site API (under /site, in
    the same document) starts deployments, which this module's checks of
    nodes and bodies do not cover."""
    return schemathesis.openapi.from_url(
        ironside.endpoint + '/openapi.json').exclude(path_regex='^/site')


def test_schemathesis_no_5xx_no_half_writes(schema, seed):
    aimed = {'node_ident': SEED}
    strategy = st.one_of(
        schema.as_strategy(GenerationMode.NEGATIVE),
        schema.as_strategy(GenerationMode.POSITIVE),
        schema.as_strategy(GenerationMode.NEGATIVE, path_parameters=aimed),
        schema.as_strategy(GenerationMode.POSITIVE, path_parameters=aimed))

    @FUZZ_SETTINGS
    @given(case=strategy)
    def run(case):
        before = seed.snapshot()
        response = case.call(base_url=seed.endpoint, session=seed.http,
                             timeout=30)
        check_refusal(seed, before, response)

    run()


CONFORMANCE_CHECKS = (
    checks.not_a_server_error,
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_headers_conformance,
    openapi_checks.response_schema_conformance,
)
CONFORMANCE_EXAMPLES = int(os.environ.get('IRONSIDE_FUZZ_CONFORMANCE',
                                          str(EXAMPLES)))


def test_schemathesis_conformance(schema, seed):
    """Every answer is what /openapi.json says it can be: a documented
    status code, content type, header schema and body schema. Failures
    are gathered across the whole run, then listed once, one per
    operation and check."""
    aimed = {'node_ident': SEED}
    strategy = st.one_of(
        schema.as_strategy(GenerationMode.NEGATIVE),
        schema.as_strategy(GenerationMode.POSITIVE),
        schema.as_strategy(GenerationMode.POSITIVE, path_parameters=aimed))
    failures: dict[tuple[str, str], str] = {}

    @settings(FUZZ_SETTINGS, max_examples=CONFORMANCE_EXAMPLES)
    @given(case=strategy)
    def run(case):
        seed.snapshot()
        try:
            case.call_and_validate(base_url=seed.endpoint, session=seed.http,
                                   timeout=30, checks=CONFORMANCE_CHECKS)
        except (AssertionError, failures_module.FailureGroup) as exc:
            for failure in getattr(exc, 'exceptions', None) or [exc]:
                title = getattr(failure, 'title', type(failure).__name__)
                key = (case.operation.label, title)
                failures.setdefault(key, str(failure)[:600])

    run()
    assert not failures, '%d conformance failures:\n%s' % (
        len(failures), '\n\n'.join('%s: %s\n%s' % (op, title, text)
                                   for (op, title), text in
                                   sorted(failures.items())))


# Targeted malformations

_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(max_size=8), inner, max_size=3),
    max_leaves=6)
_PATHS = st.one_of(
    st.sampled_from(['/name', '/extra/x', '/properties/cpus', '/uuid',
                     '/provision_state', '/driver', '/instance_uuid',
                     '/driver_info/ipmi_password', '/traits', '/id',
                     '/extra', '', '/', '//', '/extra/', '/extra/a/b/c',
                     '/resource_class', '/no_such_field', '/~1x', '/a~2',
                     '/instance_info/configdrive', '/owner', '/chassis_uuid',
                     '/power_state', '/reservation', '/conductor_group']),
    st.text(max_size=15).map(lambda s: '/' + s))
_OPS = st.sampled_from(['add', 'replace', 'remove', 'move', 'copy', 'test',
                        'ADD', '', None, 7])
_PATCH_OP = st.fixed_dictionaries(
    {'op': _OPS, 'path': _PATHS},
    optional={'value': _JSON_VALUES, 'from': _PATHS, 'bogus': _JSON_VALUES})
_BAD_PATCH = st.one_of(
    st.lists(_PATCH_OP, min_size=1, max_size=4),
    _JSON_VALUES,
    st.lists(_JSON_VALUES, max_size=3))
_NODE_BODY = st.one_of(
    st.dictionaries(st.sampled_from(['driver', 'name', 'uuid', 'extra',
                                     'properties', 'resource_class',
                                     'driver_info', 'bogus', 'traits',
                                     'provision_state', 'network_data',
                                     'boot_interface', 'owner']),
                    _JSON_VALUES, max_size=5),
    _JSON_VALUES)
_STATE_BODY = st.dictionaries(
    st.sampled_from(['target', 'configdrive', 'clean_steps',
                     'deploy_steps', 'rescue_password', 'timeout',
                     'disable_ramdisk', 'bogus']),
    _JSON_VALUES | st.sampled_from(['active', 'deleted', 'clean',
                                    'power on', 'rebooting', 'manage']),
    max_size=4)
_RAW = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b'{', b'[{"op": "add",', b'\xff\xfe', b'null',
                     b'{"a": NaN}', b'[' * 2000, b'"' + b'x' * 100]))


@st.composite
def malformed_request(draw) -> tuple[str, str, dict, str]:
    """(method, path, requests kwargs, version) of a request a node must
    survive."""
    request = draw(_malformed_call())
    version = draw(st.sampled_from(['latest'] * 8 + ['1.1', '1.30', '2.0',
                                                     'x', '1.999']))
    return (*request, version)


@st.composite
def _malformed_call(draw) -> tuple[str, str, dict]:
    node = '/v1/nodes/%s' % SEED
    kind = draw(st.sampled_from(['patch', 'create', 'state', 'power',
                                 'raw', 'traits', 'vif', 'oversized',
                                 'port']))
    if kind == 'patch':
        return 'PATCH', node, {'json': draw(_BAD_PATCH)}
    if kind == 'create':
        return 'POST', '/v1/nodes', {'json': draw(_NODE_BODY)}
    if kind == 'state':
        return 'PUT', node + '/states/provision', {'json': draw(_STATE_BODY)}
    if kind == 'power':
        return 'PUT', node + '/states/power', {'json': draw(_STATE_BODY)}
    if kind == 'traits':
        return 'PUT', node + '/traits', {'json': draw(_NODE_BODY)}
    if kind == 'vif':
        return 'POST', node + '/vifs', {'json': draw(_NODE_BODY)}
    if kind == 'port':
        return 'POST', '/v1/ports', {'json': draw(_NODE_BODY)}
    if kind == 'oversized':
        # Past the 1 MiB limit the module's server is configured with.
        size = draw(st.integers(1024 * 1024 + 1, 1024 * 1024 + 4096))
        return 'PATCH', node, {'data': b'[' + b' ' * size + b']'}
    method = draw(st.sampled_from(['PATCH', 'POST', 'PUT']))
    path = {'PATCH': node, 'POST': '/v1/nodes',
            'PUT': node + '/states/provision'}[method]
    return method, path, {'data': draw(_RAW)}


def test_malformed_requests_leave_the_node_unchanged(seed, ironside):
    @FUZZ_SETTINGS
    @given(request=malformed_request())
    def run(request):
        method, path, kwargs, version = request
        before = seed.snapshot()
        headers = {'Content-Type': 'application/json',
                   'X-OpenStack-Ironic-API-Version': version}
        response = seed.http.request(method, seed.url(path), timeout=30,
                                     headers=headers, **kwargs)
        check_refusal(seed, before, response)

    seed.refusals_checked = 0
    run()
    # Most requests were refused with the node idle: the check did run.
    assert seed.refusals_checked > EXAMPLES // 2
    assert 'Traceback' not in ironside.log()
