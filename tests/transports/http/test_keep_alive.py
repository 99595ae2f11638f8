"""Refused bodies on a kept-alive connection of the real server: answered in the envelope, then the connection
closed (what follows an unread body on it is not a request)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import pytest

from tests.transports.http.real_server import parse, read_response, real_server, request
from tests.transports.http.test_serve import Running

HEAD = b"POST /v1/recall HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
CHUNK = b"%x\r\n" % (64 * 1024) + b"y" * (64 * 1024) + b"\r\n"
OVERSIZED = {
    "declared": HEAD + b"Content-Length: %d\r\n\r\n" % (2 * 1024 * 1024) + b"x" * (2 * 1024 * 1024),
    "chunked": HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + CHUNK * 17 + b"0\r\n\r\n",  # 1 MiB + 64 KiB
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with real_server(tmp_path_factory.mktemp("keep-alive")) as running:
        yield running


def _after_a_normal_request(server: Running) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(request("POST", "/v1/recall", {"query": "x"}))
    status, headers, _ = parse(read_response(sock))
    assert (status, headers.get("connection")) == (200, None)  # kept alive
    return sock


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


@pytest.mark.parametrize("kind", sorted(OVERSIZED))
def test_an_oversized_body_after_a_normal_request_is_answered_413_and_the_connection_closed(
    server: Running, kind: str
) -> None:
    with _after_a_normal_request(server) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # answered before it was all read
            sock.sendall(OVERSIZED[kind])
        status, headers, body = parse(read_response(sock))
        assert (status, headers.get("connection")) == (413, "close")
        assert (body["success"], body["errorCode"]) == (False, "payload.too-large")
        assert _closed(sock)


def test_a_malformed_chunk_is_answered_400_in_the_envelope_not_granian_500(server: Running) -> None:
    with _after_a_normal_request(server) as sock:
        sock.sendall(HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n")
        status, headers, body = parse(read_response(sock))
        assert (status, headers.get("connection")) == (400, "close")
        assert (body["success"], body["errorCode"]) == (False, "validation.bad-body")


def test_a_negative_content_length_gets_granians_own_400_without_an_envelope(server: Running) -> None:
    """granian's HTTP parser refuses the head before the app is called; nothing in the app can answer instead."""
    with _after_a_normal_request(server) as sock:
        sock.sendall(HEAD + b"Content-Length: -1\r\n\r\n")
        status, headers, body = parse(read_response(sock))
        assert (status, headers.get("connection"), headers.get("content-length"), body) == (400, "close", "0", None)
