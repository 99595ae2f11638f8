"""`python -m memesh.transports.resident`: the resident server of this environment's database (started by a cold
`memesh` or `memesh-hook`, detached; see server.py)."""

from memesh.transports.resident import server

server.main()
