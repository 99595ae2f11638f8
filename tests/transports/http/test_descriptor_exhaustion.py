"""A server whose descriptors run out (issue 35): more waiting polls than its descriptor limit, over real sockets,
against `memesh serve` in a process of its own. No answer is ever a 500; an answer the server could not give for
want of a descriptor is a 503 in the envelope with Retry-After; once the storm is over it answers as before — /mcp
included. And /mcp's own 503 (every session of a client busy) carries Retry-After over a socket too."""

from __future__ import annotations

import json
import resource
import selectors
import socket
import time
from pathlib import Path

import httpx
import pytest

from memesh.errors import OUT_OF_DESCRIPTORS
from memesh.store.errors import translate
from tests.backends import Backend
from tests.transports.http.real_server import exchange, parse, real_server, request


def _unreachable() -> str:
    """What a PostgreSQL connect that failed for no reason libpq names reads as."""
    import psycopg

    error = translate(psycopg.OperationalError("no server"))
    assert error is not None
    return error.message


DESCRIPTORS = 256
POLLS = 330  # more than the server has descriptors: every one of them taken, some requests find none left
PROJECT = "storm~" + "e" * 32
POLL = request("POST", "/v1/message", {"action": "poll", "project": PROJECT, "recipient": "r", "wait_ms": 2000})
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


@pytest.fixture
def room_for_the_storm() -> None:
    """This test process holds every client socket: it needs more descriptors than the server it storms."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = POLLS * 2 + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            pytest.skip(f"needs {wanted} descriptors in the test process, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _whole_answers(sockets: list[socket.socket], seconds: float) -> dict[socket.socket, bytes]:
    """Each socket's whole answer (head and as many body bytes as its content-length says), read within `seconds`;
    a socket the server closed without a word is left out."""
    selector = selectors.DefaultSelector()
    for sock in sockets:
        selector.register(sock, selectors.EVENT_READ)
    got: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + seconds
    while selector.get_map() and (remaining := deadline - time.monotonic()) > 0:
        for key, _ in selector.select(remaining):
            ready = key.fileobj
            assert isinstance(ready, socket.socket)
            try:
                chunk = ready.recv(65536)
            except ConnectionResetError:
                chunk = b""
            got[ready] = got.get(ready, b"") + chunk
            head, found, body = got[ready].partition(b"\r\n\r\n")
            whole = found and len(body) >= int(parse(head + found)[1].get("content-length", "0"))
            if not chunk or whole:
                selector.unregister(ready)
    selector.close()
    return {sock: data for sock, data in got.items() if data}


def _initialize(client: httpx.Client) -> httpx.Response:
    return client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)


def test_a_poll_storm_past_the_descriptor_limit_answers_503_with_retry_after_never_500_and_recovers(
    tmp_path: Path, room_for_the_storm: None, backend: Backend
) -> None:
    log = tmp_path / "server.log"
    database = backend.environ(
        tmp_path / "home" / ".memesh" / "kg.db"
    )  # on PostgreSQL, its sockets need descriptors too
    with real_server(tmp_path, DESCRIPTORS, log=log, environ=database) as server:
        assert exchange(server.port, request("GET", "/v1/health"))[0] == 200
        polls = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(POLLS)]
        try:
            for sock in polls:
                sock.sendall(POLL)
            answers = _whole_answers(polls, 60.0)
        finally:
            for sock in polls:
                sock.close()
        statuses = [parse(data) for data in answers.values()]
        assert {status for status, _, _ in statuses} <= {200, 503}, log.read_text()[-4000:]
        unavailable = [(headers, body) for status, headers, body in statuses if status == 503]
        assert unavailable, "the storm never ran the server out of descriptors: raise POLLS"
        for headers, body in unavailable:
            assert headers["retry-after"] == "1"
            assert body["success"] is False
            # Out of descriptors where Python saw EMFILE; SQLite says only that it cannot open the file, and libpq
            # only that it could not connect (the probe after either may find a descriptor freed meanwhile): all are
            # unavailable now, not a bug.
            assert (body["errorCode"], body["store"], body["error"]) in (
                ("server.internal", "descriptors", OUT_OF_DESCRIPTORS),
                (
                    "server.internal",
                    "cannot-open",
                    "the database cannot be opened; check that its folder exists and is yours",
                ),
                ("store.unavailable", "unreachable", _unreachable()),
            )
        assert "Traceback" not in log.read_text().replace("MCP over HTTP did not start\nTraceback", "")
        # The storm is over: every kind of request is answered as before, /mcp too (its SDK loads on this request
        # if the storm stopped it loading at start-up).
        time.sleep(2.5)  # the polls that waited have timed out and let their descriptors go
        assert exchange(server.port, request("GET", "/v1/health"))[0] == 200
        assert exchange(server.port, request("POST", "/v1/recall", {"query": "storm"}))[0] == 200
        with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=30) as client:
            assert _initialize(client).status_code == 200


@pytest.mark.one_engine("sessions are kept in the server, before any store is read")
def test_a_client_whose_every_session_is_busy_is_answered_503_with_retry_after_over_a_socket(tmp_path: Path) -> None:
    prelude = "import memesh.transports.mcp.streamable as streamable\nstreamable.SESSIONS_PER_CLIENT = 2"
    with (
        real_server(tmp_path, prelude=prelude, log=tmp_path / "server.log") as server,
        httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=30) as client,
    ):
        sessions = [_initialize(client).headers["mcp-session-id"] for _ in range(2)]
        streams = []
        try:
            for session in sessions:  # each session's GET stream stays open: the session is busy, not idle
                raw = "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                raw += f"MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {session}\r\n\r\n"
                stream = socket.create_connection(("127.0.0.1", server.port), timeout=30)
                stream.sendall(raw.encode())
                head = b""
                while b"\r\n\r\n" not in head:
                    head += stream.recv(4096)
                assert head.startswith(b"HTTP/1.1 200")
                streams.append(stream)
            refused = _initialize(client)
            assert (refused.status_code, refused.headers["retry-after"]) == (503, "30")
            assert json.loads(refused.text)["error"]["code"] == -32603
            streams.pop().close()  # one session's stream ends: that session is idle, and is closed for a new one
            deadline = time.monotonic() + 10
            while (opened := _initialize(client)).status_code == 503 and time.monotonic() < deadline:
                time.sleep(0.1)  # the server notices the closed stream on its next read
            assert opened.status_code == 200
        finally:
            for stream in streams:
                stream.close()
