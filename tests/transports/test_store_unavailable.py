"""A PostgreSQL that cannot be reached answers the same on every surface: store.unavailable with its reason
(`unreachable`), HTTP 503, an MCP tool error, CLI exit 1 with the reason under --json; no host, user or password in
what is answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memesh.transports.http.app import create_app
from tests.backends import Backend
from tests.store.tls_server import _free_port
from tests.transports.cli.conftest import Cli
from tests.transports.http.conftest import Api
from tests.transports.mcp.conftest import LEGACY, McpInMemory

SECRETS = ("pw-Secret", "teammate", "127.0.0.1")


@pytest.fixture
def nowhere() -> str:
    """A database URL whose server is not there (a port nothing listens on)."""
    return f"postgresql://teammate:pw-Secret@127.0.0.1:{_free_port()}/memesh?connect_timeout=3"


def test_http_answers_503_store_unavailable_with_the_reason(nowhere: str) -> None:
    api = Api(create_app(db_path=nowhere))
    for method, path, body in (("GET", "/v1/health", None), ("POST", "/v1/recall", {"query": "x"})):
        kwargs = {"json": body} if body else {}
        answer = api.fails(method, path, 503, "store.unavailable", **kwargs)
        assert answer["store"] == "unreachable"
        assert not any(secret in json.dumps(answer) for secret in SECRETS)


class RemoteServer(McpInMemory):
    """The in-process MCP server opening `url` instead of the test's database."""

    url: str = ""

    @property
    def target(self) -> Path | str:
        return self.url


@pytest.mark.anyio
async def test_mcp_answers_a_tool_error_naming_no_host(nowhere: str, tmp_path: Path) -> None:
    server = RemoteServer(folder=tmp_path, db=tmp_path / "unused.db", backend=Backend("sqlite"))
    server.url = nowhere
    async with server.connect(LEGACY) as client:
        text = await client.fails("recall", {"query": "x"})  # an isError tool result, not a protocol error
    assert not any(secret in text for secret in SECRETS)


@pytest.mark.one_engine("the database it names is a server that is not there, whichever engine the suite runs")
def test_the_cli_exits_1_with_the_code_and_reason_under_json(
    nowhere: str, memesh_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMESH_DATABASE_URL", nowhere)
    outcome = Cli(capsys)("recall", "x", "--json")
    assert outcome.code == 1
    assert (outcome.json()["errorCode"], outcome.json()["store"]) == ("store.unavailable", "unreachable")
    assert not any(secret in outcome.out for secret in SECRETS)
