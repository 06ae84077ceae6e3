"""Secrets of design documents, masked wherever documents are shown.

A document's whole ``data`` is secret when its ``metadata.storagePolicy``
is ``encrypted`` or its kind is a secret one (Deckhand's passphrases and
keys); otherwise the values of keys that name a password, secret, token,
key, passphrase or credential are. Shows, renders, diffs, error messages
and action reports all go through here; the stored documents keep the
values, for the site actions that need them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from collections.abc import Sequence
from typing import Any

from ironside.common.secrets import MASK
from ironside.common.secrets import is_secret_key
from ironside.common.secrets import mask_secrets
from ironside.strategy.core.paths import Path
from ironside.strategy.reader.documents import DesignDocument
from ironside.strategy.reader.kinds import REGISTRY


def secret_document(document: DesignDocument) -> bool:
    kind = REGISTRY.kind(document.schema)
    return document.encrypted or bool(kind and kind.secret)


def masked_body(document: DesignDocument) -> dict[str, Any]:
    """The document as it may be shown."""
    body = dict(document.body)
    if 'data' in body:
        body['data'] = MASK if secret_document(document) \
            else mask_secrets(body['data'])
    return body


def secret_path(document: DesignDocument, path: Path) -> bool:
    """Whether the value at ``path`` (from the document's top) is secret."""
    if path[:1] == ('data',) and secret_document(document):
        return True
    return any(isinstance(part, str) and is_secret_key(part)
               for part in path)


def shown_value(document: DesignDocument, path: Path, value: Any) -> Any:
    """``value`` (found at ``path``) as it may be shown."""
    if secret_path(document, path):
        return MASK
    return mask_secrets(value)


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, (str, int, float)) and \
            not isinstance(value, bool):
        yield value


def _secret_leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for key, item in value.items():
            if is_secret_key(str(key)):
                yield from _leaves(item)
            else:
                yield from _secret_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _secret_leaves(item)


def secret_values(document: DesignDocument) -> list[Any]:
    """Every secret scalar of the document, to keep out of messages."""
    data = document.body.get('data')
    found = _leaves(data) if secret_document(document) \
        else _secret_leaves(data)
    return [v for v in found if v != '']


def redact(text: str, values: Sequence[Any]) -> str:
    """``text`` with every one of ``values`` replaced by the mask."""
    forms = set()
    for value in values:
        forms.add(json.dumps(value))
        forms.add(repr(value))
        forms.add(str(value))
    for form in sorted(forms, key=len, reverse=True):
        text = re.sub(r'(?<![\w.])%s(?![\w])' % re.escape(form), MASK,
                      text)
    return text
