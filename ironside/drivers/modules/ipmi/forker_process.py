"""The forker's own process (``python -m``; see :mod:`.session_forker`):
it forks a BMC session process for each request of the conductor.

Apart from :mod:`.session_forker`, which the conductor imports for its
handle, so that only this process loads pyghmi (through
:mod:`.session_process`, about 11 MiB); the conductor reads the session
processes' answers from :mod:`.session_outcomes`.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import socket
import sys
from multiprocessing import connection

from ironside.drivers.modules.ipmi import session_process


def _serve(control: socket.socket) -> None:
    """Fork a session process for each request, until the conductor goes
    away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Children are reaped by the kernel: the conductor watches them
    # through their sockets, not their exit status.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(control, 65536, 1)
        except OSError:
            return
        if not data:
            return
        serve_args = pickle.loads(data)
        pid = os.fork()
        if pid == 0:
            control.close()
            code = 1
            try:
                session_process.serve(connection.Connection(fds[0]),
                                      *serve_args)
                code = 0
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        control.send(pickle.dumps(pid))


if __name__ == '__main__':
    # What is loaded now is shared with every child for as long as the
    # garbage collector leaves it alone (it writes to what it walks).
    gc.freeze()
    _serve(socket.socket(fileno=int(sys.argv[1])))
