"""Node queries: uniqueness, saving changes, listing, reservations."""

from __future__ import annotations

import tracemalloc

import pytest

from ironside.common import exception
from ironside.db import history as history_db
from ironside.db import node_views
from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.db.test_hot_path import compiled_statements


def _node(**kw):
    return nodes_db.create_node(utils.fake_node_values(**kw))


def test_duplicate_name_is_a_clear_conflict(db):
    _node(name='rack1-n1')
    with pytest.raises(exception.DuplicateName, match='rack1-n1'):
        _node(name='rack1-n1')


def test_duplicate_instance_is_refused(db):
    _node(instance_uuid='11111111-2222-3333-4444-555555555555')
    with pytest.raises(exception.InstanceAssociated):
        _node(instance_uuid='11111111-2222-3333-4444-555555555555')


def test_get_by_uuid_name_and_id(db):
    node = _node(name='n-by-name')
    assert nodes_db.get_node(node.uuid).id == node.id
    assert nodes_db.get_node('n-by-name').id == node.id
    assert nodes_db.get_node(node.id).uuid == node.uuid
    with pytest.raises(exception.NodeNotFound, match='nope'):
        nodes_db.get_node('nope')


def test_nested_json_changes_are_saved(db):
    node = _node(driver_internal_info={'vifs': ['a']})
    node.driver_internal_info['vifs'].append('b')
    node.properties['capabilities'] = 'boot_mode:uefi'
    nodes_db.save_node(node)
    fresh = nodes_db.get_node(node.id)
    assert fresh.driver_internal_info == {'vifs': ['a', 'b']}
    assert fresh.properties['capabilities'] == 'boot_mode:uefi'


def test_a_held_node_keeps_its_documents_fingerprints_compact(db):
    """A conductor holds a node per task, with a fingerprint of each of
    its documents; in orjson's own buffers those were 4 KiB each for
    ``{}`` (50 KiB a node of the test's documents; 5 KiB now)."""
    node_id = _node().id
    nodes_db.get_node(node_id)  # the statement compiled
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        held = [nodes_db.get_node(node_id) for _ in range(50)]
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(held) == 50
    assert (after - before) / 50 < 16 * 1024


def test_reads_of_nodes_by_id_compile_once_whatever_the_ids(db):
    """A page's missing nodes and every node shown are read by id with
    their traits; the ids go into the SQL when it runs, so one compiled
    statement serves every set of ids (one per set would be compiled
    each time and crowd the engine's compiled cache)."""
    ids = [_node(name='n%d' % index).id for index in range(3)]
    nodes_db.set_node_traits(ids[1], ['CUSTOM_B', 'CUSTOM_A'])
    with compiled_statements() as sent:
        first = node_views.select_nodes_by_id(['name'], [ids[0]],
                                              traits=True)
        second = node_views.select_nodes_by_id(['name'], ids[1:],
                                               traits=True)
    compiled: dict[str, set[int]] = {}
    for statement, form in sent:
        table = 'traits' if 'node_traits' in statement else 'nodes'
        compiled.setdefault(table, set()).add(id(form))
    assert [row[0] for row in first.rows] == ['n0']
    assert sorted(row[0] for row in second.rows) == ['n1', 'n2']
    assert second.traits == {ids[1]: ['CUSTOM_A', 'CUSTOM_B'], ids[2]: []}
    assert {table: len(objects) for table, objects in compiled.items()} \
        == {'nodes': 1, 'traits': 1}


def test_save_writes_only_changed_columns(db):
    node = _node(extra={'a': 1})
    other = nodes_db.get_node(node.id)
    other.extra['b'] = 2
    nodes_db.save_node(other)
    node.description = 'changed elsewhere'
    nodes_db.save_node(node)
    fresh = nodes_db.get_node(node.id)
    assert fresh.extra == {'a': 1, 'b': 2}
    assert fresh.description == 'changed elsewhere'


def test_save_does_not_touch_the_reservation(db):
    node = _node()
    nodes_db.reserve_node('host-a', node.id)
    node.description = 'x'
    nodes_db.save_node(node)
    assert nodes_db.get_node(node.id).reservation == 'host-a'


def test_history_saved_with_the_node(db):
    node = _node()
    node.last_error = 'failed'
    nodes_db.save_node(node, [history_db.new_record('failed', 'deploying',
                                                    history_db.ERROR)])
    records = history_db.list_for_node(node.id)
    assert [(r.event, r.severity) for r in records] == [('failed', 'ERROR')]


def test_release_by_another_host_is_refused(db):
    node = _node()
    nodes_db.reserve_node('host-a', node.id)
    with pytest.raises(exception.NodeNotLocked):
        nodes_db.release_node('host-b', node.id)
    nodes_db.release_node('host-a', node.id)
    assert nodes_db.get_node(node.id).reservation is None


def _page(filters=None, **kwargs):
    return node_views.select_node_dicts(('uuid', 'name', 'resource_class'),
                                        filters, **kwargs)


def test_list_pages_and_sorts(db):
    created = [_node(name='n%02d' % i, resource_class='rc%d' % (i % 2))
               for i in range(7)]
    page = _page(limit=3)
    assert [n['name'] for n in page] == ['n00', 'n01', 'n02']
    page = _page(limit=3, marker=page[-1]['uuid'])
    assert [n['name'] for n in page] == ['n03', 'n04', 'n05']
    by_rc = _page(sort_key='resource_class', sort_dir='desc')
    assert [n['resource_class'] for n in by_rc] == ['rc1'] * 3 + ['rc0'] * 4
    second = _page(sort_key='resource_class', sort_dir='desc', limit=2,
                   marker=by_rc[1]['uuid'])
    assert [n['uuid'] for n in second] == [n['uuid'] for n in by_rc[2:4]]
    only_rc0 = _page({'resource_class': 'rc0'})
    assert len(only_rc0) == 4
    assert created


def test_sorting_by_json_field_is_refused(db):
    with pytest.raises(exception.InvalidParameterValue,
                       match='driver_info'):
        _page(sort_key='driver_info')


def test_traits_replace_add_remove(db):
    node = _node()
    nodes_db.set_node_traits(node.id, ['CUSTOM_B', 'CUSTOM_A'])
    nodes_db.add_node_trait(node.id, 'CUSTOM_C')
    nodes_db.add_node_trait(node.id, 'CUSTOM_C')
    assert nodes_db.get_node_traits(node.id) == ['CUSTOM_A', 'CUSTOM_B',
                                                 'CUSTOM_C']
    nodes_db.delete_node_trait(node.id, 'CUSTOM_A')
    with pytest.raises(exception.NodeTraitNotFound):
        nodes_db.delete_node_trait(node.id, 'CUSTOM_A')
    assert nodes_db.traits_by_node([node.id]) == {
        node.id: ['CUSTOM_B', 'CUSTOM_C']}


def test_destroy_removes_traits_and_history(db):
    node = _node()
    nodes_db.set_node_traits(node.id, ['CUSTOM_X'])
    history_db.record(node.id, 'hello', 'test')
    nodes_db.destroy_node(node.uuid)
    with pytest.raises(exception.NodeNotFound):
        nodes_db.get_node(node.uuid)
    assert history_db.list_for_node(node.id) == []
