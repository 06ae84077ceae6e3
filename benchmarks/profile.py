"""Where a server's time goes while it provisions: py-spy, summarised.

``python -m benchmarks.provision --py-spy DIR ...`` records each server
(with its forked children) from the end of enrollment to the end of the
undeploy phase, sampling the threads that hold the GIL, into
``DIR/<server>-<N>.raw`` (py-spy's collapsed stacks). This module then
prints the frames that most samples pass through (inclusive) and stop in
(self)::

    python -m benchmarks.profile DIR/ironside-1000.raw [--focus TEXT]

``--focus`` keeps only the stacks that pass through a frame containing
TEXT, and shows what that frame calls. py-spy is not a dependency of
Ironside: ``pip install py-spy``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SAMPLE_RATE = 100


@contextlib.contextmanager
def record(pid: int, output: Path) -> Iterator[None]:
    """Sample process pid (and its children) while the block runs."""
    py_spy = shutil.which('py-spy') or str(Path(sys.executable).parent /
                                            'py-spy')
    output.parent.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [py_spy, 'record', '--pid', str(pid), '--rate', str(SAMPLE_RATE),
         '--gil', '--subprocesses', '--nonblocking', '--format', 'raw',
         '--output', str(output)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        # SIGINT makes py-spy write what it has and exit.
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _stacks(path: Path) -> Iterator[tuple[list[str], int]]:
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(' ')
        if stack and count.isdigit():
            yield stack.split(';'), int(count)


def _short(frame: str) -> str:
    """"func (path/to/file.py:12)" -> "func (file.py:12)"."""
    name, _, where = frame.partition(' (')
    return '%s (%s' % (name, where.rsplit('/', 1)[-1]) if where else name


def summarize(path: Path, focus: str | None = None,
              top: int = 40) -> str:
    inclusive: collections.Counter = collections.Counter()
    leaf: collections.Counter = collections.Counter()
    callees: collections.Counter = collections.Counter()
    total = kept = 0
    for frames, count in _stacks(path):
        total += count
        if focus:
            hits = [i for i, frame in enumerate(frames) if focus in frame]
            if not hits:
                continue
            below = frames[hits[0] + 1:hits[0] + 2]
            callees[_short(below[0]) if below else '(self)'] += count
        kept += count
        leaf[_short(frames[-1])] += count
        for frame in {_short(frame) for frame in frames}:
            inclusive[frame] += count
    if not total:
        return 'no samples in %s' % path
    lines = ['%s: %d samples%s' % (
        path, total, ', %d (%.1f%%) through %r' % (
            kept, 100 * kept / total, focus) if focus else '')]
    sections = [('inclusive', inclusive), ('self', leaf)]
    if focus:
        sections.insert(0, ('what %r calls' % focus, callees))
    for title, counter in sections:
        lines.append('-- %s (%% of all samples)' % title)
        lines.extend('%6.1f%%  %s' % (100 * count / total, frame)
                     for frame, count in counter.most_common(top))
    return '\n'.join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('raw', type=Path, help='py-spy raw output')
    parser.add_argument('--focus', help='only stacks through this frame')
    parser.add_argument('--top', type=int, default=40)
    args = parser.parse_args(argv)
    print(summarize(args.raw, args.focus, args.top))
    return 0


if __name__ == '__main__':
    sys.exit(main())
