"""JSON meant to be kept holds its own length, not orjson's buffer."""

from __future__ import annotations

import tracemalloc

import orjson

from ironside.common import kept_json


def _held_per_document(document) -> float:
    tracemalloc.start()
    try:
        kept = [kept_json.dumps(document) for _ in range(200)]
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(kept) == 200
    return held / 200


def test_kept_json_is_orjsons_json():
    document = {'b': [1, 2], 'a': {'c': None}}
    option = orjson.OPT_SORT_KEYS
    assert kept_json.dumps(document) == orjson.dumps(document)
    assert kept_json.dumps(document, option=option) == \
        orjson.dumps(document, option=option) == b'{"a":{"c":null},"b":[1,2]}'


def test_kept_json_holds_its_length():
    """orjson 3.13 holds 4 KiB for ``{}`` and 32 KiB for 3 KiB; a kept
    document holds its length and the bytes object's header."""
    for document in ({}, {'k': 'v' * 3000}):
        size = len(orjson.dumps(document))
        assert _held_per_document(document) < size + 100
