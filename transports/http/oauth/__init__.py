"""OAuth 2.1 for `/mcp` on a remote listener (issue 32). This module stays light: the paths the app hands to the
authorization server's routes (`routes.py`, which imports the mcp SDK on the first such request)."""

from __future__ import annotations

import os

from starlette.requests import Request

PUBLIC_URL_ENV = "MEMESH_PUBLIC_URL"
PROTECTED_RESOURCE = "/.well-known/oauth-protected-resource"
MCP_RESOURCE = "/mcp"
WELL_KNOWN = "/.well-known/oauth-"
PATHS = frozenset({"/authorize", "/authorize/approve", "/token", "/register", "/revoke"})


def is_oauth_path(path: str) -> bool:
    return path in PATHS or path.startswith(WELL_KNOWN)


def base_url(request: Request) -> str:
    """This server as its clients reach it: MEMESH_PUBLIC_URL when set (a server behind a TLS proxy), else the
    request's scheme and Host."""
    configured = os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")
    if configured:
        return configured
    host = request.headers.get("host") or f"{request.url.hostname}:{request.url.port}"
    return f"{request.url.scheme}://{host}"


def resource_metadata_url(base: str) -> str:
    """RFC 9728 §3.1: the metadata of the resource `<base>/mcp`."""
    return f"{base}{PROTECTED_RESOURCE}{MCP_RESOURCE}"
