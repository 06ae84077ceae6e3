"""The conductor's handle on the process that forks BMC session
processes (:mod:`.forker_process`).

Session processes are forked from that process rather than from the
conductor: it has one thread (a fork of the conductor could inherit a
lock another thread held) and pyghmi loaded already, so a fork takes about
20 ms and 7 MB that are the session's own (a process started from
scratch: 180 ms and 18 MB). multiprocessing's fork server would do the
same but imports the conductor's main module into each child.

The conductor starts it with one end of a socket pair (SOCK_SEQPACKET).
Each request is a pickled ``session_process.serve`` argument tuple with
one file descriptor, the session's end of the socket pair it talks to the
conductor over; the answer is the pickled pid of the new process. When
the conductor goes away, the forker ends.
"""

from __future__ import annotations

import pickle
import socket
import subprocess
import sys
import threading
from multiprocessing import connection

# The forker's own process, named rather than imported: it loads pyghmi,
# which the conductor does not.
FORKER_MODULE = 'ironside.drivers.modules.ipmi.forker_process'

# Seconds the conductor waits for a fork (the first includes starting this
# process and importing pyghmi).
FORK_TIMEOUT = 30.0


class Forker:
    """The conductor's handle: starts the forker at the first fork, and
    again if it died."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def fork(self, serve_args: tuple[object, ...], wait: float
             ) -> tuple[connection.Connection, int]:
        """A new session process running ``session_process.serve(conn,
        *serve_args)``: the conductor's end of its connection, and its
        pid. Raises OSError when it could not be had, TimeoutError when
        other forks held the forker for ``wait`` seconds."""
        if not self._lock.acquire(timeout=max(wait, 0.0)):
            raise TimeoutError('the forker is busy')
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            control = self._running()
            socket.send_fds(control, [pickle.dumps(serve_args)],
                            [theirs.fileno()])
            answer = control.recv(4096)
            if not answer:
                raise ConnectionError('the forker ended')
            pid = pickle.loads(answer)
        except BaseException:
            # It may answer late: a new one never mixes up answers.
            self._stop()
            ours.close()
            raise
        finally:
            theirs.close()
            self._lock.release()
        return connection.Connection(ours.detach()), pid

    def _running(self) -> socket.socket:
        # The two are set, and cleared, together.
        if self._control is not None and self._process is not None \
                and self._process.poll() is None:
            return self._control
        self._stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX,
                                         socket.SOCK_SEQPACKET)
        try:
            self._process = subprocess.Popen(
                [sys.executable, '-m', FORKER_MODULE, str(theirs.fileno())],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.settimeout(FORK_TIMEOUT)
        self._control = ours
        return ours

    def _stop(self) -> None:
        """Close the control socket: the forker ends when it sees that."""
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._process is not None:
            try:
                self._process.wait(timeout=0)
            except subprocess.TimeoutExpired:
                pass  # it ends by itself, and is reaped at exit
            self._process = None

    def close(self) -> None:
        with self._lock:
            self._stop()
