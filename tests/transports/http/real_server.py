"""`memesh serve` as a real process on a loopback port, and one HTTP/1.1 exchange over a raw socket."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from tests.transports.http.test_serve import Running


@contextmanager
def real_server(
    folder: Path,
    descriptors: int | None = None,
    *,
    prelude: str = "",
    log: Path | None = None,
    environ: dict[str, str] | None = None,
) -> Iterator[Running]:
    """The server of a HOME inside `folder`, with at most `descriptors` open files when given; `prelude` runs before
    it serves (a setting made small for the test); `log` takes its stderr (else a pipe nobody drains while it runs,
    which a server that logs much would fill and block on); `environ` adds to its environment (a backend's
    MEMESH_DATABASE_URL)."""
    home = folder / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("MEMESH_REMOTE_TOKEN", "MEMESH_HTTP_ALLOW_REMOTE")}
    env.update(HOME=str(home), MEMESH_DIR=str(home / ".memesh"), MEMESH_DB_PATH=str(home / ".memesh" / "kg.db"))
    env.pop("MEMESH_DATABASE_URL", None)
    env.update(environ or {})
    serve = "from memesh.transports.http.serve import serve\nsys.exit(serve(host='127.0.0.1', port=0))"
    code = f"import sys\n{prelude}\n{serve}"
    if descriptors is not None:
        code = f"import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, ({descriptors}, {descriptors}))\n{code}"
    with ExitStack() as stack:
        stderr = stack.enter_context(log.open("w")) if log is not None else subprocess.PIPE
        proc = subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        try:
            yield Running(proc)
        finally:
            proc.kill()
            proc.wait()


def request(method: str, path: str, body: dict[str, Any] | None = None, *, headers: str = "") -> bytes:
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{headers}"
    return f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data


def parse(data: bytes) -> tuple[int, dict[str, str], Any]:
    """Status, headers (lower-cased names) and JSON body of one whole response."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), fields, json.loads(body) if body else None


def read_response(sock: socket.socket) -> bytes:
    """One response read off `sock` (its head, then as many body bytes as its content-length says)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = parse(head + b"\r\n\r\n")[1].get("content-length", "0")
    while len(body) < int(length):
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], Any]:
    """`raw` sent on a connection of its own, and the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        return parse(read_response(sock))
