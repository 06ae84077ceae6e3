"""Node lists send kept renderings of unchanged nodes, and only those."""

from __future__ import annotations

import tracemalloc

import pytest

from ironside.api import nodes as nodes_api
from ironside.api import rendered_nodes
from ironside.common import heap
from ironside.db import nodes as nodes_db
from tests import utils
from tests.unit.db.test_hot_path import statements


def _fresh(api, conf, path, **kwargs):
    """The answer with no kept renderings at all."""
    conf.set('api', rendered_node_cache_size=0)
    try:
        return api.get(path, **kwargs).json
    finally:
        conf.set('api', rendered_node_cache_size=10000)


def _reads_whole_nodes(sent: list[str]) -> bool:
    return any('fingerprint' in s and 'IN (' in s for s in sent)


def test_a_second_list_reads_fingerprints_only(api, create_node, conf):
    for name in ('a', 'b', 'c'):
        create_node(name=name, driver_info={'ipmi_password': 'p'})
    with statements() as first_sent:
        first = api.get('/v1/nodes/detail').json
    with statements() as second_sent:
        second = api.get('/v1/nodes/detail').json
    assert _reads_whole_nodes(first_sent)
    assert not _reads_whole_nodes(second_sent)
    assert second == first == _fresh(api, conf, '/v1/nodes/detail')
    assert [n['name'] for n in second['nodes']] == ['a', 'b', 'c']
    assert second['nodes'][0]['driver_info'] == {'ipmi_password': '******'}


def _patch_extra(api, uuid):
    api.patch('/v1/nodes/%s' % uuid, [{'op': 'add', 'path': '/extra/k',
                                       'value': 'v'}])


def _add_trait(api, uuid):
    assert api.put('/v1/nodes/%s/traits/CUSTOM_GOLD' % uuid).status_code \
        == 204


def _maintenance(api, uuid):
    assert api.put('/v1/nodes/%s/maintenance' % uuid,
                   {'reason': 'r'}).status_code == 202


def _lock(api, uuid):
    nodes_db.reserve_node('someone', uuid)


def _secret(api, uuid):
    utils.update_node(uuid, {'driver_info': {'ipmi_password': 'x',
                                                'ipmi_address': 'new'}})


@pytest.mark.parametrize('change', [_patch_extra, _add_trait, _maintenance,
                                    _lock, _secret])
def test_every_change_shows_in_the_next_list(api, create_node, conf,
                                             change):
    node = create_node(name='changing')
    create_node(name='still')
    before = api.get('/v1/nodes/detail').json
    change(api, node['uuid'])
    after = api.get('/v1/nodes/detail').json
    assert after == _fresh(api, conf, '/v1/nodes/detail')
    assert after['nodes'][0] != before['nodes'][0]
    assert after['nodes'][1] == before['nodes'][1]


def test_views_keep_their_own_renderings(api, create_node, conf):
    create_node(name='one', driver_info={'ipmi_password': 'p'})
    for _ in range(2):
        latest = api.get('/v1/nodes/detail').json['nodes'][0]
        old = api.get('/v1/nodes/detail', version='1.1').json['nodes'][0]
        named = api.get('/v1/nodes', fields='uuid,name').json['nodes'][0]
        other_host = api.get('/v1/nodes/detail', headers={
            'Host': 'elsewhere.example'}).json['nodes'][0]
    assert 'name' in latest and 'name' not in old
    assert set(named) == {'uuid', 'name', 'links'}
    assert other_host['links'][0]['href'].startswith(
        'http://elsewhere.example/')
    assert latest['links'][0]['href'] != other_host['links'][0]['href']
    assert api.get('/v1/nodes/detail', version='1.1').json == _fresh(
        api, conf, '/v1/nodes/detail', version='1.1')


@pytest.mark.parametrize('fields', [None, 'uuid,name'])
def test_a_conductors_list_uses_the_kept_renderings(api, create_node,
                                                    fields):
    create_node(name='idle')
    query = {'conductor': 'test-conductor'}
    if fields:
        query['fields'] = fields
    first = api.get('/v1/nodes', detail=not fields, **query).json
    with statements() as sent:
        second = api.get('/v1/nodes', detail=not fields, **query).json
    assert second == first
    assert [n['name'] for n in second['nodes']] == ['idle']
    assert not _reads_whole_nodes(sent)


def test_pages_follow_each_other_from_kept_renderings(api, create_node):
    for name in ('a', 'b', 'c'):
        create_node(name=name)
    api.get('/v1/nodes/detail')
    page = api.get('/v1/nodes/detail', limit=2).json
    assert [n['name'] for n in page['nodes']] == ['a', 'b']
    assert page['next'].endswith('marker=%s' % page['nodes'][1]['uuid'])


def test_the_cache_keeps_at_most_its_capacity():
    cache = rendered_nodes.RenderedNodes(2, 2 ** 20)
    view, other = cache.view_id(('1.99', None)), cache.view_id(('1.1', None))
    assert view != other
    assert cache.view_id(('1.99', None)) == view
    for name in ('a', 'b', 'c'):
        cache.put(view, name, ('fp-' + name,), name.encode())
    assert len(cache) == 2
    assert cache.get(view, 'a', ('fp-a',)) is None
    assert cache.get(view, 'c', ('fp-c',)) == b'c'
    assert cache.get(view, 'c', ('fp-other',)) is None
    assert cache.get(other, 'c', ('fp-c',)) is None
    cache.put(view, 'c', ('fp-new',), b'new')
    assert cache.get(view, 'c', ('fp-new',)) == b'new'
    assert cache.get(view, 'c', ('fp-c',)) is None
    empty = rendered_nodes.RenderedNodes(0, 2 ** 20)
    empty.put(view, 'a', ('fp',), b'a')
    assert len(empty) == 0


def test_views_without_end_start_the_cache_afresh(monkeypatch):
    monkeypatch.setattr(rendered_nodes, 'MAX_VIEWS', 3)
    cache = rendered_nodes.RenderedNodes(100, 2 ** 20)
    first = cache.view_id('fields=a')
    cache.put(first, 'node', ('fp',), b'a')
    ids = {cache.view_id('fields=%d' % n) for n in range(2)}
    assert cache.get(first, 'node', ('fp',)) == b'a'
    renumbered = cache.view_id('fields=new')
    assert renumbered not in ids | {first}
    assert cache.get(first, 'node', ('fp',)) is None
    assert cache.view_id('fields=a') not in ids | {first, renumbered}


def _entry(name: str, size: int) -> tuple[str, tuple, bytes]:
    """A node ``name`` whose kept rendering takes ``size`` bytes."""
    source = ('fp-' + name,)
    fixed = rendered_nodes.entry_size(name, source, b'')
    return name, source, b'x' * (size - fixed)


def test_the_cache_keeps_at_most_its_bytes():
    cache = rendered_nodes.RenderedNodes(100, 10000)
    view = cache.view_id(('1.99', None))
    for name in ('a', 'b', 'c'):
        cache.put(view, *_entry(name, 4000))
    # a went first: three would take 12,000 bytes.
    assert len(cache) == 2 and cache.bytes == 8000
    assert cache.get(view, *_entry('a', 4000)[:2]) is None
    assert cache.get(view, *_entry('c', 4000)[:2]) is not None
    # One big rendering pushes out as many of the oldest as it needs.
    cache.put(view, *_entry('d', 9000))
    assert len(cache) == 1 and cache.bytes == 9000
    # A rendering bigger than the whole bound is not kept, nor does it
    # push anything out.
    cache.put(view, *_entry('e', 10001))
    assert cache.get(view, *_entry('e', 10001)[:2]) is None
    assert len(cache) == 1 and cache.bytes == 9000


def test_a_node_rendered_again_counts_once_and_as_the_newest():
    cache = rendered_nodes.RenderedNodes(100, 10000)
    view = cache.view_id(('1.99', None))
    cache.put(view, *_entry('a', 3000))
    cache.put(view, *_entry('b', 3000))
    cache.put(view, 'a', ('fp-a2',), _entry('a', 3000)[2][:-3] + b'new')
    # Replaced, not added: its new fingerprint is one character longer.
    assert len(cache) == 2 and cache.bytes == 6001
    cache.put(view, *_entry('c', 4000))
    # b is now the oldest: it goes, the new a stays.
    assert cache.get(view, *_entry('b', 3000)[:2]) is None
    assert cache.get(view, 'a', ('fp-a2',)).endswith(b'new')
    assert cache.bytes == 7001


def test_the_bytes_bound_is_configured(conf):
    conf.set('api', rendered_node_cache_mib=1)
    assert rendered_nodes.cache().max_bytes == 2 ** 20
    conf.set('api', rendered_node_cache_mib=0)
    cache = rendered_nodes.cache()
    cache.put(cache.view_id('v'), 'a', ('fp',), b'{}')
    assert len(cache) == 0


def test_a_long_list_has_the_heap_trimmed_afterwards(api, create_node,
                                                     monkeypatch):
    """Rendering a page of many nodes leaves free pages in the heap; the
    answer has them handed back (common/heap.py), a short one does not.
    The trim is counted instead of made."""
    trims = []
    monkeypatch.setattr(heap, '_TRIMMER', heap.Trimmer(
        lambda pad: trims.append(pad) or 1, interval=0))
    monkeypatch.setattr(nodes_api, 'TRIM_AFTER_NODES', 3)
    for name in ('a', 'b', 'c'):
        create_node(name=name)
    api.get('/v1/nodes', limit=2)
    api.get('/v1/nodes/detail')
    utils.wait_for(lambda: trims == [0], what='one trim')
    assert heap._TRIMMER.trims == 1


@pytest.mark.parametrize('kept', [0, 10000])
def test_a_detail_page_holds_each_rendering_at_its_size(api, create_node,
                                                        conf, kept):
    """A page's renderings wait in a list until the page is answered (a
    thousand of them in a full page), and the cache keeps them: each
    holds its own length, not orjson's buffer (32 KiB for a node of
    3 KiB)."""
    for index in range(100):
        create_node(name='n%d' % index, properties={'blob': 'x' * 3000})
    conf.set('api', rendered_node_cache_size=0)
    api.get('/v1/nodes/detail')  # statements compiled, caches warm
    conf.set('api', rendered_node_cache_size=kept)
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        size = len(api.get('/v1/nodes/detail').text) / 100
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size > 5000
    assert len(rendered_nodes.cache()) == (100 if kept else 0)
    held, peak = (held - before) / 100, (peak - before) / 100
    # At the peak, besides what is kept: the page's renderings and the
    # answer's body (in orjson's buffer, up to twice its length): 16 KiB
    # a node of 5.5 KiB; 43 KiB and more with the renderings in orjson's.
    assert peak - held < 4 * size
    # Kept: each rendering (5.5 KiB), the row it came from (its
    # fingerprint, 1.8 KiB), and their keys.
    assert held < (2.5 * size if kept else 1000)
