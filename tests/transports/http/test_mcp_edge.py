"""/mcp behind the HTTP API's edge, in process: the origin boundary, the bearer and the body limit refuse before the
MCP SDK is reached (or even imported), with the envelope and security headers of every /v1 refusal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.transports.http.conftest import TOKEN

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example"},
        {"origin": "null"},
        {"sec-fetch-site": "cross-site"},
        {"host": "evil.example"},
        {"host": "127.evil.example"},
    ],
)
@pytest.mark.parametrize("method", ["POST", "GET", "DELETE"])
def test_a_cross_site_or_rebinding_request_to_mcp_is_refused(api: Any, headers: dict[str, str], method: str) -> None:
    body = api.fails(method, "/mcp", 403, "auth.cross-origin", json=INITIALIZE, headers=headers)
    assert "hint" in body


def test_the_trailing_slash_form_of_mcp_is_behind_the_same_boundary(api: Any) -> None:
    api.fails("POST", "/mcp/", 403, "auth.cross-origin", json=INITIALIZE, headers={"origin": "https://evil.example"})


def test_a_remote_listener_refuses_mcp_without_the_bearer(remote_api: Any) -> None:
    missing = remote_api.fails("POST", "/mcp", 401, "auth.missing-bearer", json=INITIALIZE)
    wrong = remote_api.fails(
        "POST", "/mcp", 401, "auth.invalid-token", json=INITIALIZE, headers={"authorization": "Bearer " + "x" * 32}
    )
    assert TOKEN not in str(missing) + str(wrong)
    remote_api.fails("GET", "/mcp", 401, "auth.missing-bearer")


def test_a_remote_listener_still_holds_browsers_to_same_origin_on_mcp(remote_api: Any) -> None:
    headers = {"authorization": f"Bearer {TOKEN}", "origin": "https://evil.example"}
    remote_api.fails("POST", "/mcp", 403, "auth.cross-origin", json=INITIALIZE, headers=headers)


def test_a_body_over_1_mb_to_mcp_is_refused(api: Any) -> None:
    response = api.post("/mcp", content=b" " * (1024 * 1024 + 1), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["errorCode"] == "payload.too-large"
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_http_app_does_not_import_the_mcp_sdk_until_it_serves(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom memesh.transports.http.app import create_app\n"
        "create_app(update_fetch=None)\n"
        "print(sorted(name for name in sys.modules if name == 'mcp' or name.startswith('mcp.')))"
    )
    # Run from elsewhere: in the checkout, `-c` would put the bare memesh/ folder ahead of the installed package.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"
