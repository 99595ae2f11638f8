"""`python -m memesh.transports.resident`: the resident server of this environment's database (started by a cold
`memesh` or `memesh-hook`, detached; see server.py)."""

import os

# posix_spawn hands on every descriptor its starter had without close-on-exec (a harness's pipe at fd 251, say): let
# go of them all before anything else, so that no one waiting for such a pipe's end waits for this server.
os.closerange(3, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 65536)

from memesh.transports.resident import server  # noqa: E402  (after the descriptors are let go)

server.main()
