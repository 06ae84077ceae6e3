"""What counts as a secret, and how it is shown: ``******``.

A value is secret when its key names a password, secret, token, key,
passphrase or credential. Whatever shows stored data (API answers, error
messages, logs) masks such values; the data itself is kept as given.
"""

from __future__ import annotations

import functools
from typing import Any

MASK = '******'

SECRET_WORDS = ('password', 'passwd', 'pswd', 'secret', 'token', 'key',
                'passphrase', 'credential')


@functools.lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    # lower() and "in" are many times faster than a case-insensitive regex.
    lowered = key.lower()
    return any(word in lowered for word in SECRET_WORDS)


def mask_secrets(value: Any) -> Any:
    """A copy of ``value`` with secret-looking keys' values masked."""
    if isinstance(value, dict):
        return {k: (MASK if v not in (None, '') and is_secret_key(str(k))
                    else mask_secrets(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value
