"""MeMesh's MCP server reached through the mcp SDK's clients of both eras: in this process over the SDK's in-memory
transport (`mcp_server`: the tools' behaviour), or as the real `memesh-mcp` subprocess over stdio (`mcp_process`,
`start_raw`: what only the process shows — the early front, the drain, stdout and fd handling)."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.session import ClientRequestContext
from pydantic import FileUrl

from tests.backends import Backend

LEGACY = "2025-11-25"  # ClientSession + stdio_client: the initialize handshake
MODERN = "2026-07-28"  # mcp.Client: every request carries its own envelope
ERAS = (LEGACY, MODERN)
WAIT_SECONDS = 30.0
SERVER = Path(sys.executable).with_name("memesh-mcp")
ENVELOPE = "io.modelcontextprotocol/"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    """Each test that takes it runs once per protocol era."""
    value: str = request.param
    return value


@dataclass
class McpClient:
    """One connected client, the same calls whichever era it speaks."""

    peer: ClientSession | Client
    server_info: types.Implementation | None

    async def tools(self) -> list[types.Tool]:
        return (await self.peer.list_tools()).tools

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return await self.peer.call_tool(name, arguments)

    async def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The structured result of a call that must succeed (the text form must say the same)."""
        result = await self.call(name, arguments)
        assert not result.is_error, text_of(result)
        data = result.structured_content
        assert isinstance(data, dict)
        assert json.loads(text_of(result)) == data
        return data

    async def fails(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """The message of a call that must come back as an isError tool result."""
        result = await self.call(name, arguments)
        assert result.is_error, text_of(result)
        assert result.structured_content is None
        return text_of(result)


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def client_info(client_name: str) -> types.Implementation:
    return types.Implementation(name=client_name, version="1.0")


def roots_callback(roots: list[Path] | None) -> Any:
    """A client's answer to roots/list offering `roots`; None (no roots capability) when it offers none."""
    if roots is None:
        return None

    async def list_roots(_context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(path.as_uri())) for path in roots])

    return list_roots


@dataclass
class McpInMemory:
    """The server built in this process (`build_server` on its own `Backend`, as memesh-mcp builds it) on its own
    database (the file `db`, or on PostgreSQL the test's database for it), each connection a client over the SDK's
    in-memory transport: the legacy era through the initialize handshake on memory streams, the modern one through
    the SDK's direct dispatch."""

    folder: Path
    db: Path
    backend: Backend

    @property
    def target(self) -> Path | str:
        """What the server opens: the file, or the URL of the test's PostgreSQL database for it."""
        return self.backend.target(self.db)

    @asynccontextmanager
    async def connect(
        self, era: str, client_name: str = "pytest-client", *, roots: list[Path] | None = None
    ) -> AsyncIterator[McpClient]:
        from memesh.transports.mcp.backend import Backend as McpBackend
        from memesh.transports.mcp.server import build_server

        server = build_server(McpBackend(self.target))
        mode = "legacy" if era == LEGACY else "auto"
        async with Client(
            server,
            mode=mode,
            client_info=client_info(client_name),
            read_timeout_seconds=WAIT_SECONDS,
            list_roots_callback=roots_callback(roots),
        ) as client:
            assert client.protocol_version == era
            yield McpClient(client, client.server_info)


@pytest.fixture
def mcp_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Backend) -> McpInMemory:
    """A server in this process with its own database file in the test's folder, run from that folder (its
    project is that folder's, as for a memesh-mcp started there); it serves no hooks (the process tests cover
    that)."""
    monkeypatch.setenv("MEMESH_HOOK_SERVER", "0")
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "memesh" / "knowledge-graph.db"
    db.parent.mkdir()
    return McpInMemory(folder=tmp_path, db=db, backend=backend)


@dataclass
class McpHarness:
    """How to start the real server process: its command, its database and where its stderr goes."""

    folder: Path
    db: Path
    stderr_log: Path
    backend: Backend
    command: list[str] = field(default_factory=lambda: [str(SERVER)])

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(
            command=self.command[0],
            args=self.command[1:],
            # No update check: the server would otherwise ask the package index and write its cache under HOME.
            env={
                "MEMESH_DAEMON": "0",
                "MEMESH_DB_PATH": str(self.db),
                "MEMESH_UPDATE_CHECK": "0",
                **self.backend.environ(self.db),
            },
            cwd=str(self.folder),
        )

    def launch_with(self, script: str) -> None:
        """Serve through a Python launcher (to patch the server from inside its own process) instead."""
        launcher = self.folder / "launcher.py"
        launcher.write_text(script, encoding="utf-8")
        self.command = [sys.executable, str(launcher)]

    @asynccontextmanager
    async def connect(self, era: str, client_name: str = "pytest-client") -> AsyncIterator[McpClient]:
        info = client_info(client_name)
        with self.stderr_log.open("a", encoding="utf-8") as errlog:
            transport = stdio_client(self.params(), errlog=errlog)
            if era == LEGACY:
                async with (
                    transport as (read, write),
                    ClientSession(read, write, read_timeout_seconds=WAIT_SECONDS, client_info=info) as session,
                ):
                    init = await session.initialize()
                    assert init.protocol_version == LEGACY
                    yield McpClient(session, init.server_info)
            else:
                async with Client(transport, client_info=info, read_timeout_seconds=WAIT_SECONDS) as client:
                    assert client.protocol_version == MODERN
                    yield McpClient(client, client.server_info)

    def stderr(self) -> str:
        return self.stderr_log.read_text(encoding="utf-8") if self.stderr_log.exists() else ""


@pytest.fixture
def mcp_process(tmp_path: Path, backend: Backend) -> McpHarness:
    """The real memesh-mcp, to be started with its own database in the test's folder (the file, or on PostgreSQL
    the test's database, named by MEMESH_DATABASE_URL beside MEMESH_DB_PATH)."""
    db = tmp_path / "memesh" / "knowledge-graph.db"
    db.parent.mkdir()  # MEMESH_DB_PATH's folder must exist (only MeMesh's own folder is created for it)
    return McpHarness(folder=tmp_path, db=db, stderr_log=tmp_path / "stderr.log", backend=backend)


class RawServer:
    """The server driven by hand, one JSON-RPC line at a time, keeping every line it writes to stdout."""

    def __init__(self, harness: McpHarness) -> None:
        params = harness.params()
        self._errlog = harness.stderr_log.open("a", encoding="utf-8")
        self.process = subprocess.Popen(
            [params.command, *params.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errlog,
            cwd=params.cwd,
            # Without PYTHONUNBUFFERED (set on some machines), so the server's stdout is block-buffered as it is
            # under a real client, and a buffered stray print is exercised too.
            env={**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, **(params.env or {})},
            text=True,
            encoding="utf-8",
        )
        self.lines: list[str] = []
        self._incoming: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0
        self._responses: dict[int, dict[str, Any]] = {}
        self.handshaken = False

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._incoming.put(line)

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message))

    def send_line(self, line: str) -> None:
        """One line as written, whatever it holds."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def start(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send a request without waiting for its response; returns its id."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self._next_id

    def response(self, request_id: int) -> dict[str, Any]:
        """The response to request `request_id`, reading (and keeping in `lines`) whatever comes before it."""
        while request_id not in self._responses:
            line = self._incoming.get(timeout=WAIT_SECONDS)
            self.lines.append(line)
            message: dict[str, Any] = json.loads(line)
            if "id" in message:
                self._responses[message["id"]] = message
        return self._responses.pop(request_id)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.response(self.start(method, params))

    def initialize(self, client_name: str) -> dict[str, Any]:
        """The 2025-11-25 handshake: initialize, then the initialized notification."""
        response = self.request(
            "initialize",
            {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": client_name, "version": "1.0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.handshaken = True
        return response

    def tool_params(
        self, name: str, arguments: dict[str, Any], client_info: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """tools/call params; before any handshake, as a 2026-07-28 request with client info only when given."""
        if self.handshaken:
            return {"name": name, "arguments": arguments}
        meta: dict[str, Any] = {f"{ENVELOPE}protocolVersion": MODERN, f"{ENVELOPE}clientCapabilities": {}}
        if client_info is not None:
            meta[f"{ENVELOPE}clientInfo"] = client_info
        return {"name": name, "arguments": arguments, "_meta": meta}

    def call_tool(
        self, name: str, arguments: dict[str, Any], client_info: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return self.request("tools/call", self.tool_params(name, arguments, client_info))

    def close(self) -> None:
        """Close stdin, wait for the server to exit, and keep whatever else it wrote to stdout."""
        if self.process.returncode is not None:
            return
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()  # a failed test may leave it stuck; never leave it running
            raise
        self._reader.join(timeout=WAIT_SECONDS)
        while not self._incoming.empty():
            self.lines.append(self._incoming.get())
        self._errlog.close()


@pytest.fixture
def start_raw(mcp_process: McpHarness) -> Iterator[Callable[[], RawServer]]:
    """Starts the server process by hand (after the test has set the harness up), stopped when the test ends."""
    servers: list[RawServer] = []

    def start() -> RawServer:
        servers.append(RawServer(mcp_process))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


# -- `memesh serve`: MCP over streamable HTTP at /mcp ------------------------------------------------------

MEMESH = Path(sys.executable).with_name("memesh")
RUNNING = re.compile(r"^MeMesh HTTP server running at http://(?P<host>[^ ]+):(?P<port>\d+)$")


class Serving:
    """A `memesh serve` process on a free port, its stdout read line by line on a thread."""

    def __init__(self, proc: subprocess.Popen[str], home: Path) -> None:
        self.proc = proc
        self.home = home
        lines: queue.Queue[str | None] = queue.Queue()

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        first = lines.get(timeout=WAIT_SECONDS)
        assert first is not None, proc.stderr.read() if proc.stderr else ""
        match = RUNNING.match(first.rstrip("\n"))
        assert match, first
        self.port = int(match["port"])
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def token(self) -> str:
        return (self.home / ".memesh" / "remote-token").read_text(encoding="utf-8").strip()

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=WAIT_SECONDS)
        return self.proc.returncode, err


class Launcher:
    """Starts `memesh serve --port 0` processes (database, HOME and MEMESH_DIR under `folder`), killed by `close`."""

    def __init__(self, folder: Path, backend: Backend) -> None:
        self.folder = folder
        self.home = folder / "home"
        self.db = self.home / ".memesh" / "kg.db"
        unwanted = ("MEMESH_REMOTE_TOKEN", "MEMESH_HTTP_ALLOW_REMOTE", "MEMESH_DATABASE_URL")
        self.env = {k: v for k, v in os.environ.items() if k not in unwanted}
        self.env.update(
            HOME=str(self.home),
            MEMESH_DIR=str(self.home / ".memesh"),
            MEMESH_DB_PATH=str(self.db),
            MEMESH_UPDATE_CHECK="0",
            **backend.environ(self.db),
        )
        self.started: list[subprocess.Popen[str]] = []

    def __call__(self, *arguments: str) -> Serving:
        proc = subprocess.Popen(
            [str(MEMESH), "serve", "--port", "0", *arguments],
            cwd=self.folder,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.started.append(proc)
        return Serving(proc, self.home)

    def close(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.fixture
def serve(tmp_path: Path, backend: Backend) -> Iterator[Launcher]:
    """A fresh server for the test, on its own database."""
    launcher = Launcher(tmp_path, backend)
    yield launcher
    launcher.close()
