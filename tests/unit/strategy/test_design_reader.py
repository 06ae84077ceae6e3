"""Design documents read and checked: envelopes, kinds, the checks across
documents, secrets kept out of messages, and the kinds registry."""

from __future__ import annotations

import dataclasses

import pytest

from ironside.strategy.designs import design
from ironside.strategy.designs import masking
from ironside.strategy.designs import validation
from ironside.strategy.reader import documents
from ironside.strategy.reader.documents import Source
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.kinds import REGISTRY
from ironside.strategy.reader.registry import Kind
from ironside.strategy.reader.registry import Registry
from tests.unit.strategy.design_fixtures import config
from tests.unit.strategy.design_fixtures import configuration
from tests.unit.strategy.design_fixtures import node
from tests.unit.strategy.design_fixtures import strategy
from tests.unit.strategy.design_fixtures import text


def read(*docs, collection='c', adapters=()):
    return documents.read_collection(collection, [Source('f.yaml', text(
        *docs))], adapters)


def texts(issues):
    return [str(i) for i in issues]


def validate(*docs, collection='c'):
    found, issues = read(*docs, collection=collection)
    assert issues == []
    return validation.validate(found)


def test_read_collection_parses_and_hashes():
    found, issues = read(node('a'), config('site', {'x': 1}))
    assert issues == []
    assert [(d.schema, d.name, d.source, d.source_index, d.source_name)
            for d in found] == [
        ('ironside/BaremetalNode/v1', 'a', 0, 0, 'f.yaml'),
        ('ironside/Config/v1', 'site', 0, 1, 'f.yaml')]
    again, _ = read(config('site', {'x': 1}))
    assert again[0].hash == found[1].hash


def test_text_that_does_not_parse_names_its_line():
    _, issues = documents.read_collection('c', [Source(
        'bad.yaml', 'schema: a/B/v1\nmetadata: {name: x\ndata: 1\n')])
    (issue,) = texts(issues)
    # The problem's words are libyaml's (or PyYAML's without it).
    assert issue.startswith('collection "c", file "bad.yaml", document '
                            '"bad.yaml": not valid YAML or JSON: ')
    assert issue.endswith(' (line 3)')


def test_envelope_errors_name_document_field_and_line():
    _, issues = documents.read_collection('c', [Source('f.yaml', (
        'schema: ironside/Config/v1\nmetadata: {name: ok}\ndata: 1\n---\n'
        'schema: not a schema\nmetadata:\n  name: bad\n'
        '  storagePolicy: secret\ndata: {}\n---\nschema: a/B/v1\n'
        'data: {}\n---\n- a list\n'))])
    assert texts(issues) == [
        'collection "c", file "f.yaml", schema "not a schema", document '
        '"bad", field "schema": must match ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+'
        '/v[0-9]+(\\.[0-9]+)?$, not "not a schema" (line 5)',
        'collection "c", file "f.yaml", schema "not a schema", document '
        '"bad", field "metadata.storagePolicy": must be one of cleartext, '
        'encrypted, not "secret" (line 8)',
        'collection "c", file "f.yaml", schema "a/B/v1", document "#3", '
        'field "metadata": missing required field (line 11)',
        'collection "c", file "f.yaml", document "#4": must be a mapping, '
        'not ["a list"] (line 14)']


def test_a_name_twice_in_a_collection_is_refused():
    _, issues = read(config('site', 1), config('site', 2))
    assert texts(issues) == [
        'collection "c", file "f.yaml", schema "ironside/Config/v1", '
        'document "site", field "metadata.name": a second ironside/Config/v1'
        ' document with this name (the first is in file "f.yaml") (line 8)']


def test_an_adapter_wraps_documents_that_are_not_deckhand_shaped():
    def fuel(raw, source):
        if isinstance(raw, list):
            return 'ironside/TaskList/v1', source.split('.')[0]
        return None
    found, issues = read([{'id': 'task'}], adapters=[fuel])
    assert issues == []
    assert found[0].body == {
        'schema': 'ironside/TaskList/v1',
        'metadata': {'schema': 'metadata/Document/v1', 'name': 'f'},
        'data': [{'id': 'task'}]}


@pytest.mark.parametrize('document, message', [
    (node('a', driver=None), 'document "a", field "data.driver": must be a '
     'string, not null'),
    (node('a b'), 'document "a b", field "metadata.name": must match '
     '^[A-Za-z0-9._~-]+$, not "a b"'),
    (node('1be26c0b-03f2-4d2e-ae87-c02d7f33c123'), 'document '
     '"1be26c0b-03f2-4d2e-ae87-c02d7f33c123", field "metadata.name": a '
     'node name must not look like a UUID'),
    (node('a', os_access={'address': 'h', 'port': 0}), 'document "a", '
     'field "data.os_access.port": must be at least 1, not 0'),
    (node('a', labels={'k:x': 'v'}), 'document "a", field '
     '"data.labels.k:x": label "k:x: v" is not of the form key: value'),
    (node('a', tags=['x', 'x']), 'document "a", field "data.tags": must '
     'not hold the same value twice'),
    (node('a', colour='red'), 'document "a", field "data.colour": unknown '
     'field'),
    ({'schema': 'shipyard/DeploymentConfiguration/v1',
      'metadata': {'name': 'deployment-configuration'}, 'data': {}},
     'document "deployment-configuration", field "data.armada": missing '
     'required field'),
    ({'schema': 'deckhand/Passphrase/v1', 'metadata': {'name': 'p'},
      'data': ''}, 'document "p", field "data": must not be empty'),
    ({'schema': 'ironside/Settings/v1', 'metadata': {'name': 's'},
      'data': [1]}, 'document "s", field "data": must be a mapping, not '
     '[1]'),
])
def test_kind_checks(document, message):
    found, _ = read(document)
    errors = validation.validate(found).errors
    assert [str(i.error) for i in errors] == [message]


def test_ironside_configuration_needs_no_armada():
    assert validate(configuration(), strategy()).issues == []


def test_a_configuration_naming_a_missing_strategy_is_an_error():
    result = validate(configuration('other'), strategy())
    assert texts(result.errors) == [
        'collection "c", file "f.yaml", schema '
        '"ironside/DeploymentConfiguration/v1", document '
        '"deployment-configuration", field '
        '"data.physical_provisioner.deployment_strategy": names the '
        'DeploymentStrategy "other", which the design does not have']
    result = validate(configuration(None), strategy('another'))
    assert [str(i.error) for i in result.errors] == [
        'document "deployment-configuration", field "data": names no '
        'deployment_strategy, so site actions run the DeploymentStrategy '
        '"deployment-strategy", which the design does not have']


def test_same_name_in_two_collections_or_two_schemas_of_a_kind():
    found = read(config('site', 1), collection='a')[0] + \
        read(config('site', 2), strategy('s'), collection='b')[0] + \
        read(dict(strategy('s'), schema='shipyard/DeploymentStrategy/v1'),
             collection='c')[0]
    assert [str(i.error) for i in validation.validate(found).errors] == [
        'document "site", field "metadata.name": another document of this '
        'kind has the same name: the ironside/Config/v1 document in '
        'collection "a"',
        'document "s", field "metadata.name": another document of this '
        'kind has the same name: the ironside/DeploymentStrategy/v1 '
        'document in collection "b"']


def test_identity_must_name_a_private_key():
    result = validate(node('a', os_access={'address': 'h',
                                           'identity': 'ssh'}))
    assert [str(i.error) for i in result.errors] == [
        'document "a", field "data.os_access.identity": names the '
        'deckhand/PrivateKey/v1 document "ssh", which the design does not '
        'have']
    key = {'schema': 'deckhand/PrivateKey/v1',
           'metadata': {'name': 'ssh', 'storagePolicy': 'encrypted'},
           'data': '-----BEGIN KEY-----'}
    result = validate(key, node('a', os_access={'address': 'h',
                                                'identity': 'ssh'}))
    assert result.issues == []
    assert result.design.private_key('ssh') == '-----BEGIN KEY-----'


def test_warnings():
    groups = [{'name': 'racks', 'critical': True, 'depends_on': [],
               'selectors': [{'rack_names': ['rack09']},
                             {'node_names': ['a', 'ghost']}]}]
    result = validate(configuration(), strategy(groups=groups),
                      configuration(name='spare'), node('a'), node('b'),
                      {'schema': 'ironside/BaremetalNodes/v1',
                       'metadata': {'name': 'x'}, 'data': {}},
                      {'schema': 'armada/Chart/v1',
                       'metadata': {'name': 'x'}, 'data': {}})
    assert result.errors == []
    assert [str(i.error) for i in result.warnings] == [
        'document "spare", field "metadata.name": not used: site actions '
        'read the DeploymentConfiguration named deployment-configuration',
        'document "deployment-strategy", field "data.groups[0].selectors'
        '[1].node_names": group "racks" names nodes the inventory does not '
        'have: ghost',
        'document "deployment-strategy", field "data.groups": 1 nodes of '
        'the inventory are in no group, so site actions leave them alone: b',
        'document "x", field "schema": Ironside reads no schema '
        'ironside/BaremetalNodes/v1 (it reads '
        'ironside/BaremetalNode/v1, ironside/Config/v1, '
        'ironside/DeploymentConfiguration/v1, '
        'ironside/DeploymentStrategy/v1, ironside/EtcdClusters/v1, '
        'ironside/KubernetesCluster/v1, ironside/Settings/v1, '
        'ironside/TaskGraph/v1, '
        'shipyard/DeploymentConfiguration/v1, '
        'shipyard/DeploymentStrategy/v1); the document is stored as it is']
    assert all(i.severity == 'warning' for i in result.warnings)
    groups[0]['selectors'] = [{'rack_names': ['rack09']}]
    result = validate(strategy(groups=groups), node('a'))
    assert [str(i.error) for i in result.warnings][0] == (
        'document "deployment-strategy", field "data.groups[0].selectors": '
        'group "racks" selects no node of the inventory')


def test_the_design_model():
    result = validate(
        configuration(), strategy(), node('b', labels={'zone': ' z1 '},
                                          roles=['compute']),
        node('a', os_access={'address': '10.0.0.1'}),
        config('site', {'ntp': ['10.0.0.1']}),
        {'schema': 'ironside/Settings/v1', 'metadata': {'name': 'defaults'},
         'data': {'timezone': 'UTC'}},
        {'schema': 'armada/Chart/v1', 'metadata': {'name': 'x'},
         'data': {}})
    site = result.design
    assert site.strategy().name == 'deployment-strategy'
    assert site.configuration.deployment_strategy == 'deployment-strategy'
    assert sorted(site.nodes) == ['a', 'b']
    assert site.nodes['b'].labels == {'zone': 'z1'}
    assert site.nodes['b'].extra_fields() == {
        'rack': 'rack01', 'tags': ['compute'], 'labels': {'zone': 'z1'},
        'roles': ['compute']}
    assert site.nodes['a'].os_access.port == 22
    assert site.nodes['a'].os_access.user == 'root'
    assert site.configs == {'site': {'ntp': ['10.0.0.1']}}
    assert site.settings == {'defaults': {'timezone': 'UTC'}}
    assert [(d.schema, d.name) for d in site.other] == [
        ('armada/Chart/v1', 'x')]
    assert site.configuration.value('kubernetes_provisioner',
                                    'drain_timeout') == 3600


def test_without_configuration_the_default_strategy_runs():
    site = validate(strategy('deployment-strategy')).design
    assert site.configuration.schema is None
    assert site.strategy().name == 'deployment-strategy'
    site = validate(strategy('other')).design
    with pytest.raises(Exception) as err:
        site.strategy()
    assert str(err.value) == (
        'Design revision None can not run a site action: it has no '
        'DeploymentStrategy named "deployment-strategy" (named by its '
        'deployment configuration, or the default).')


def test_secrets_stay_out_of_messages():
    encrypted = node('a', os_access={'address': 'h', 'port': 'hunter2'})
    encrypted['metadata']['storagePolicy'] = 'encrypted'
    passphrase = {'schema': 'deckhand/Passphrase/v1',
                  'metadata': {'name': 'p'}, 'data': 424242}
    keyed = node('b', driver_info={'ipmi_password': 'pw'}, tags='pw')
    found, _ = read(encrypted, passphrase, keyed)
    messages = [str(i) for i in validation.validate(found).errors]
    assert [m.split(': ', 1)[1] for m in messages] == [
        'must be an integer, not ******',
        'must be a string, not ******',
        'must be a list, not ******']
    assert not any('hunter2' in m or '424242' in m for m in messages)


def test_masked_bodies():
    found, _ = read(node('a', driver_info={'ipmi_password': 'pw',
                                           'ipmi_address': '10.0.0.1'}),
                    config('c', {'x': 1}, storagePolicy='encrypted'),
                    {'schema': 'deckhand/PrivateKey/v1',
                     'metadata': {'name': 'k'}, 'data': 'KEY'})
    assert [masking.masked_body(d)['data'] for d in found] == [
        dict(found[0].body['data'], driver_info={
            'ipmi_password': '******', 'ipmi_address': '10.0.0.1'}),
        '******', '******']
    assert found[0].body['data']['driver_info']['ipmi_password'] == 'pw'


def test_a_kind_registers_with_one_call():
    def check(document, lines, name):
        errors = ErrorCollector(name, lines)
        if not isinstance(document['data'].get('members'), list):
            errors.add(('data', 'members'), 'must be a list')
        return errors.errors

    registry = Registry()
    for kind in REGISTRY.kinds():
        registry.add(kind)
    registry.add(Kind('EtcdCluster', ('test/EtcdCluster/v1',), check,
                      lambda doc: tuple(doc['data']['members'])))
    found, _ = read({'schema': 'test/EtcdCluster/v1',
                     'metadata': {'name': 'e'},
                     'data': {'members': ['ctl01']}},
                    {'schema': 'test/EtcdCluster/v1',
                     'metadata': {'name': 'f'}, 'data': {}})
    result = validation.validate(found, registry=registry)
    assert result.design.of_kind('EtcdCluster') == {'e': ('ctl01',)}
    assert [str(i.error) for i in result.errors] == [
        'document "f", field "data.members": must be a list']
    with pytest.raises(ValueError) as err:
        registry.add(Kind('Other', ('test/EtcdCluster/v1',), check))
    assert str(err.value) == \
        'schema test/EtcdCluster/v1 is read by EtcdCluster already'


def test_issue_as_dict():
    issue = documents.DesignIssue(DocumentError('d', 'bad', field='f',
                                                line=3), 'c', 'a/B/v1', 'x')
    assert issue.as_dict() == {
        'document': 'd', 'message': 'bad', 'group': None, 'task': None,
        'field': 'f', 'line': 3, 'severity': 'error', 'collection': 'c',
        'schema': 'a/B/v1', 'source': 'x',
        'text': 'collection "c", file "x", schema "a/B/v1", document "d", '
                'field "f": bad (line 3)'}
    assert str(dataclasses.replace(issue, severity='warning')).startswith(
        'warning: collection "c"')


def test_etcd_clusters_is_a_kind_of_the_registry():
    """EtcdClusters documents are checked at a commit like every kind, and
    the design holds their model; its password is a secret in messages."""
    good = {'schema': 'ironside/EtcdClusters/v1',
            'metadata': {'name': 'etcd'},
            'data': {'clusters': [{
                'name': 'kubernetes',
                'members': [{'node': 'ctl01',
                             'client_url': 'https://10.0.0.1:2379'}],
                'auth': {'username': 'root', 'password': 'pw-1'}}]}}
    result = validate(good)
    assert result.issues == []
    model = result.design.of_kind('EtcdClusters')['etcd']
    assert model.cluster('kubernetes').endpoints == ('https://10.0.0.1:2379',)
    bad = {'schema': 'promenade/EtcdClusters/v1',
           'metadata': {'name': 'etcd'},
           'data': {'clusters': [{'name': 'kubernetes', 'members': [
               {'node': 'ctl01', 'client_url': 'ftp://pw-1'}]}]}}
    assert [str(i.error) for i in validate(bad).errors] == [
        'document "etcd", field "data.clusters[0].members[0].client_url": '
        "must be an http(s) URL with a host and a port, not 'ftp://pw-1'"]
    assert REGISTRY.kind_of(bad).name == 'EtcdClusters'
    assert REGISTRY.kind_of([{'id': 'task', 'type': 'shell'}]).name == \
        'TaskGraph'
    assert REGISTRY.kind_of({'schema': ['not', 'a', 'name']}) is None


def test_a_revision_stored_before_its_kind_was_read_still_loads(caplog):
    """A revision committed before EtcdClusters was a kind may hold one
    that was never checked: loading the revision leaves it out."""
    found, _ = read({'schema': 'promenade/EtcdClusters/v1',
                     'metadata': {'name': 'etcd'}, 'data': {}}, node('a'))
    design.forget()
    loaded = design.load(found, revision=3)
    assert loaded.of_kind('EtcdClusters') == {}
    assert set(loaded.nodes) == {'a'}
    assert 'Design revision 3: the promenade/EtcdClusters/v1 document ' \
        'etcd can not be read, and is left out: KeyError' in caplog.text
    with pytest.raises(KeyError):
        design.load(found)
