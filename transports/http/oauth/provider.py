"""The mcp SDK's authorization-server provider protocol (`mcp.server.auth.provider`), answered from MeMesh's database
through `memesh.app.oauth` (each call on a worker thread: the store blocks).

The SDK's handlers validate every request (PKCE S256 only, exact redirect URIs, the grant type a client registered,
code expiry, the verifier) and speak the OAuth error format; this provider stores and looks up, and never holds a
credential in plain text: a client secret is kept as its hash, so the client authenticator below compares hashes.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

import anyio.to_thread
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request

from memesh.app import oauth
from memesh.app.resources import Resources
from memesh.core.access import hash_token

APPROVAL_PATH = "/authorize/approve"

T = TypeVar("T")


async def _off_loop(call: Callable[[], T]) -> T:
    return await anyio.to_thread.run_sync(call)


class MemeshOAuthProvider:
    """`OAuthAuthorizationServerProvider` over one listener's resources; `owner_token` is its remote token."""

    def __init__(self, resources: Resources, owner_token: str) -> None:
        self.resources = resources
        self.owner_token = owner_token

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        found = await _off_loop(lambda: oauth.client(self.resources, client_id))
        if found is None:
            return None
        metadata, secret_hash = found
        # The stored hash stands where the SDK expects the secret: only `HashedSecretAuthenticator` reads it.
        return OAuthClientInformationFull.model_validate({**metadata, "client_secret": secret_hash})

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        metadata = client_info.model_dump(mode="json", exclude_none=True)
        secret = client_info.client_secret
        try:
            await _off_loop(
                lambda: oauth.register_client(self.resources, client_info.client_id or "", metadata, secret, _now())
            )
        except oauth.Refused as refused:
            if refused.error == "invalid_redirect_uri":
                raise RegistrationError("invalid_redirect_uri", refused.description) from None
            raise RegistrationError("invalid_client_metadata", refused.description) from None

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """The approval page's address for this (validated) request; the code comes from the page."""
        refusal = oauth.resource_refusal(params.resource)
        if refusal is not None:
            raise AuthorizeError("invalid_target", refusal)
        kept = {
            "redirect_uri": str(params.redirect_uri),
            "explicit": params.redirect_uri_provided_explicitly,
            "code_challenge": params.code_challenge,
            "state": params.state,
            "scopes": params.scopes or [],
            "resource": params.resource,
        }
        client_id = client.client_id
        if client_id is None:  # pragma: no cover - the SDK found this client by its id
            raise AuthorizeError("unauthorized_client", "client has no id")
        handle = await _off_loop(lambda: oauth.start_request(self.resources, client_id, kept, _now()))
        return f"{APPROVAL_PATH}?request={handle}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        row = await _off_loop(lambda: oauth.load_code(self.resources, authorization_code, client.client_id or ""))
        if row is None:
            return None
        import json

        params: dict[str, Any] = json.loads(row.params)
        return AuthorizationCode(
            code=authorization_code,
            scopes=params.get("scopes") or [],
            expires_at=float(row.expires_at),
            client_id=row.client_id,
            code_challenge=params["code_challenge"],
            redirect_uri=params["redirect_uri"],
            redirect_uri_provided_explicitly=bool(params.get("explicit")),
            resource=params.get("resource"),
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        try:
            issued = await _off_loop(
                lambda: oauth.exchange_code(
                    self.resources, authorization_code.code, client.client_id or "", self.owner_token, _now()
                )
            )
        except oauth.Refused as refused:
            raise TokenError("invalid_grant", refused.description) from None
        return _token(issued)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        row = await _off_loop(lambda: oauth.load_token(self.resources, refresh_token, "refresh", revoked=True))
        if row is None or row.client_id != client.client_id:
            return None
        return RefreshToken(
            token=refresh_token,
            client_id=row.client_id,
            scopes=row.scopes.split() if row.scopes else [],
            expires_at=row.expires_at,
            resource=row.resource,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        try:
            issued = await _off_loop(
                lambda: oauth.exchange_refresh(
                    self.resources,
                    refresh_token.token,
                    client.client_id or "",
                    scopes,
                    owner_token=self.owner_token,
                    now=_now(),
                )
            )
        except oauth.Refused as refused:
            raise TokenError("invalid_grant", refused.description) from None
        return _token(issued)

    async def load_access_token(self, token: str) -> AccessToken | None:
        row = await _off_loop(lambda: oauth.load_token(self.resources, token, "access"))
        if row is None:
            return None
        return AccessToken(
            token=token,
            client_id=row.client_id,
            scopes=row.scopes.split() if row.scopes else [],
            expires_at=row.expires_at,
            resource=row.resource,
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await _off_loop(lambda: oauth.revoke(self.resources, token.token, _now()))

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull, params: Any) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "The JWT bearer grant is not supported by this server")


def _now() -> int:
    return int(time.time())


def _token(issued: oauth.Issued) -> OAuthToken:
    return OAuthToken(
        access_token=issued.access_token,
        token_type="Bearer",
        expires_in=issued.expires_in,
        scope=issued.scope,
        refresh_token=issued.refresh_token,
    )


class HashedSecretAuthenticator(ClientAuthenticator):
    """The SDK's client authentication at /token and /revoke, against a secret kept only as its hash (`get_client`
    hands the hash over where the SDK expects the secret)."""

    async def authenticate_request(self, request: Request) -> OAuthClientInformationFull:
        form = await request.form()
        client_id = form.get("client_id")
        if not isinstance(client_id, str) or not client_id:
            raise AuthenticationError("Missing client_id")
        client = await self.provider.get_client(client_id)
        if client is None:
            raise AuthenticationError("Invalid client_id")
        method = client.token_endpoint_auth_method
        if method == "none":
            return client
        presented: str | None = None
        if method == "client_secret_basic":
            header = request.headers.get("Authorization", "")
            if not header.startswith("Basic "):
                raise AuthenticationError("Missing or invalid Basic authentication in Authorization header")
            try:
                basic_id, _, presented = base64.b64decode(header[6:]).decode("utf-8").partition(":")
            except (ValueError, UnicodeDecodeError, binascii.Error):
                raise AuthenticationError("Invalid Basic authentication header") from None
            if unquote(basic_id) != client_id:
                raise AuthenticationError("Client ID mismatch in Basic auth")
            presented = unquote(presented)
        elif method == "client_secret_post":
            value = form.get("client_secret")
            presented = value if isinstance(value, str) else None
        else:
            raise AuthenticationError(f"Unsupported auth method: {method}")
        stored = client.client_secret
        if not stored or not presented:
            raise AuthenticationError("Client secret is required")
        if not hmac.compare_digest(stored.encode("ascii"), hash_token(presented).encode("ascii")):
            raise AuthenticationError("Invalid client_secret")
        return client
