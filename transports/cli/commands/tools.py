"""Declarations of `memesh call`, `memesh serve` and the retired `memesh consolidate`: flags and help only."""

from __future__ import annotations

import sys
from typing import Annotated

from cyclopts import Parameter

from memesh.transports.cli.exits import FAILED
from memesh.transports.cli.shapes import Int, Switch


def call_(tool: str, arguments: Annotated[str, Parameter(allow_leading_hyphen=True)] = "-", /) -> int:
    """Call any tool with its JSON arguments, as an MCP client would; print its JSON answer (exit 1 on a refusal,
    with the failure body on stdout).

    Parameters
    ----------
    tool
        The tool's name, as MCP lists it (remember, recall, …).
    arguments
        A JSON object of arguments, or - (the default) to read it from standard input.
    """
    from memesh.transports.cli.actions import memory

    return memory.call_json(tool, arguments)


def serve(
    *,
    host: str = "127.0.0.1",
    port: Int = 3737,
    allow_remote: Switch = False,
    database: str | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> int:
    """Serve the HTTP API, the dashboard and MCP at /mcp (default http://127.0.0.1:3737).

    Parameters
    ----------
    host
        Address to bind; anything but loopback also needs --allow-remote.
    port
        Port to listen on.
    allow_remote
        Allow a non-loopback bind.
    database
        The database to use instead of the configured one: a SQLite file's path or a postgresql:// URL.
    tls_cert
        Serve HTTPS with this PEM certificate (chain); needs --tls-key.
    tls_key
        The PEM private key of --tls-cert (not encrypted).
    """
    from memesh.transports.cli.database import database_option
    from memesh.transports.http.serve import serve as run_server

    with database_option(database) as settings:
        return run_server(
            host=host, port=port, allow_remote=allow_remote, tls_cert=tls_cert, tls_key=tls_key, settings=settings
        )


CONSOLIDATE_RETIRED = (
    "memesh consolidate is retired. It replaced a memory's observations with an LLM summary at once, with no review "
    "and nothing to restore from. Use the MCP work_package tool from an already-running agent session: it stages one "
    "proposal, which you review with `memesh dream list`, `memesh dream show <id>`, then `memesh dream accept <id>` "
    "or `memesh dream reject <id>` (or GET /v1/dream/proposals and the dashboard)."
)


def consolidate(*_ignored: Annotated[str, Parameter(allow_leading_hyphen=True)]) -> int:
    """Retired: says where to go instead, and exits 1 whatever it was given."""
    print(f"Error: {CONSOLIDATE_RETIRED}", file=sys.stderr)
    return FAILED
