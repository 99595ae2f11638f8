"""OAuth 2.1 for /mcp (issue 32) from outside: the mcp SDK's own OAuth client (`OAuthClientProvider`) against a real
`memesh serve --host 0.0.0.0 --allow-remote` over a socket, on both engines — discovery from the 401, dynamic
registration, the approval page completed by form posts as a browser would, the code exchange, tools/call as the
member who approved, and a refresh that rotates the tokens."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from tests.transports.http.oauth_flow import OWNER, REDIRECT, Browser, Team, code_from, team
from tests.transports.mcp.conftest import LEGACY, WAIT_SECONDS, McpClient, client_info

__all__ = ["team"]

pytestmark = pytest.mark.anyio


class MemoryStorage:
    """The client's token storage (the SDK's `TokenStorage`), in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Person:
    """The person at the browser: approves with their member token, and hands the code back to the client."""

    def __init__(self, team: Team, token: str) -> None:
        self.team = team
        self.token = token
        self.location: str | None = None
        self.approvals = 0

    async def redirect(self, authorization_url: str) -> None:
        def approve() -> str:
            browser = Browser(self.team.base)
            try:
                return browser.approve(authorization_url, self.token)
            finally:
                browser.close()

        self.location = await anyio.to_thread.run_sync(approve)
        self.approvals += 1

    async def callback(self) -> AuthorizationCodeResult:
        assert self.location is not None and self.location.startswith(REDIRECT)
        code, state = code_from(self.location)
        return AuthorizationCodeResult(code=code, state=state)


def oauth_client(team: Team, person: Person, storage: MemoryStorage) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        redirect_uris=[AnyUrl(REDIRECT)],
        client_name="pytest OAuth client",
        token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"],
    )
    return OAuthClientProvider(
        f"{team.base}/mcp", metadata, storage, redirect_handler=person.redirect, callback_handler=person.callback
    )


@asynccontextmanager
async def session(url: str, auth: OAuthClientProvider) -> AsyncIterator[McpClient]:
    timeout = httpx2.Timeout(WAIT_SECONDS, read=WAIT_SECONDS * 2)
    async with (
        httpx2.AsyncClient(auth=auth, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, read_timeout_seconds=WAIT_SECONDS, client_info=client_info("oauth")) as peer,
    ):
        init = await peer.initialize()
        assert init.protocol_version == LEGACY
        yield McpClient(peer, init.server_info)


def note(name: str) -> dict[str, Any]:
    return {"name": name, "type": "decision", "observations": [f"{name} was decided"], "namespace": "team"}


async def test_the_sdk_client_registers_is_approved_calls_tools_as_the_member_and_refreshes(team: Team) -> None:
    bea = team.add("bea", "writer")
    person, storage = Person(team, bea), MemoryStorage()
    auth = oauth_client(team, person, storage)
    async with session(f"{team.base}/mcp", auth) as mcp:
        assert "remember" in [tool.name for tool in await mcp.tools()]
        await mcp.ok("remember", note("oauth-choice"))
    assert person.approvals == 1
    assert storage.client is not None and storage.tokens is not None
    first = storage.tokens
    assert first.access_token.startswith("mmoa_") and first.refresh_token is not None
    assert first.expires_in == 3600

    [(author, metadata)] = team.rows("SELECT author, metadata FROM entities WHERE name = 'oauth-choice'")
    provenance = json.loads(metadata)["provenance"]
    assert (author, provenance["author"], provenance["source"]) == ("bea", "bea", "remote")

    auth.context.token_expiry_time = time.time() - 1  # the hour has passed: the next request refreshes first
    async with session(f"{team.base}/mcp", auth) as mcp:
        found = await mcp.ok("recall", {"query": "oauth-choice"})
        assert [entity["name"] for entity in found["entities"]] == ["oauth-choice"]
    assert person.approvals == 1  # refreshed, not approved again
    second = storage.tokens
    assert second is not None
    assert second.access_token != first.access_token and second.refresh_token != first.refresh_token

    with team.http(first.access_token) as stale:
        assert stale.post("/mcp", json={}).status_code == 401  # the rotated access token no longer works
    kept = json.dumps(team.rows("SELECT * FROM oauth_tokens") + team.rows("SELECT * FROM oauth_clients"))
    for secret in (first.access_token, first.refresh_token, second.access_token, second.refresh_token):
        assert secret is not None and secret not in kept


async def test_the_owners_remote_token_approves_as_the_owner(team: Team) -> None:
    person, storage = Person(team, team.server.token()), MemoryStorage()
    async with session(f"{team.base}/mcp", oauth_client(team, person, storage)) as mcp:
        await mcp.ok("remember", note("owner-oauth"))
    assert team.rows("SELECT author FROM entities WHERE name = 'owner-oauth'") == [(OWNER,)]
