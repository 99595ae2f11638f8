"""What every launcher a host starts must pass on to MeMesh: the environment that chooses the database and reaches it.

A host that starts MeMesh with a filtered environment (Codex gives a plugin's MCP server only the variables its
manifest names, on top of a short default list) and drops one of these splits the team: without
MEMESH_DATABASE_URL the process writes a local SQLite file while its teammates read PostgreSQL; without libpq's
variables it cannot authenticate or verify the server. tests/test_launchers.py holds every manifest and launcher
this package ships to this list. (`database` in config.json, read from MEMESH_DIR, reaches every process whatever
its host filters: the sturdier place for a team's URL.)
"""

from __future__ import annotations

from typing import Final

DATABASE_ENVIRONMENT: Final = (
    # where MeMesh keeps its files and which database it opens
    "MEMESH_DIR",
    "MEMESH_DB_PATH",
    "MEMESH_DATABASE_URL",
    "MEMESH_DATABASE_POOLER",
    # libpq's connection settings (PostgreSQL 15-17 docs, "Environment Variables"): host, credentials, TLS, service
    "PGHOST",
    "PGHOSTADDR",
    "PGPORT",
    "PGDATABASE",
    "PGUSER",
    "PGPASSWORD",
    "PGPASSFILE",
    "PGREQUIREAUTH",
    "PGCHANNELBINDING",
    "PGSERVICE",
    "PGSERVICEFILE",
    "PGSYSCONFDIR",
    "PGOPTIONS",
    "PGAPPNAME",
    "PGSSLMODE",
    "PGREQUIRESSL",
    "PGSSLCOMPRESSION",
    "PGSSLCERT",
    "PGSSLKEY",
    "PGSSLCERTMODE",
    "PGSSLROOTCERT",
    "PGSSLCRL",
    "PGSSLCRLDIR",
    "PGSSLSNI",
    "PGREQUIREPEER",
    "PGSSLMINPROTOCOLVERSION",
    "PGSSLMAXPROTOCOLVERSION",
    "PGGSSENCMODE",
    "PGKRBSRVNAME",
    "PGGSSLIB",
    "PGGSSDELEGATION",
    "PGCONNECT_TIMEOUT",
    "PGCLIENTENCODING",
    "PGTARGETSESSIONATTRS",
    "PGLOADBALANCEHOSTS",
)
