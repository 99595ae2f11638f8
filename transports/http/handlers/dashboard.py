"""GET /dashboard: the one self-contained page, with its Content-Security-Policy."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from memesh.transports import dashboard


async def page(_request: Request) -> Response:
    html, policy = dashboard.page()
    return Response(
        html,
        media_type="text/html; charset=utf-8",
        headers={"content-security-policy": policy, "cache-control": "no-store"},
    )
