"""What counts as a secret, and how it is shown: ``******``.

A value is secret when its key names a password, secret, token, key,
passphrase or credential. Whatever shows stored data (API answers, error
messages, logs, site reports) masks such values with :func:`mask_secrets`;
the data itself is kept as given. This is the only list of secret words:
a second one would drift from it.
"""

from __future__ import annotations

import functools
from typing import Any

MASK = '******'

SECRET_WORDS = ('password', 'passwd', 'pswd', 'secret', 'token', 'key',
                'passphrase', 'credential')
# Keys of a node's instance_info shown masked whatever their name says.
INSTANCE_SECRETS = ('configdrive', 'image_url')


def names_any(text: str, words: tuple[str, ...] = SECRET_WORDS) -> bool:
    """Whether ``text`` contains any of ``words``, in any case.

    Also a cheap test of a whole stored document: one whose text names
    no secret word has nothing to mask and need not be decoded.
    """
    # lower() and "in" are many times faster than a case-insensitive
    # regex; a loop, faster than any() over a generator.
    lowered = text.lower()
    for word in words:
        if word in lowered:
            return True
    return False


@functools.lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    return names_any(key)


def mask_secrets(value: Any) -> Any:
    """A copy of ``value`` with secret-looking keys' values masked."""
    if isinstance(value, dict):
        return {k: (MASK if v not in (None, '') and is_secret_key(str(k))
                    else mask_secrets(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value


def mask_instance_info(info: dict | None) -> dict:
    """A node's instance_info as shown: secrets, the config drive and the
    image URL (which may carry a temporary credential) masked."""
    masked = mask_secrets(info or {})
    for key in INSTANCE_SECRETS:
        if masked.get(key):
            masked[key] = MASK
    return masked
