"""Kinds whose data is the operator's: configuration, settings, secrets.

``ironside/Config/v1``
    Configuration that tasks and expressions read, any data; the design
    holds it by name (``$.configs.<name>`` in expressions).
``ironside/Settings/v1``
    Settings of the site, a mapping, by name (``$.settings.<name>``):
    one section of Fuel's settings, named after it, holding its
    settings (``additional_components`` holding ``murano: {value:
    true}`` is ``$.settings.additional_components.murano.value``).
``deckhand/Passphrase/v1``, ``deckhand/PrivateKey/v1``,
``deckhand/CertificateKey/v1``
    Deckhand's secret documents: the data is a string, and a secret
    wherever it is shown, whatever ``storagePolicy`` says.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

from ironside.strategy.core.paths import Path
from ironside.strategy.reader.errors import DocumentError
from ironside.strategy.reader.errors import ErrorCollector
from ironside.strategy.reader.errors import document_name
from ironside.strategy.reader.registry import Kind
from ironside.strategy.reader.schema import DocumentSchema

CONFIG_SCHEMA = 'ironside/Config/v1'
SETTINGS_SCHEMA = 'ironside/Settings/v1'
PASSPHRASE_SCHEMA = 'deckhand/Passphrase/v1'
PRIVATE_KEY_SCHEMA = 'deckhand/PrivateKey/v1'
CERTIFICATE_KEY_SCHEMA = 'deckhand/CertificateKey/v1'


def _checker(data_schema: Mapping[str, Any]
             ) -> Callable[[Any, Mapping[Path, int], str],
                           list[DocumentError]]:
    schema = DocumentSchema({'type': 'object',
                             'properties': {'data': dict(data_schema)}})

    def check(document: Any, lines: Mapping[Path, int], name: str
              ) -> list[DocumentError]:
        errors = ErrorCollector(document_name(document, name), lines)
        schema.errors(document, errors)
        return errors.sorted()
    return check


def _data(document: Mapping[str, Any]) -> Any:
    return document['data']


_ANY = _checker({})
_MAPPING = _checker({'type': 'object'})
_TEXT = _checker({'type': 'string', 'minLength': 1})

KINDS = (
    Kind('Config', (CONFIG_SCHEMA,), _ANY, _data),
    Kind('Settings', (SETTINGS_SCHEMA,), _MAPPING, _data),
    Kind('Passphrase', (PASSPHRASE_SCHEMA,), _TEXT, _data, secret=True),
    Kind('PrivateKey', (PRIVATE_KEY_SCHEMA,), _TEXT, _data, secret=True),
    Kind('CertificateKey', (CERTIFICATE_KEY_SCHEMA,), _TEXT, _data,
         secret=True),
)
