"""The output tail of a node task: last lines, last bytes, no keys."""

from __future__ import annotations

from ironside.strategy.tasks.output import OutputTail
from ironside.strategy.tasks.output import redact_private_keys

KEY = ('-----BEGIN OPENSSH PRIVATE KEY-----\n'
       'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\n'
       'c2gtZWQyNTUxOQAAACBvbW9ja2tleW1vY2trZXltb2Nra2V5bW9ja2tleW1vYwAA\n'
       '-----END OPENSSH PRIVATE KEY-----')


def test_short_output_kept_whole():
    tail = OutputTail()
    tail.append(b'one\n')
    tail.append('two\n')
    assert tail.text() == 'one\ntwo'


def test_last_lines_only():
    tail = OutputTail(max_lines=3)
    for i in range(10):
        tail.append(b'line %d\n' % i)
    assert tail.text() == 'line 7\nline 8\nline 9'


def test_last_bytes_only_and_the_cut_line_marked():
    tail = OutputTail(max_lines=50, max_bytes=64)
    tail.append(b'a' * 1000 + b'\nlast line\n')
    text = tail.text()
    assert len(text.encode()) <= 64
    assert text.startswith('…aaa')
    assert text.endswith('a\nlast line')
    assert tail.total_bytes == 1011


def test_memory_stays_bounded():
    tail = OutputTail(max_bytes=100)
    for _ in range(10000):
        tail.append(b'x' * 99 + b'\n')
    assert len(tail._buffer) <= 400
    assert tail.text() == '…' + 'x' * 96


def test_no_half_characters():
    tail = OutputTail(max_bytes=10)
    tail.append('ééééééééééé'.encode())
    assert '\ufffd' not in tail.text()


def test_private_keys_blanked():
    assert redact_private_keys('before\n%s\nafter' % KEY) == \
        'before\n******\nafter'
    # Cut at the front of the tail, or at its end.
    assert redact_private_keys(KEY[60:] + '\nafter') == '******\nafter'
    assert redact_private_keys('before\n' + KEY[:80]) == 'before\n******'
    tail = OutputTail(max_bytes=120)
    tail.append(KEY + '\nafter\n')
    assert tail.text() == '******\nafter'
