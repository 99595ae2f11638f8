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
- a plain `tools/call` is answered here too, through the same door as the SDK's handler (`calls.Caller`: the gate,
  `dispatch`, the one result mapping), wrapped as the SDK wraps a result in that era (recorded as well), and not
  passed on: the SDK never runs it. Not a message poll that waits, nor `work_package` for a client offering roots
  (the server would ask it for them): those are the SDK's;
- the first line that is anything else (or anything malformed) ends the early answers: from there on the SDK answers
  everything, as if it had read stdin itself. `hand_over` ends them too, once the SDK is ready.

The SDK itself is loaded only once a line needs it (issue 36: loaded in the background after a quiet moment, it
held ~30 MB more for the whole session of a client whose every request the front answers). Once the client has been
quiet for `QUIET_SECONDS` (an agent's model choosing its first call) with nothing running here, what a session keeps
warm is started without it: the store, the update check and the hook server (`session_hooks`). A client that ends
its session (closes stdin) with every request answered here never waits for the SDK at all.

Like the SDK's stdio_server, it claims the standard streams first: fd 0 reads the null device and fd 1 writes to
stderr, so a stray print or a child process cannot touch the wire; the wire is served from private duplicates.
"""

from __future__ import annotations

import _thread  # not threading, which imports functools and collections: 27 ms at load 16, before the first answer
import os
import sys
import time

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
CALL = "tools/call"
CALL_KEYS = frozenset({"name", "arguments", "_meta"})
CANCELLED = "notifications/cancelled"
RESULT_KEYS = frozenset({"content", "isError", "structuredContent"})  # what MeMesh's result mapping writes
# How long the client must have been quiet, with nothing being answered here, before the session's store and hook
# server are started (not before: they would take the interpreter from the opening's answers).
QUIET_SECONDS = 0.15
# Bytes passed on to the SDK before it is loaded (the opening's requests, under private ids) after which it is loaded
# anyway to read them: a pipe holds 64 KiB, and the reading thread must never block on a full one.
PIPE_ROOM = 16 * 1024


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
        self._initialized = False
        self._client: dict[str, Any] = {}  # that initialize's params

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
            self._initialized = self._initialized or ok
            return ("", "") if ok else None
        if _request_id(message) is None:
            return None
        if method == CALL:
            return self._call(params)
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
        self._client = params
        return ("initialize", version)

    def _call(self, params: Any) -> tuple[str, str] | None:
        """A tools/call the SDK would run as it is: a tool name, arguments that are an object, and a `_meta` holding
        nothing beyond a progress token, other vendors' keys and (2026-07-28) a plain envelope."""
        if not isinstance(params, dict) or not set(params) <= CALL_KEYS or not isinstance(params.get("name"), str):
            return None
        if not isinstance(params.get("arguments", {}), dict | None):
            return None
        meta = params.get("_meta")
        if self._handshake is not None:
            ok = self._initialized and (meta is None or _is_plain_meta(meta, {}))
            version = self._handshake if ok else None
        elif isinstance(meta, dict):
            envelope = {key: value for key, value in meta.items() if key.startswith(ENVELOPE)}
            version = self._envelope_version(envelope) if _is_plain_meta(meta, envelope) else None
        else:
            version = None
        return (CALL, version) if version is not None and (CALL, version) in self._answers else None

    def client(self, message: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        """The name and capabilities the client declared for a request: in initialize (2025-11-25), or in the
        request's own envelope (2026-07-28)."""
        if self._handshake is not None:
            return self._client["clientInfo"]["name"], self._client["capabilities"]
        meta = message["params"]["_meta"]
        info = meta.get(f"{ENVELOPE}clientInfo")
        return (info["name"] if info is not None else None), meta[f"{ENVELOPE}clientCapabilities"]

    def _modern(self, method: str, params: Any) -> tuple[str, str] | None:
        if not isinstance(params, dict) or set(params) != {"_meta"}:
            return None
        version = self._envelope_version(params["_meta"])
        return (method, version) if version is not None and (method, version) in self._answers else None

    def _envelope_version(self, meta: Any) -> str | None:
        """The protocol version of a plain 2026-07-28 envelope (None for anything else)."""
        if not isinstance(meta, dict) or not set(meta) <= ENVELOPE_KEYS:
            return None
        version = meta.get(f"{ENVELOPE}protocolVersion")
        if not isinstance(version, str):
            return None
        if not _is_capabilities(meta.get(f"{ENVELOPE}clientCapabilities")):
            return None
        info = meta.get(f"{ENVELOPE}clientInfo")
        if info is not None and not _is_name_and_version(info):
            return None
        level = meta.get(f"{ENVELOPE}logLevel")
        if level is not None and not (isinstance(level, str) and level in LOG_LEVELS):
            return None
        return version


def _is_plain_meta(meta: Any, envelope: dict[str, Any]) -> bool:
    """A request `_meta` that changes nothing in how the SDK runs a call: beside `envelope` (the keys of the
    protocol's own namespace, judged by the caller), only other vendors' keys and a well-formed progress token."""
    if not isinstance(meta, dict):
        return False
    if any(key.startswith(ENVELOPE) and key not in envelope for key in meta):
        return False
    return "progressToken" not in meta or _request_id({"id": meta["progressToken"]}) is not None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Front:
    """Reads the client for the whole session; answers the opening and plain tool calls early; passes every other
    line on to the SDK."""

    def __init__(self, source: BinaryIO, wire_fd: int, answers: Answers | None) -> None:
        from memesh.transports.mcp.early_calls import EarlyCalls

        self._source = source
        self._wire_fd = wire_fd
        self._answers = answers
        self._opening = Opening(answers) if answers is not None else None
        self._lock = _thread.allocate_lock()  # the early answers' state, and every write to the wire
        self._count = 0
        self.replayed: dict[str, str] = {}  # private id -> the result text sent for it
        self._calls = EarlyCalls(self._lock, lambda data: _write_all(self._wire_fd, data), _dumps)
        self._last = time.monotonic()  # when the client last wrote
        self._eof = False
        self._passed = 0  # bytes passed on to the SDK's pipe
        self.finished = False  # the client ended the session before the SDK took over, every request answered
        self._wanted = _thread.allocate_lock()  # released once the SDK is wanted (or the session is over)
        if self._opening is not None:
            self._wanted.acquire()
        read_fd, self._pipe = os.pipe()
        self.sdk_input = os.fdopen(read_fd, "rb")  # what the SDK reads in place of stdin

    @property
    def wire_fd(self) -> int:
        """The descriptor the SDK writes the protocol to."""
        return self._wire_fd

    def wire_writer(self) -> WireWriter:
        """What the SDK writes the protocol with: each message whole, under the front's lock (a call answered here
        may still be writing its answer)."""
        return WireWriter(self._wire_fd, self._lock)

    def start(self) -> None:
        """Start reading stdin in a thread of its own (like a daemon thread, it never holds the process open)."""
        _thread.start_new_thread(self._pump, ())

    def sdk_wanted(self, on_quiet: Callable[[], None] | None = None) -> bool:
        """Wait until the SDK is wanted: True once a line needs it; False when the session ended with every request
        answered here (the SDK is not needed at all). `on_quiet` runs once, on this thread, when the client has been
        quiet for QUIET_SECONDS with no call running here."""
        while not self._wanted.acquire(True, QUIET_SECONDS if on_quiet is not None else -1):
            with self._lock:
                quiet = time.monotonic() - max(self._last, self._calls.last) >= QUIET_SECONDS
                due = self._opening is not None and not self._calls.running and quiet
            if due and on_quiet is not None:
                on_quiet()
                on_quiet = None
        self._wanted.release()
        return not self.finished

    def caller(self) -> Any:
        """The caller the calls answered here run on (made now if no call has made it yet; None when it cannot
        be made: the first call reports why)."""
        with self._lock:
            made = self._calls.caller_for_calls()
        return None if isinstance(made, Exception) else made

    def hand_over(self) -> tuple[dict[str, str], Any] | None:
        """End the early answers (the SDK answers from now on): the private ids passed on, with what was sent, and
        the caller the calls answered here ran on (None: none was); None when the session is already over."""
        with self._lock:
            if self.finished:
                return None
            self._opening = None
            return dict(self.replayed), self._calls.caller

    def close(self) -> None:
        """Close what the calls answered here opened (the session ended before the SDK took over)."""
        self._calls.close()

    def _want_sdk(self) -> None:
        if self._wanted.locked():
            self._wanted.release()

    def _pump(self) -> None:
        try:
            for line in iter(self._source.readline, b""):
                self._last = time.monotonic()
                forwarded = self._take(line)
                if forwarded:
                    self._passed += len(forwarded)
                    if self._passed > PIPE_ROOM:
                        with self._lock:
                            self._want_sdk()
                    _write_all(self._pipe, forwarded)
        except OSError:
            pass  # the SDK stopped reading, or the client stopped reading its answers: the server is on its way out
        finally:
            # End of input: the calls still running here are answered before the SDK (if it serves) sees it, since
            # the process ends with the SDK's session.
            self._calls.wait()
            with self._lock:
                if self._opening is not None:  # nothing was left to the SDK to answer: it is not needed
                    self.finished = True
                    self._opening = None
                self._want_sdk()
            os.close(self._pipe)

    def _take(self, line: bytes) -> bytes:
        """The line to pass on (b"": none): as read; for an opening request answered here, the same request under a
        private id; nothing for a call answered here, or for a cancellation of one."""
        with self._lock:
            if self._opening is None and (CANCELLED.encode() not in line or not self._calls.running):
                return line
            try:
                message = _loads(line.decode("utf-8"))
            except Exception:  # not UTF-8, not JSON, nested too deep: the SDK answers it (with a parse error)
                message = None
            if self._cancels_own(message):
                return b""
            if self._opening is None:
                return line
            try:
                key = self._opening.key(message)
                call = key is not None and key[0] == CALL and self._callable_here(message)
            except Exception:  # a message this module failed to judge is the SDK's to answer, like any other
                key, call = None, False
            if key is None or (key[0] == CALL and not call):
                self._opening = None  # the opening is over: the SDK answers this line and every later one
                self._want_sdk()
                return line
            if key == ("", ""):
                return line
            assert isinstance(message, dict)  # key() accepts only objects
            if not call:
                return self._replay(line, message, key)
            client_name, _ = self._opening.client(message)
            self._calls.start(message, client_name, self._wrapping(key))
            return b""

    def _replay(self, line: bytes, message: dict[str, Any], key: tuple[str, str]) -> bytes:
        """Answer an opening request from the recording; the same request under a private id, for the SDK."""
        result = self._answers[key] if self._answers is not None else ""
        private = f"{REPLAY_PREFIX}{self._count + 1}"
        try:
            answer = f'{{"jsonrpc":"2.0","id":{_dumps(message["id"])},"result":{result}}}\n'.encode()
            forwarded = _dumps({**message, "id": private}).encode() + b"\n"
        except UnicodeEncodeError:  # a lone surrogate (a JSON escape): the SDK answers that, as it sees fit
            self._opening = None
            self._want_sdk()
            return line
        _write_all(self._wire_fd, answer)
        self._count += 1
        self.replayed[private] = result
        return forwarded

    def _cancels_own(self, message: Any) -> bool:
        """A cancellation of a call answered here (which then gets no answer if it is still running): the SDK never
        saw that call. JSON-RPC lets a cancellation that comes after the answer be ignored."""
        if not (isinstance(message, dict) and message.get("method") == CANCELLED and "id" not in message):
            return False
        params = message.get("params")
        request_id = _request_id({"id": params.get("requestId")}) if isinstance(params, dict) else None
        if request_id is None or not self._calls.owns(request_id):
            return False
        self._calls.cancel(request_id)
        return True

    def _callable_here(self, message: dict[str, Any]) -> bool:
        """Whether this call is one the front answers as the SDK's handler would (see the module's docstring)."""
        from memesh.app.waiting import wait_ms

        params = message["params"]
        if wait_ms(params["name"], params.get("arguments")):
            return False  # a poll that waits sleeps on the SDK's event loop
        assert self._opening is not None
        _, capabilities = self._opening.client(message)
        return not (params["name"] == "work_package" and isinstance(capabilities, dict) and "roots" in capabilities)

    def _wrapping(self, key: tuple[str, str]) -> dict[str, Any]:
        """What the SDK adds around a call's result in this era (2026-07-28: resultType, the serverInfo stamp)."""
        recorded = _loads(self._answers[key]) if self._answers is not None else {}
        return {field: value for field, value in recorded.items() if field not in RESULT_KEYS}


class WireWriter:
    """A text file for the SDK's stdio_server: each write (one whole message) goes out under the front's lock."""

    def __init__(self, fd: int, lock: Any) -> None:
        self._fd = fd
        self._lock = lock

    def write(self, text: str) -> int:
        data = text.encode("utf-8")
        with self._lock:
            _write_all(self._fd, data)
        return len(text)

    def flush(self) -> None:
        pass


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
    warm = Warm(front)
    try:
        if not front.sdk_wanted(warm.start):
            front.close()  # the client ended the session, every request answered without the SDK
            return
        from memesh.transports.mcp import server  # the SDK: most of the start-up time

        server.run(front, hooks=warm.hooks is None)
    except KeyboardInterrupt:
        pass  # Ctrl-C while the SDK loads: a person stopping the server by hand, as server.run treats it
    finally:
        warm.close()
        stdio.release()


class Warm:
    """What a session keeps warm before (or without) the SDK: the front's caller with its store and update check
    opened, and the hook server, started once the client is quiet."""

    def __init__(self, front: Front) -> None:
        self._front = front
        self.hooks: Any = None  # the HookServer started here (the SDK's lifespan then starts none)

    def start(self) -> None:
        caller = self._front.caller()
        if caller is None:
            return
        try:
            caller.open()  # a failure to open is kept for the first call to report, as the SDK's lifespan does
            from memesh.transports.mcp.session_hooks import serve_hooks

            self.hooks = serve_hooks(caller)
        except Exception:  # hooks then run cold; the session itself goes on
            import logging

            logging.getLogger("memesh.mcp").exception("the session's hook server did not start")

    def close(self) -> None:
        if self.hooks is not None:
            self.hooks.close()
