"""JSON schemas of the site API's request bodies.

The documents themselves (strategies, task graphs, design documents) are
read and checked by the site layer's readers, which place each error on
its line; these schemas check only the shape of the request around them.
"""

from __future__ import annotations

# A document given as YAML or JSON text, or as a JSON object.
DOCUMENT = {'type': ['string', 'object'], 'minLength': 1}

STRATEGY = {
    'type': 'object',
    'properties': {'document': DOCUMENT,
                   'name': {'type': 'string', 'minLength': 1}},
    'required': ['document'],
    'additionalProperties': False,
}

# The name of the file a document came from, which its errors name.
_FILE_NAME = {'type': 'string', 'minLength': 1}

ONE_DOCUMENT = {
    'type': 'object',
    'properties': {'document': DOCUMENT, 'name': _FILE_NAME},
    'required': ['document'],
    'additionalProperties': False,
}

# One of several documents: a text, a parsed document (it has its
# schema), or either named by its file.
GIVEN_DOCUMENT = {
    'type': ['string', 'object'], 'minLength': 1,
    'if': {'type': 'object', 'not': {'required': ['schema']}},
    'then': {'properties': {'name': _FILE_NAME, 'document': DOCUMENT},
             'required': ['name', 'document'],
             'additionalProperties': False},
}
DOCUMENTS = {'type': 'array', 'minItems': 1, 'items': GIVEN_DOCUMENT}

ACTION = {
    'type': 'object',
    'properties': {
        'action': {'type': 'string', 'minLength': 1},
        'strategy': {'type': ['string', 'null'], 'minLength': 1},
        'parameters': {'type': ['object', 'null']},
        'documents': {'type': ['array', 'null'], 'items': DOCUMENT},
        'access': {'type': ['object', 'null']},
    },
    'required': ['action'],
    'additionalProperties': False,
}

NODE_FILTER = {
    'type': 'object',
    'properties': {'selectors': {'type': 'array'},
                   'revision': {'type': ['string', 'integer']}},
    'additionalProperties': False,
}

TASKS = {
    'type': 'object',
    'properties': {'documents': DOCUMENTS},
    'required': ['documents'],
    'additionalProperties': False,
}

# One task graph, or several validated together (the handler sees that
# the body has one of the two).
TASK_GRAPHS = {
    'type': 'object',
    'properties': {'document': DOCUMENT, 'name': _FILE_NAME,
                   'documents': DOCUMENTS},
    'additionalProperties': False,
}

STAGE = {
    'type': 'object',
    'properties': {
        'sources': {
            'type': 'array',
            'items': {
                'type': 'object',
                'required': ['name', 'text'],
                'properties': {'name': {'type': 'string', 'minLength': 1},
                               'text': {'type': 'string'}},
                'additionalProperties': False,
            },
        },
        'empty': {'type': 'boolean'},
    },
    'required': ['sources'],
    'additionalProperties': False,
}

COMMIT = {
    'type': 'object',
    'properties': {'force': {'type': 'boolean'},
                   'dry_run': {'type': 'boolean'}},
    'additionalProperties': False,
}
