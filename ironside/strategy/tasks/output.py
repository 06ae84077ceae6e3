"""The tail of a task's output, as an operator reads it in the report.

A task may print megabytes; the report keeps the end, where the error
usually is: the last lines (50) within the last few KiB (4), stdout and
stderr together in the order they arrived. Private key blocks are blanked
out, in case a task prints one.
"""

from __future__ import annotations

import re

from ironside.common.secrets import MASK

MAX_LINES = 50
MAX_BYTES = 4096
# Marks a first line whose start was cut off.
ELLIPSIS = '…'.encode()

_KEY_BLOCK = re.compile(
    r'-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?'
    r'(-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)', re.DOTALL)
# The end of a block whose beginning fell off the front of the tail.
_KEY_BLOCK_END = re.compile(
    r'\A.*?-----END [A-Z0-9 ]*PRIVATE KEY-----', re.DOTALL)


class OutputTail:
    """Keeps the last bytes of a stream of output chunks."""

    def __init__(self, max_lines: int = MAX_LINES,
                 max_bytes: int = MAX_BYTES) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self.total_bytes = 0

    def append(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode('utf-8', 'replace')
        self.total_bytes += len(data)
        self._buffer += data
        # Trim now and then rather than at every chunk; one spare
        # max_bytes keeps the lines that straddle the cut whole.
        if len(self._buffer) > 4 * self.max_bytes:
            del self._buffer[:-2 * self.max_bytes]

    def text(self) -> str:
        cut = len(self._buffer) > self.max_bytes or \
            self.total_bytes > len(self._buffer)
        if cut:
            data = bytes(self._buffer[-(self.max_bytes - len(ELLIPSIS)):])
            # Do not start in the middle of a UTF-8 character.
            while data and data[0] & 0xC0 == 0x80:
                data = data[1:]
        else:
            data = bytes(self._buffer)
        lines = data.decode('utf-8', 'replace').splitlines()
        if len(lines) > self.max_lines:
            lines = lines[-self.max_lines:]
        elif cut and lines:
            lines[0] = ELLIPSIS.decode() + lines[0]
        return redact_private_keys('\n'.join(lines))


def redact_private_keys(text: str) -> str:
    """``text`` with every PEM or OpenSSH private key block blanked out."""
    text = _KEY_BLOCK.sub(MASK, text)
    if '-----END' in text and 'PRIVATE KEY-----' in text:
        text = _KEY_BLOCK_END.sub(MASK, text)
    return text
