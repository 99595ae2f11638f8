"""The first moments of `memesh-mcp`: the opening of a session answered while the mcp SDK is still loading.

Importing the SDK takes 0.5–1.5 s on a busy two-core machine (it builds pydantic models for two protocol eras), and a
client waits for its initialize and tools/list answers all that time. Those answers do not depend on anything the
client can vary within a well-formed opening: they are the SDK's own answers, recorded by `tools/codegen.py` into
`memesh.generated.mcp_answers` (see `record.py`). This module needs only the standard library, so it starts reading
stdin a few milliseconds after the process does:

- every line the client writes is read here, for the whole session, and passed on unchanged to the SDK through a pipe;
- while the SDK is loading, a request of the session's opening (2025-11-25: `initialize`, then `tools/list`;
  2026-07-28: `server/discover` and `tools/list`, with a plain envelope) is answered at once from the recording, and
  passed on under a private id, so the SDK still sees the whole conversation (the handshake sets its session state)
  and its own answer is compared with the recorded one and dropped (`server.ReplayCheck`);
- the first line that is anything else (or anything malformed) ends the early answers: from there on the SDK answers
  everything, as if it had read stdin itself. `hand_over` ends them too, once the SDK is ready.

Like the SDK's stdio_server, it claims the standard streams first: fd 0 reads the null device and fd 1 writes to
stderr, so a stray print or a child process cannot touch the wire; the wire is served from private duplicates.
"""

from __future__ import annotations

import _thread  # not threading, which imports functools and collections: 27 ms at load 16, before the first answer
import os
import sys

# Not `from typing import TYPE_CHECKING`: typing is a large module that nothing else on this path imports (up to 65 ms
# at load 16), and the annotations here are never evaluated.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, BinaryIO

    Answers = Mapping[tuple[str, str], str]  # (method, protocol version) -> the result, as JSON text

ENVELOPE = "io.modelcontextprotocol/"
ENVELOPE_KEYS = frozenset(
    {f"{ENVELOPE}protocolVersion", f"{ENVELOPE}clientInfo", f"{ENVELOPE}clientCapabilities", f"{ENVELOPE}logLevel"}
)
LOG_LEVELS = frozenset({"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"})
REPLAY_PREFIX = "memesh-early-"  # the private id under which an answered request is passed on to the SDK


class _Decoding:
    """What json.JSONDecoder hands the C scanner: standard JSON, with NaN and Infinity read as json.loads reads them."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(float)


def _refuse(value: Any) -> Any:
    raise TypeError(f"not JSON: {type(value).__name__}")


def _json_codec() -> tuple[Callable[[str], Any], Callable[[Any], str]]:
    """loads and dumps (compact, non-ASCII kept), as the json module does them.

    Through the json module's C core: `import json` also imports `re` (for json.decoder's pure-Python fallback), and
    on a busy machine that import was most of this module's own start-up (36 of 46 ms at load 12).
    """
    try:
        import _json
    except ImportError:  # an interpreter without the accelerator
        import json

        return json.loads, lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    decoding: Any = _Decoding()
    scan = _json.make_scanner(decoding)
    encode = _json.make_encoder(None, _refuse, _json.encode_basestring, None, ":", ",", False, False, True)

    def loads(text: str) -> Any:
        text = text.strip(" \t\n\r")
        value, end = scan(text, 0)  # StopIteration or a ValueError for what is not JSON
        if end != len(text):
            raise ValueError("extra data after a JSON value")
        return value

    return loads, lambda value: "".join(encode(value, 0))


_loads, _dumps = _json_codec()


def recorded_answers() -> Answers | None:
    """The recorded answers, when they were recorded with the SDK installed here (None: answer nothing early)."""
    try:
        from memesh.generated import mcp_answers
    except ImportError:
        return None
    # A dist-info folder per distribution, looked up with os.path: importlib.metadata and pathlib cost more to import
    # than everything else this module does.
    for folder in mcp_answers.DIST_INFO:
        if not any(os.path.isdir(os.path.join(entry or ".", folder)) for entry in sys.path):  # noqa: PTH112, PTH118
            return None
    return {key: mcp_answers.RESULTS[index] for key, index in mcp_answers.ANSWERS.items()}


def may_declare_a_channel() -> bool:
    """True when the server may register as Claude Code's channel adapter (`channel.start`), which adds a capability to
    its initialize answer that the recording does not hold: such a session is answered by the SDK alone.

    channel.start registers in a Claude Code session that declares a principal (MEMESH_RECIPIENT, else the
    hosts/claude.json that `channel.principal_from_environment` reads) once a router listens. Whether one listens is
    not asked here: the router may start while the SDK loads, and the answer must not depend on that race.
    """
    if not os.environ.get("CLAUDE_CODE_SESSION_ID", "").strip():
        return False
    if os.environ.get("MEMESH_RECIPIENT", "").strip():
        return True
    from memesh import paths

    return (paths.memesh_dir() / "hosts" / "claude.json").exists()


def _is_name_and_version(value: Any) -> bool:
    """A clientInfo the SDK accepts for certain: a name and a version, and nothing but strings beside them."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("version"), str)
        and all(isinstance(item, str) for item in value.values())
    )


def _is_capabilities(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(item, dict) for item in value.values())


def _request_id(message: dict[str, Any]) -> str | int | None:
    found = message.get("id")
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


class Opening:
    """Which requests of a session's opening can be answered from the recording: a pure decision over messages."""

    def __init__(self, answers: Answers) -> None:
        self._answers = answers
        self._handshake: str | None = None  # the version an early-answered initialize agreed on

    def key(self, message: Any) -> tuple[str, str] | None:
        """The recording's key for a request answered early, None for a message that is not part of the opening.

        `notifications/initialized` after an answered initialize is part of it, with the key ("", "").
        """
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return None
        method = message.get("method")
        params = message.get("params")
        if "id" not in message:
            ok = method == "notifications/initialized" and self._handshake is not None and params in (None, {})
            return ("", "") if ok else None
        if _request_id(message) is None:
            return None
        if method == "initialize" and self._handshake is None:
            return self._initialize(params)
        if method == "tools/list" and self._handshake is not None:
            return ("tools/list", self._handshake) if params in (None, {}) else None
        if method in ("server/discover", "tools/list") and self._handshake is None:
            return self._modern(method, params)
        return None

    def _initialize(self, params: Any) -> tuple[str, str] | None:
        if not isinstance(params, dict) or set(params) != {"protocolVersion", "capabilities", "clientInfo"}:
            return None
        version = params["protocolVersion"]
        if not isinstance(version, str) or ("initialize", version) not in self._answers:
            return None
        if not (_is_capabilities(params["capabilities"]) and _is_name_and_version(params["clientInfo"])):
            return None
        self._handshake = version
        return ("initialize", version)

    def _modern(self, method: str, params: Any) -> tuple[str, str] | None:
        if not isinstance(params, dict) or set(params) != {"_meta"}:
            return None
        meta = params["_meta"]
        if not isinstance(meta, dict) or not set(meta) <= ENVELOPE_KEYS:
            return None
        version = meta.get(f"{ENVELOPE}protocolVersion")
        if not isinstance(version, str) or (method, version) not in self._answers:
            return None
        if not _is_capabilities(meta.get(f"{ENVELOPE}clientCapabilities")):
            return None
        info = meta.get(f"{ENVELOPE}clientInfo")
        if info is not None and not _is_name_and_version(info):
            return None
        level = meta.get(f"{ENVELOPE}logLevel")
        if level is not None and not (isinstance(level, str) and level in LOG_LEVELS):
            return None
        return (method, version)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Front:
    """Reads the client for the whole session; answers the opening early; passes every line on to the SDK."""

    def __init__(self, source: BinaryIO, wire_fd: int, answers: Answers | None) -> None:
        self._source = source
        self._wire_fd = wire_fd
        self._answers = answers
        self._opening = Opening(answers) if answers is not None else None
        self._lock = _thread.allocate_lock()
        self._count = 0
        self.replayed: dict[str, str] = {}  # private id -> the result text sent for it
        read_fd, self._pipe = os.pipe()
        self.sdk_input = os.fdopen(read_fd, "rb")  # what the SDK reads in place of stdin

    @property
    def wire_fd(self) -> int:
        """The descriptor the SDK writes the protocol to."""
        return self._wire_fd

    def start(self) -> None:
        """Start reading stdin in a thread of its own (like a daemon thread, it never holds the process open)."""
        _thread.start_new_thread(self._pump, ())

    def hand_over(self) -> dict[str, str]:
        """End the early answers (the SDK answers from now on); the private ids passed on, with what was sent."""
        with self._lock:
            self._opening = None
            return dict(self.replayed)

    def _pump(self) -> None:
        try:
            for line in iter(self._source.readline, b""):
                _write_all(self._pipe, self._take(line))
        except OSError:
            pass  # the SDK stopped reading: the server is on its way out
        finally:
            os.close(self._pipe)

    def _take(self, line: bytes) -> bytes:
        """The line to pass on: as read, or, for a request answered here, the same request under a private id."""
        with self._lock:
            if self._opening is None:
                return line
            try:
                message = _loads(line.decode("utf-8"))
            except Exception:  # not UTF-8, not JSON, nested too deep: the SDK answers it (with a parse error)
                message = None
            try:
                key = self._opening.key(message)
            except Exception:  # a message this module failed to judge is the SDK's to answer, like any other
                key = None
            if key is None:
                self._opening = None  # the opening is over: the SDK answers this line and every later one
                return line
            if key == ("", ""):
                return line
            assert isinstance(message, dict)  # key() accepts only objects
            result = self._answers[key] if self._answers is not None else ""
            private = f"{REPLAY_PREFIX}{self._count + 1}"
            try:
                answer = f'{{"jsonrpc":"2.0","id":{_dumps(message["id"])},"result":{result}}}\n'.encode()
                forwarded = _dumps({**message, "id": private}).encode() + b"\n"
            except UnicodeEncodeError:  # a lone surrogate (a JSON escape): the SDK answers that, as it sees fit
                self._opening = None
                return line
            _write_all(self._wire_fd, answer)
            self._count += 1
            self.replayed[private] = result
            return forwarded


class Stdio:
    """The standard streams claimed for the protocol: fd 0 reads the null device, fd 1 writes to stderr."""

    def __init__(self) -> None:
        sys.stdout.flush()
        # os.dup's descriptors are not inherited by child processes (PEP 446), and land above 2 while 0-2 are open.
        self.wire_in = os.dup(0)
        self.wire_out = os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)

    def source(self) -> BinaryIO:
        return os.fdopen(self.wire_in, "rb", closefd=False)

    def release(self) -> None:
        """Point fd 0 and fd 1 back at the wire, as the SDK's stdio_server does on its way out."""
        sys.stdout.flush()  # buffered stray text goes to stderr, where fd 1 points until now
        os.dup2(self.wire_out, 1)
        os.dup2(self.wire_in, 0)


def main() -> None:
    """Entry point of `memesh-mcp`: start reading the client at once, then load the SDK and serve."""
    try:
        stdio = Stdio()
    except OSError:  # no standard stream to duplicate (started with one closed): the SDK claims what there is
        from memesh.transports.mcp import server

        server.run()
        return
    front = Front(stdio.source(), stdio.wire_out, None if may_declare_a_channel() else recorded_answers())
    front.start()
    try:
        from memesh.transports.mcp import server  # the SDK: most of the start-up time

        server.run(front)
    except KeyboardInterrupt:
        pass  # Ctrl-C while the SDK loads: a person stopping the server by hand, as server.run treats it
    finally:
        stdio.release()
