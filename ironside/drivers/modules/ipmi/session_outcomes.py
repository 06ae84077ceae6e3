"""What a BMC session process answers each call with (see
:mod:`.session_process`).

Apart from that module, so that the conductor, which reads the answers,
does not load pyghmi: only the forker and its session processes run it
(about 11 MiB of pyghmi's IPMI modules in every conductor otherwise).
"""

from __future__ import annotations

OK = 'ok'
REJECTED = 'rejected'
NO_ANSWER = 'no answer'
FAILED = 'failed'
IDLE = 'idle'
