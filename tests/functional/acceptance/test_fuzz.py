"""Malformed and random requests against the served OpenAPI document.

schemathesis sends, for every operation of /openapi.json (the bare metal
API's), valid and invalid requests (wrong types, missing and unknown
fields, values at and past their bounds, bad headers, other methods),
most of them aimed at a real node:

* in-process, the volume (about 25,500 requests in CI): the application
  a real process serves, built by the same function
  (``ironside.cmd.api.application``), over a conductor in this process
  and the test database (SQLite in a temp dir by default), called
  through WSGI without a socket. Its coverage phase (every parameter
  and body field at its bounds, missing, of the wrong type: about
  24,500 requests, the same each run), then requests hypothesis draws.
  Every answer is checked for everything: not a 5xx; what /openapi.json
  says it can be (status code, content type, headers, body); a request
  the document allows not refused (but for the version or state
  refusals the document cannot foretell, UNFORESEEABLE_REFUSALS), one
  it forbids refused; if refused, an Ironic error that left the node as
  it was;
* over HTTP, fewer, to a real Ironside process, so that the wire is
  covered too: no 5xx, and refusals leave the node as it was.

hypothesis then sends the malformations clients really produce to the
real process's node: bad JSON, wrong types, unknown fields, bad
JSON-patch paths and ops, oversized bodies.

Unlike the other acceptance modules, this one runs without auth (its
own server, not conftest's under Keystone): its subject is what the API
does with a request once admitted, the in-process application is called
without a socket to carry a token, and over HTTP a token would add the
same keystonemiddleware step to every request (test_site_keystone and
the other modules cover that step).

``IRONSIDE_FUZZ_EXAMPLES`` sets how many requests hypothesis draws
in-process (default 1000: with the coverage phase's 24,492, CI sends
about 25,500), ``IRONSIDE_FUZZ_HTTP`` over HTTP (default
300), ``IRONSIDE_FUZZ_MALFORMED`` the malformations (default 1000);
setting any draws new requests on each run, otherwise CI sends the same
ones each time. ``IRONSIDE_FUZZ_REPORT`` names a file the in-process
runs append their counts and findings to (benchmarks/README.md,
"Schemathesis at 100,000 requests").
"""

from __future__ import annotations

import collections
import json
import os
import re
from typing import Any

import pytest
import requests
import schemathesis
import sqlalchemy as sa
import werkzeug.test
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from schemathesis.core import failures as failures_module
from schemathesis.generation.modes import GenerationMode
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi import checks as openapi_checks

from ironside.cmd import api as api_cmd
from ironside.conductor import manager as conductor_manager
from ironside.conductor import rpcapi as conductor_rpcapi
from ironside.db import models
from ironside.db import session as db_session
from tests.functional.fixtures import ironside_process

pytestmark = pytest.mark.functional

_KNOBS = ('IRONSIDE_FUZZ_EXAMPLES', 'IRONSIDE_FUZZ_HTTP',
          'IRONSIDE_FUZZ_MALFORMED')
_ASKED = any(name in os.environ for name in _KNOBS)
EXAMPLES = int(os.environ.get('IRONSIDE_FUZZ_EXAMPLES', '1000'))
HTTP_EXAMPLES = int(os.environ.get('IRONSIDE_FUZZ_HTTP', '300'))
MALFORMED_EXAMPLES = int(os.environ.get('IRONSIDE_FUZZ_MALFORMED', '1000'))
SEED = 'fuzz-seed'
# CI sends the same requests each run; a run asked for explores anew.
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, database=None,
    derandomize=not _ASKED, suppress_health_check=list(HealthCheck))
# Fields that change without any request (bookkeeping of the conductor).
VOLATILE = {'updated_at', 'provision_updated_at', 'conductor', 'reservation',
            'links', 'ports', 'portgroups', 'states', 'volume'}
HEADERS = {'X-OpenStack-Ironic-API-Version': 'latest'}
# The module's servers refuse bodies past 1 MiB: cheap to exceed.
MAX_BODY_SIZE = 1024 * 1024


# In-process, the node as stored: its row but for the columns that
# change without any request (the bookkeeping of VOLATILE, and the row's
# version, which a lock taken and released bumps), and its traits. What
# GET /v1/nodes/{node} shows is made of these (the chassis and
# allocation by their ids): comparing them is as strong as comparing
# the API's view, at a twentieth of its cost (one query, against a
# request through the whole application: 40% of the coverage phase).
_UNSTORED = {'id', 'updated_at', 'provision_updated_at', 'reservation',
             'conductor_affinity', 'row_version'}
_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__
# One query: the row, and its traits as one string (in no set order).
_NODE_ROW = sa.select(_NODES, sa.select(sa.func.aggregate_strings(
    _TRAITS.c.trait, ' ')).where(_TRAITS.c.node_id == _NODES.c.id)
    .scalar_subquery().label('traits')).where(_NODES.c.name == SEED)
_BUSY = ('target_provision_state', 'target_power_state', 'reservation')


class Seed:
    """A node the fuzzers aim at, recreated whenever a request deletes it.

    Over HTTP to ``endpoint``, or, given ``app``, to that WSGI
    application in-process (where the node is read from the database).
    """

    def __init__(self, endpoint: str, app: Any = None) -> None:
        self.endpoint = endpoint
        self.http = requests.Session()
        self.http.headers.update(HEADERS)
        self.wsgi = None if app is None else werkzeug.test.Client(app)
        self.refusals_checked = 0   # 4xx answers the node was compared for
        self._known: dict | None = None

    def url(self, path: str) -> str:
        return self.endpoint + path

    def _call(self, method: str, path: str, body: Any = None
              ) -> tuple[int, Any]:
        if self.wsgi is not None:
            answer = self.wsgi.open(path, method=method, json=body,
                                    headers=HEADERS)
            return answer.status_code, answer.get_json(silent=True)
        response = self.http.request(method, self.url(path), json=body,
                                     timeout=30)
        return response.status_code, \
            response.json() if response.content else None

    def state(self, refresh: bool = False) -> dict | None:
        """The node's fields as last seen, unless ``refresh`` or an
        answer may have changed them (``forget``)."""
        if refresh or self._known is None:
            self._known = self.snapshot()
        return self._known

    def forget(self) -> None:
        self._known = None

    def snapshot(self) -> dict | None:
        """The node's fields, or None if it is busy (recreated if it is
        gone)."""
        if self.wsgi is not None:
            return self._stored()
        return self._shown()

    def _stored(self) -> dict | None:
        with db_session.reader_connection() as connection:
            row = connection.execute(_NODE_ROW).mappings().first()
        if row is None:
            self._shown()   # recreates it
            return self._stored()
        if any(row[name] for name in _BUSY):
            return None
        return {name: value for name, value in row.items()
                if name not in _UNSTORED} | {
            'traits': sorted((row['traits'] or '').split())}

    def _shown(self) -> dict | None:
        path = '/v1/nodes/%s' % SEED
        status, node = self._call('GET', path)
        if status == 404:
            self._call('POST', '/v1/nodes', {
                'name': SEED, 'driver': 'fake-hardware',
                'extra': {'keep': 'me'}, 'properties': {'cpus': 1}})
            status, node = self._call('GET', path)
        assert status == 200, (status, node)
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
    """This module's own server process."""
    yield from ironside_process.serve(
        tmp_path_factory.mktemp('ironside'),
        options={'api': {'max_body_size': MAX_BODY_SIZE}})


@pytest.fixture(scope='module')
def seed(ironside) -> Seed:
    return Seed(ironside.endpoint)


def bare_metal_operations(schema):
    """The bare metal API's operations: the site API (under /site, in
    the same document) starts deployments, which this module's checks of
    nodes and bodies do not cover."""
    return schema.exclude(path_regex='^/site')


@pytest.fixture(scope='module')
def schema(ironside):
    return bare_metal_operations(schemathesis.openapi.from_url(
        ironside.endpoint + '/openapi.json'))


@pytest.fixture
def application(db, conf):
    """The application ``ironside`` serves (``ironside.cmd.api``'s), as
    the all-in-one configures it, over a conductor in this process (as
    the all-in-one runs by default) and the test database (SQLite in
    a temp dir unless IRONSIDE_TEST_DB says otherwise)."""
    conf.set(auth_strategy='noauth', host='fuzz-conductor',
             enabled_hardware_types=['fake-hardware'],
             rpc_transport='local')
    conf.set('api', max_body_size=MAX_BODY_SIZE)
    conf.set('conductor', async_step_poll_interval=0.2,
             sync_power_state_interval=0, node_locked_retry_interval=0.2)
    manager = conductor_manager.ConductorManager('fuzz-conductor')
    manager.init_host()
    yield api_cmd.application(
        conductor_rpcapi.ConductorAPI(local_manager=manager))
    manager.del_host()


@pytest.fixture
def in_process(application) -> tuple[Any, Seed]:
    """(schema, seed) of the application called in-process."""
    schema = bare_metal_operations(
        schemathesis.openapi.from_wsgi('/openapi.json', application))
    return schema, Seed('', app=application)


def test_schemathesis_over_http_no_5xx_no_half_writes(schema, seed):
    """Generated requests over a real process's socket: no 5xx, and a
    refused one leaves the node as it was."""
    aimed = {'node_ident': SEED}
    strategy = st.one_of(
        schema.as_strategy(GenerationMode.NEGATIVE),
        schema.as_strategy(GenerationMode.POSITIVE),
        schema.as_strategy(GenerationMode.NEGATIVE, path_parameters=aimed),
        schema.as_strategy(GenerationMode.POSITIVE, path_parameters=aimed))

    @settings(FUZZ_SETTINGS, max_examples=HTTP_EXAMPLES)
    @given(case=strategy)
    def run(case):
        before = seed.snapshot()
        response = case.call(base_url=seed.endpoint, session=seed.http,
                             timeout=30)
        check_refusal(seed, before, response)

    run()


# In-process: the volume, every answer checked for everything at once.

# What /openapi.json says an answer can be (status code, content type,
# headers, body); and that a request the document allows is not refused
# (but for UNFORESEEABLE_REFUSALS), one it forbids is (4xx).
CONFORMANCE_CHECKS = [
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_headers_conformance,
    openapi_checks.response_schema_conformance,
    openapi_checks.positive_data_acceptance,
    openapi_checks.negative_data_rejection,
]
# The vendor passthru operations: a node's or a driver's method, named in
# the query or the path, called with any HTTP method.
VENDOR_PASSTHRU = tuple(
    '%s %s/vendor_passthru%s' % (verb, owner, named)
    for verb in ('GET', 'PUT', 'POST', 'PATCH', 'DELETE')
    for owner in ('/v1/nodes/{node_ident}', '/v1/drivers/{driver_name}')
    for named in ('', '/{method}'))
# Refusals of requests /openapi.json allows that it cannot foretell:
# OpenAPI 3.0 has no way to tie a verb, a field or a query parameter to
# the value of the version header, nor a request to the state of the
# node, to other records, to the driver, or one field to another.
# Ironic refuses each of them so too. They are told apart by status and
# Ironic's message (and operation, or a tuple of them, where one field
# depends on another),
# so that a schema that is merely looser than the API still fails
# positive_data_acceptance. schemathesis' own setting
# (positive_data_acceptance.expected-statuses) could only take whole
# status codes, 400 among them.
Refusal = tuple[str | tuple[str, ...] | None, int, str]
UNFORESEEABLE_REFUSALS: list[Refusal] = [
    # The version asked for is older than the verb (405, as Ironic), or
    # than a field, filter or verb of the operation (406).
    (None, 405, ''),
    (None, 406, ''),
    (None, 400, r'not recognised in this API version'),
    (None, 400, r'^Invalid query parameter \?detail=.* received'),
    # ~0 and ~1 in a JSON patch's path came in 1.98.
    (None, 400, r"^Invalid patch path '[^']*~"),
    # Names for nodes came in 1.5 (any logical name in 1.10); a
    # runbook's name is a trait's before 1.112.
    (None, 400, r'^Expected a UUID (or logical name )?but received'),
    ('POST /v1/nodes', 400, r'^Cannot create node with invalid name'),
    ('POST /v1/runbooks', 400, r'^Schema error for runbook: .*\(at /name\)'),
    # The node's state refuses the verb; the VIF is not attached; the
    # node (given in the body) is gone; the driver has no such device.
    (None, 400, r'^The requested action .* can not be performed on node'),
    (None, 400, r'^Unable to detach VIF .* because it is not attached'),
    (None, 400, r"because it's in maintenance mode"),
    (None, 400, r'^Node .* could not be found'),
    (None, 400, r'^Invalid boot device .* specified'),
    # Which drivers a conductor has is its configuration's.
    ('POST /v1/nodes', 400, r'^No valid host was found'),
    # Which fields a resource has depends on the version.
    (None, 400, r'^Field\(s\) .* are not valid'),
    # An allocation's candidate nodes must exist.
    ('POST /v1/allocations', 400, r'^Candidate node .* is invalid'),
    # No JSON integer may be past 64 bits, wherever it is (OpenAPI can
    # bound only the fields it names); a step's priority given as a
    # string of digits is held to its column (format digits-int32,
    # which schemathesis does not know).
    (None, 400, r'is out of the 64-bit range'),
    (None, 400, r"^Schema error for .*: '[0-9]+' is greater than the "
                r'maximum of'),
    # No string may hold a NUL character (PostgreSQL cannot store one);
    # OpenAPI could say so only with a pattern on every string.
    (None, 400, r'^A NUL character is not allowed'),
    # The agent's token is the one the API gave the agent.
    ('POST /v1/heartbeat/{node_ident}', 400,
     r'^Invalid or missing agent token'),
    # A heartbeat with neither the agent's version nor its status is
    # refused by the conductor (an agent too old to deploy).
    ('POST /v1/heartbeat/{node_ident}', 400,
     r'^The agent sent no version'),
    # The arguments an inspection rule's condition or action needs
    # depend on its operator.
    (None, 400, r'(^|: )Invalid parameters for (action|condition) '
                r'operator'),
    # A step's interface and name are unique within a template or
    # runbook (a schema cannot say so of two fields of its items).
    (None, 400, r'^Deploy template invalid: [Dd]uplicate deploy steps'),
    # One field or parameter needs another.
    ('PUT /v1/nodes/{node_ident}/states/provision', 400,
     r'^disable_ramdisk is supported only with'),
    ('PUT /v1/nodes/{node_ident}/states/provision', 400,
     r'^"(clean_steps|deploy_steps|service_steps|rescue_password)" is only '
     r'valid when setting target provision state to'),
    ('PATCH /v1/nodes/{node_ident}', 400,
     r'^The reset_interfaces parameter can only be used'),
    ('POST /v1/allocations', 400,
     r'^The resource_class field is mandatory when not backfilling'),
    ('GET /v1/lookup', 400, r'^Lookup needs addresses'),
    ('POST /v1/continue_inspection', 400, r'^The inventory must list'),
    # At most one logical disk is the root volume (a schema cannot
    # count the items that hold a value).
    ('PUT /v1/nodes/{node_ident}/states/raid', 400,
     r'^Raid config cannot have more than one root volume'),
    # The document's JSON patch is the same for every resource; which
    # fields one may change is the resource's.
    (None, 400, r'^Cannot patch /'),
    # Which vendor methods a driver has, and the HTTP methods each
    # answers, are the driver's (OpenAPI could list them only for one).
    (VENDOR_PASSTHRU, 400, r'^No handler for method '),
    (VENDOR_PASSTHRU, 400, r'^The method .* does not support HTTP '),
    # A node has at most 50 traits: adding one more depends on those it
    # has; in a list, a trait given twice counts once (maxItems cannot
    # say so).
    (('PUT /v1/nodes/{node_ident}/traits/{trait}',
      'PUT /v1/nodes/{node_ident}/traits'), 400,
     r'^Could not modify traits for node .* as it would exceed the '
     r'maximum number of traits per node'),
]

SERVER_ERROR = '5xx'
CHANGED = 'refused, yet the node changed'
NOT_IRONIC_ERROR = 'refused without an Ironic error body'


class Findings:
    """What a run found: requests sent, and failures counted by kind,
    one example kept for each kind and operation."""

    def __init__(self) -> None:
        self.requests = 0
        self.compared = 0   # refusals the node was compared for
        # Schema-valid requests refused for a version or a state.
        self.unforeseeable = 0
        self.by_kind: collections.Counter[str] = collections.Counter()
        self.examples: dict[tuple[str, str], str] = {}

    def add(self, kind: str, case, detail: str) -> None:
        self.by_kind[kind] += 1
        self.examples.setdefault((kind, case.operation.label), detail[:800])

    def report(self) -> str:
        return ('%d requests, %d refusals compared, %d schema-valid ones '
                'refused for a version or state; %s\n\n%s') % (
            self.requests, self.compared, self.unforeseeable,
            dict(self.by_kind), '\n\n'.join(
                '%s: %s\n%s' % (operation, kind, detail)
                for (kind, operation), detail in sorted(
                    self.examples.items())))


def _describe(response) -> str:
    request = response.request
    return '%s %s (version %s) %r\n-> %d %s' % (
        request.method, request.url,
        request.headers.get('X-OpenStack-Ironic-API-Version'), request.body,
        response.status_code, response.text)


def examine(seed: Seed, case, findings: Findings) -> None:
    """Send ``case`` in-process and check its answer: not a 5xx, what
    /openapi.json says it can be (status code, content type, headers,
    body), and, if refused, an Ironic error that left the node as it
    was."""
    before = seed.state()
    # The case's own headers (a version it asks for) win, as they do
    # over HTTP, where the session's are only defaults.
    response = case.call(headers={**HEADERS, **(case.headers or {})},
                         timeout=30)
    findings.requests += 1
    if response.status_code >= 500:
        findings.add(SERVER_ERROR, case, _describe(response))
    try:
        case.validate_response(response, checks=CONFORMANCE_CHECKS)
    except (AssertionError, failures_module.FailureGroup) as exc:
        for failure in getattr(exc, 'exceptions', None) or [exc]:
            if isinstance(failure, RejectedPositiveData) and \
                    _unforeseeable(case, response):
                findings.unforeseeable += 1
                continue
            findings.add(getattr(failure, 'title', type(failure).__name__),
                         case, '%s\n%s' % (_describe(response), failure))
    if not 400 <= response.status_code < 500:
        seed.forget()
        return
    if response.status_code != 405 and response.content and \
            not _is_ironic_error(response):
        findings.add(NOT_IRONIC_ERROR, case, _describe(response))
    after = seed.state(refresh=True)
    if before is not None and after is not None:
        findings.compared += 1
        if after != before:
            findings.add(CHANGED, case, _describe(response))


def _unforeseeable(case, response) -> bool:
    """Whether ``response`` refuses ``case`` for a reason the document
    cannot give (UNFORESEEABLE_REFUSALS)."""
    try:
        message = json.loads(response.json()['error_message'])[
            'faultstring']
    except (ValueError, KeyError, TypeError):
        message = ''
    label = case.operation.label
    return any(
        status == response.status_code and
        (operation is None or label == operation or
         (isinstance(operation, tuple) and label in operation)) and
        re.search(pattern, message, re.DOTALL)
        for operation, status, pattern in UNFORESEEABLE_REFUSALS)


def _is_ironic_error(response) -> bool:
    try:
        return bool(json.loads(response.json()['error_message'])[
            'faultstring'])
    except (ValueError, KeyError, TypeError):
        return False


def _aimed(case):
    """The case aimed at the seed node, unless its node is what it
    varies."""
    phase = getattr(case.meta, 'phase', None)
    varied = getattr(getattr(phase, 'data', None), 'parameter', None)
    if 'node_ident' in (case.path_parameters or {}) and \
            varied != 'node_ident':
        case.path_parameters = {**case.path_parameters, 'node_ident': SEED}
    return case


def _write_report(findings: Findings) -> None:
    path = os.environ.get('IRONSIDE_FUZZ_REPORT')
    if path:
        with open(path, 'a') as out:
            out.write(findings.report() + '\n')


def test_schemathesis_coverage(in_process):
    """schemathesis' coverage phase, in-process: for every operation its
    deterministic cases (each parameter and body field at its bounds,
    missing, of the wrong type, unexpected methods), aimed at the seed
    node. About 24,500 requests.

    One test, in the document's order: the cases of one operation meet
    the records the others' left (split in two halves of the operations,
    one half found eight trait deletions of a runbook ``0`` accepted that
    the whole run never meets)."""
    schema, seed = in_process
    findings = Findings()
    for result in schema.get_all_operations():
        operation = result.ok()
        for case in schema.iter_coverage_cases(
                operation, generation_modes=list(GenerationMode),
                generation_config=schema.config.generation):
            examine(seed, _aimed(case), findings)
    assert findings.requests > 20000
    _write_report(findings)
    assert not findings.by_kind, findings.report()
    # Most answers were refusals with the node idle: the check did run.
    assert findings.compared > findings.requests // 2


def test_schemathesis_fuzz(in_process):
    """schemathesis' generated requests (hypothesis), in-process,
    valid and invalid, half aimed at the seed node."""
    schema, seed = in_process
    aimed = {'node_ident': SEED}
    strategy = st.one_of(
        schema.as_strategy(GenerationMode.NEGATIVE),
        schema.as_strategy(GenerationMode.POSITIVE),
        schema.as_strategy(GenerationMode.NEGATIVE, path_parameters=aimed),
        schema.as_strategy(GenerationMode.POSITIVE, path_parameters=aimed))
    findings = Findings()

    @FUZZ_SETTINGS
    @given(case=strategy)
    def run(case):
        examine(seed, case, findings)

    run()
    _write_report(findings)
    assert not findings.by_kind, findings.report()
    # Most answers were refusals with the node idle: the check did run.
    assert findings.compared > findings.requests // 2


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
    @settings(FUZZ_SETTINGS, max_examples=MALFORMED_EXAMPLES)
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
    assert seed.refusals_checked > MALFORMED_EXAMPLES // 2
    assert 'Traceback' not in ironside.log()
