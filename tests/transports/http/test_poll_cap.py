"""A storm of waiting message polls against the real server at a small descriptor limit: at most a quarter of the
descriptors wait, the excess is answered at once with what is there (its connection closed), and the rest of the
API still answers."""

from __future__ import annotations

import selectors
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memesh.app.waiting import WAITER_SHARE
from tests.transports.http.real_server import exchange, parse, real_server, request
from tests.transports.http.test_serve import Running

DESCRIPTORS = 160  # the server's own limit: room for Python, granian and a few database connections
CAP = DESCRIPTORS // WAITER_SHARE
EXCESS = 8
PROJECT = "storm~" + "d" * 32


POLL = request("POST", "/v1/message", {"action": "poll", "project": PROJECT, "recipient": "r", "wait_ms": 30000})


def _answers(sockets: list[socket.socket], seconds: float) -> dict[socket.socket, bytes]:
    """What each socket received within `seconds` (a socket that received nothing is left out)."""
    selector = selectors.DefaultSelector()
    for sock in sockets:
        selector.register(sock, selectors.EVENT_READ)
    got: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + seconds
    while selector.get_map() and (remaining := deadline - time.monotonic()) > 0:
        for key, _ in selector.select(remaining):
            ready = key.fileobj
            assert isinstance(ready, socket.socket)
            chunk = ready.recv(65536)
            got[ready] = got.get(ready, b"") + chunk
            if not chunk or b"}}" in got[ready]:  # the envelope's end, or the server closed the connection
                selector.unregister(ready)
    selector.close()
    return got


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Running]:
    with real_server(tmp_path, DESCRIPTORS) as running:
        yield running


def test_polls_past_the_cap_are_answered_at_once_and_other_requests_still_get_200(server: Running) -> None:
    assert exchange(server.port, request("GET", "/v1/health"))[0] == 200  # the database and its connections exist
    polls = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(CAP + EXCESS)]
    try:
        for sock in polls:
            sock.sendall(POLL)
        answered = _answers(polls, 3.0)
        assert len(answered) == EXCESS  # the others wait
        for data in answered.values():
            status, headers, body = parse(data)
            assert (status, headers.get("connection")) == (200, "close")
            assert (body["data"]["events"], body["data"]["timed_out"]) == ([], False)  # as with wait_ms 0
        for raw in (request("GET", "/v1/health"), request("POST", "/v1/recall", {"query": "x"})):
            assert exchange(server.port, raw)[0] == 200
        send = {"action": "send", "project": PROJECT, "sender": "s", "recipient": "r"}
        sent = exchange(server.port, request("POST", "/v1/message", {**send, "idempotency_key": "k", "payload": "hi"}))
        assert sent[0] == 200
        waiting = [sock for sock in polls if sock not in answered]
        woken = _answers(waiting, 10.0)
        assert len(woken) == CAP
        assert {len(parse(data)[2]["data"]["events"]) for data in woken.values()} == {1}
    finally:
        for sock in polls:
            sock.close()
