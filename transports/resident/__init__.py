"""The resident MeMesh server (MEMESH_DAEMON): one process per user and database that keeps MeMesh imported, the
hybrid model and a PostgreSQL connection loaded, and runs the CLI's plain commands and the hook events for the short
processes that ask it (docs/adr/0008-whole-process-speed.md, "The resident server")."""
