"""The package-index lookup against a real HTTP server on 127.0.0.1: what each answer of the index means."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memesh.adapters import update_check
from memesh.core.update import CheckFailed


def serve(status: int, body: bytes) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/pypi/memesh/json"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def index(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    status, body = request.param
    for url in serve(status, body):
        monkeypatch.setattr(update_check, "INDEX_URL", url)
        yield


@pytest.mark.parametrize("index", [(404, b'{"message": "Not Found"}')], indirect=True)
def test_an_index_that_does_not_know_the_distribution_answers_not_published(index: None) -> None:
    assert update_check.fetch_latest(timeout=5) is None


@pytest.mark.parametrize("index", [(200, b'{"info": {"version": "0.3.0"}}')], indirect=True)
def test_an_index_that_knows_it_answers_its_newest_release(index: None) -> None:
    assert update_check.fetch_latest(timeout=5) == "0.3.0"


@pytest.mark.parametrize("index", [(503, b"busy")], indirect=True)
def test_an_index_that_fails_is_a_failed_check_that_names_no_url(index: None) -> None:
    with pytest.raises(CheckFailed) as failure:
        update_check.fetch_latest(timeout=5)
    assert str(failure.value) == "package index unavailable (HTTP 503)"
