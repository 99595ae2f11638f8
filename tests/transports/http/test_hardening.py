"""HTTP edges the hostile probe found: a UTF-8 bearer token, two servers creating the token file at once, and a
recall query too long to be worth reading."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from memesh.transports.http.app import create_app
from tests.transports.http.conftest import Api

UTF8_TOKEN = "pässwört-tökén-0123456789-ß"


def test_a_non_ascii_token_is_compared_as_utf8(db_file: Path) -> None:
    app = create_app(remote=True, token=UTF8_TOKEN, db_path=db_file)
    try:
        api = Api(app, base_url="http://203.0.113.7:3737")
        header = f"Bearer {UTF8_TOKEN}".encode()
        response = api.get("/v1/health", headers={"authorization": header})
        assert response.status_code == 200, response.text
        wrong = api.get("/v1/health", headers={"authorization": "Bearer pässwört-tökén-0123456789-x".encode()})
        assert wrong.status_code == 401
        assert wrong.json()["errorCode"] == "auth.invalid-token"
    finally:
        app.close()


RACE = """
import sys
from memesh.transports.http.token import provision
sys.stdin.readline()
print(provision().value)
"""


def test_servers_first_starting_together_all_read_one_whole_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MEMESH_REMOTE_TOKEN"}
    env["MEMESH_DIR"] = str(tmp_path / "memesh")
    for attempt in range(5):
        env["MEMESH_DIR"] = str(tmp_path / f"memesh-{attempt}")
        racers = [
            subprocess.Popen(
                [sys.executable, "-c", RACE],
                cwd=tmp_path,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        for racer in racers:  # all imported and waiting: release them together
            assert racer.stdin is not None
            racer.stdin.write("go\n")
            racer.stdin.flush()
        results = [racer.communicate(timeout=60) for racer in racers]
        assert all(racer.returncode == 0 for racer in racers), results
        tokens = {out.strip() for out, _ in results}
        assert len(tokens) == 1
        assert (Path(env["MEMESH_DIR"]) / "remote-token").read_text().strip() in tokens
        assert [p.name for p in Path(env["MEMESH_DIR"]).iterdir()] == ["remote-token"]


def test_a_recall_query_longer_than_the_cap_is_refused_with_the_field(api: Api) -> None:
    body = api.fails("POST", "/v1/recall", 400, "validation.bad-body", json={"query": "word " * 100_000})
    assert body["error"].startswith("query: ")
    assert api.ok("POST", "/v1/recall", json={"query": "word " * 9_000})["entities"] == []
    assert json.dumps(api.ok("GET", "/v1/health"))


def test_a_client_that_stops_sending_its_body_is_dropped_after_the_read_timeout(
    db_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memesh.transports.http import body

    monkeypatch.setattr(body, "BODY_READ_SECONDS", 0.3)
    app = create_app(db_path=db_file)
    sent: list[MutableMapping[str, Any]] = []
    chunks = [{"type": "http.request", "body": b'{"name": "slow', "more_body": True}]

    async def receive() -> dict[str, Any]:
        if chunks:
            return chunks.pop()
        await anyio.sleep_forever()  # the slow-loris client: the rest of the body never comes
        raise AssertionError("unreachable")

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/remember",
        "raw_path": b"/v1/remember",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:3737"), (b"content-type", b"application/json"), (b"content-length", b"100")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 3737),
    }

    async def go() -> None:
        with anyio.fail_after(10):  # only so a broken timeout fails the test instead of hanging it
            await app(scope, receive, send)

    try:
        anyio.run(go)
    finally:
        app.close()
    assert sent[0]["status"] == 408
    answer = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert answer["errorCode"] == "validation.bad-body"
