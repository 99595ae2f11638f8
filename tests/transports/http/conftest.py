"""An in-process client for the HTTP app (httpx over ASGI), addressed as the loopback server it normally is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from memesh.transports.http.app import MemeshHttpApp, create_app
from tests.backends import Backend

TOKEN = "t0ken-for-tests-0123456789abcdef"


class Api:
    """Synchronous calls into one app instance; each request runs on its own event loop."""

    def __init__(self, app: MemeshHttpApp, base_url: str = "http://127.0.0.1:3737") -> None:
        self.app = app
        self.base_url = base_url

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url=self.base_url) as client:
                return await client.request(method, url, **kwargs)

        return anyio.run(go)

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def ok(self, method: str, url: str, **kwargs: Any) -> Any:
        """The `data` of a successful envelope (fails the test on any other answer)."""
        response = self.request(method, url, **kwargs)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["success"] is True
        return body["data"]

    def fails(self, method: str, url: str, status: int, code: str, **kwargs: Any) -> dict[str, Any]:
        """The failure envelope, after checking its status and errorCode."""
        response = self.request(method, url, **kwargs)
        assert response.status_code == status, response.text
        body: dict[str, Any] = response.json()
        assert body["success"] is False
        assert body["errorCode"] == code
        assert isinstance(body["error"], str)
        assert body["error"]
        return body


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "memesh" / "knowledge-graph.db"


@pytest.fixture
def api(db_file: Path, backend: Backend) -> Any:
    app = create_app(db_path=backend.target(db_file))  # the file, or this test's PostgreSQL database
    yield Api(app)
    app.close()


@pytest.fixture
def remote_api(db_file: Path, backend: Backend) -> Any:
    app = create_app(remote=True, token=TOKEN, db_path=backend.target(db_file))
    yield Api(app, base_url="http://203.0.113.7:3737")
    app.close()
