"""Tool calls are answered by the early front while the SDK loads: through the same door, with the SDK's own answer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

import pytest

from memesh.transports.mcp.early import CALL, ENVELOPE, REPLAY_PREFIX, Front, Opening, recorded_answers

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.transports.mcp.conftest import McpHarness, RawServer

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
INITIALIZE = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "early-client", "version": "1"}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _meta(capabilities: Any = None, *, client: bool = True, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        f"{ENVELOPE}protocolVersion": MODERN,
        f"{ENVELOPE}clientCapabilities": {} if capabilities is None else capabilities,
    }
    if client:
        meta[f"{ENVELOPE}clientInfo"] = {"name": "early-client", "version": "1"}
    return {**meta, **(extra or {})}


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def call(name: str, arguments: Any = None, request_id: Any = 3, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, **params}
    if arguments is not None:
        body["arguments"] = arguments
    return request(CALL, body, request_id)


def handshaken() -> Opening:
    answers = recorded_answers()
    assert answers is not None, "generated/mcp_answers.py was recorded with another mcp SDK: run tools/codegen.py"
    opening = Opening(answers)
    assert opening.key(request("initialize", INITIALIZE)) == ("initialize", LEGACY)
    assert opening.key(INITIALIZED) == ("", "")
    return opening


def fresh() -> Opening:
    answers = recorded_answers()
    assert answers is not None
    return Opening(answers)


@pytest.mark.parametrize(
    "message",
    [
        call("recall", {"query": "x"}),
        call("recall"),
        request(CALL, {"name": "recall", "arguments": None}, 3),
        call("remember", {"name": "n"}, _meta={"progressToken": "p-1", "claudecode/toolUseId": "toolu_1"}),
        call("no-such-tool", {}),
    ],
)
def test_a_plain_call_after_the_handshake_is_answered_early(message: dict[str, Any]) -> None:
    assert handshaken().key(message) == (CALL, LEGACY)


@pytest.mark.parametrize(
    "message",
    [
        call("recall", {"query": "x"}, _meta=_meta()),
        call("recall", {}, _meta=_meta(client=False)),
        call("recall", {}, _meta=_meta({"roots": {}}, extra={"progressToken": 7, "claudecode/toolUseId": "t"})),
    ],
)
def test_a_plain_2026_call_is_answered_early(message: dict[str, Any]) -> None:
    assert fresh().key(message) == (CALL, MODERN)


@pytest.mark.parametrize(
    "message",
    [
        call("recall", [1]),
        call("recall", "x"),
        request(CALL, {"name": 7, "arguments": {}}, 3),
        call("recall", {}, cursor="c"),
        call("recall", {}, _meta={"progressToken": True}),
        call("recall", {}, _meta={"progressToken": 1.5}),
        call("recall", {}, _meta=_meta()),  # the envelope belongs to the other era
        call("recall", {}, _meta={f"{ENVELOPE}related-task": {"taskId": "t"}}),
        call("recall", {}, _meta=[]),
        call("recall", {}, request_id=None),
        call("recall", {}, request_id=1.5),
    ],
)
def test_a_call_the_sdk_would_refuse_or_treat_otherwise_is_left_to_it(message: dict[str, Any]) -> None:
    assert handshaken().key(message) is None


@pytest.mark.parametrize(
    "message",
    [
        call("recall", {}),  # no envelope and no handshake
        call("recall", {}, _meta=_meta(client=False) | {f"{ENVELOPE}protocolVersion": "1999-01-01"}),
        call("recall", {}, _meta=_meta([])),
        call("recall", {}, _meta=_meta(extra={f"{ENVELOPE}logLevel": "loud"})),
        call("recall", {}, _meta=_meta(extra={f"{ENVELOPE}unknown": 1})),
    ],
)
def test_a_2026_call_without_a_plain_envelope_is_left_to_the_sdk(message: dict[str, Any]) -> None:
    assert fresh().key(message) is None


def test_a_call_before_the_initialized_notification_is_left_to_the_sdk() -> None:
    opening = fresh()
    assert opening.key(request("initialize", INITIALIZE)) == ("initialize", LEGACY)
    assert opening.key(call("recall", {})) is None


def run_front(lines: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Front]:
    """What the front answers the client, and what it passes on to the SDK, for these lines of stdin."""
    import io

    wire_read, wire_write = os.pipe()
    source = io.BytesIO("".join(json.dumps(line) + "\n" for line in lines).encode())
    front = Front(source, wire_write, recorded_answers())
    front.start()
    passed_on = [json.loads(line) for line in front.sdk_input.read().decode().splitlines()]
    os.close(wire_write)
    with os.fdopen(wire_read, "rb") as wire:
        answered = [json.loads(line) for line in wire.read().splitlines()]
    front.close()
    return answered, passed_on, front


class FrontSession:
    """A front in this process, fed one line at a time: what it answers, and (at the end) what it passed on."""

    def __init__(self) -> None:
        source_read, self._source = os.pipe()
        wire_read, self._wire_write = os.pipe()
        self._wire = os.fdopen(wire_read, "rb")
        self.front = Front(os.fdopen(source_read, "rb"), self._wire_write, recorded_answers())
        self.front.start()

    def send(self, message: dict[str, Any]) -> None:
        os.write(self._source, json.dumps(message).encode() + b"\n")

    def answer(self) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self._wire.readline())
        return answer

    def end(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Close stdin: the answers not read yet, and every line passed on to the SDK."""
        os.close(self._source)
        passed_on = [json.loads(line) for line in self.front.sdk_input.read().splitlines()]
        os.close(self._wire_write)
        rest = [json.loads(line) for line in self._wire.read().splitlines()]
        self.front.close()
        return rest, passed_on


@pytest.fixture
def held_calls(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Every call through the door waits for the second event, once it has set the first (it is running)."""
    from memesh.app import dispatch

    running, release = threading.Event(), threading.Event()
    real = dispatch.call

    def held(*args: Any, **kwargs: Any) -> Any:
        running.set()
        assert release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(dispatch, "call", held)
    return running, release


CANCEL = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}
REMEMBER = call("remember", {"name": "early-note", "type": "note", "observations": ["kept early"]})


@pytest.mark.usefixtures("memesh_env")
def test_a_call_answered_early_is_not_passed_on_and_a_late_cancellation_of_it_is_dropped() -> None:
    session = FrontSession()
    session.send(request("initialize", INITIALIZE))
    session.send(INITIALIZED)
    assert session.answer()["id"] == 1
    session.send(REMEMBER)
    answered = session.answer()
    session.send(CANCEL)
    session.send(request("tools/list", request_id=2))
    rest, passed_on = session.end()
    assert answered["id"] == 3
    assert answered["result"]["structuredContent"]["stored"] is True
    assert [answer["id"] for answer in rest] == [2]
    # The SDK sees the handshake and the listing (under private ids), never the call nor its cancellation.
    assert [line.get("id") for line in passed_on] == [f"{REPLAY_PREFIX}1", None, f"{REPLAY_PREFIX}2"]
    assert session.front.finished  # end of input with every request answered: the SDK is not needed


@pytest.mark.usefixtures("memesh_env")
def test_a_call_cancelled_while_it_runs_gets_no_answer_and_the_front_keeps_reading(
    held_calls: tuple[threading.Event, threading.Event],
) -> None:
    running, release = held_calls
    session = FrontSession()
    session.send(request("initialize", INITIALIZE))
    session.send(INITIALIZED)
    assert session.answer()["id"] == 1
    session.send(REMEMBER)
    assert running.wait(30)
    session.send(CANCEL)
    session.send(request("tools/list", request_id=2))
    assert session.answer()["id"] == 2  # answered while the call still runs
    release.set()
    rest, passed_on = session.end()  # end of input waits for the running call, whose answer is not sent
    assert rest == []
    assert CANCEL not in passed_on


def _answer_within(session: FrontSession, seconds: float = 30) -> dict[str, Any]:
    """The next answer, read on a thread of its own: a call left unanswered fails the test instead of hanging it."""
    box: list[dict[str, Any]] = []
    reader = threading.Thread(target=lambda: box.append(session.answer()), daemon=True)
    reader.start()
    reader.join(seconds)
    assert box, f"no answer within {seconds} s"
    return box[0]


@pytest.mark.usefixtures("memesh_env")
def test_a_call_whose_failure_cannot_even_be_reported_is_still_answered_and_the_next_one_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call that raises is answered as the SDK's handler answers it; if making that answer fails too, JSON-RPC's
    internal error answers it, so the client is never left waiting and end of input never waits forever; the
    worker thread lives on for the next call."""
    from memesh.app import dispatch
    from memesh.transports.mcp import calls

    real = dispatch.call

    def failing(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "remember":
            raise RuntimeError("boom")
        return real(name, *args, **kwargs)

    def unreportable(name: str, exc: BaseException) -> Any:
        raise TypeError("cannot report")

    monkeypatch.setattr(dispatch, "call", failing)
    monkeypatch.setattr(calls, "unexpected_failure", unreportable)
    session = FrontSession()
    session.send(request("initialize", INITIALIZE))
    session.send(INITIALIZED)
    assert session.answer()["id"] == 1
    session.send(REMEMBER)
    internal = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": "Internal error"}}
    assert _answer_within(session) == internal
    session.send(call("recall", {"query": "anything"}, request_id=4))
    answered = _answer_within(session)
    assert answered["id"] == 4 and "structuredContent" in answered["result"]
    rest, _ = session.end()
    assert rest == []


@pytest.mark.usefixtures("memesh_env")
def test_a_cancellation_of_a_request_the_front_did_not_answer_goes_to_the_sdk() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
    answered, passed_on, front = run_front([request("initialize", INITIALIZE), INITIALIZED, cancel])
    assert [answer["id"] for answer in answered] == [1]
    assert passed_on[-1] == cancel
    assert not front.finished


@pytest.mark.usefixtures("memesh_env")
@pytest.mark.parametrize(
    ("capabilities", "message"),
    [
        ({}, call("message", {"action": "poll", "wait_ms": 500})),  # a poll that waits sleeps on the SDK's loop
        ({"roots": {}}, call("work_package", {"action": "list"})),  # it may ask the client for its roots
    ],
)
def test_a_call_that_waits_or_may_ask_the_client_for_roots_is_left_to_the_sdk(
    capabilities: dict[str, Any], message: dict[str, Any]
) -> None:
    answered, passed_on, _ = run_front(
        [request("initialize", {**INITIALIZE, "capabilities": capabilities}), INITIALIZED, message]
    )
    assert [answer["id"] for answer in answered] == [1]
    assert passed_on[-1] == message


# mcp, pydantic and anyio cannot be imported: whatever this process answers, the front answered without them.
WITHOUT_THE_SDK = """
import sys
for name in ("mcp", "mcp_types", "pydantic", "anyio"):
    sys.modules[name] = None
from memesh.transports.mcp import early
early.main()
"""


def test_a_session_piped_whole_is_answered_without_importing_the_sdk(mcp_process: McpHarness) -> None:
    lines = [
        request("initialize", INITIALIZE),
        INITIALIZED,
        request("tools/list", request_id=2),
        call("remember", {"name": "piped-note", "type": "note", "observations": ["written in one go"]}),
        call("recall", {"query": "piped"}, request_id=4),
    ]
    mcp_process.launch_with(WITHOUT_THE_SDK)
    done = subprocess.run(
        mcp_process.command,
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=mcp_process.folder,
        env={**os.environ, **(mcp_process.params().env or {})},
        timeout=60,
        check=False,
    )
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert sorted(answers) == [1, 2, 3, 4]
    assert answers[3]["result"]["structuredContent"]["stored"] is True
    assert answers[4]["result"]["isError"] is False  # run beside the remember, as the SDK runs calls


# The SDK is never loaded (the process ends with the session): every call is the front's.
FRONT_ONLY = """
import sys, types

def run(front, **options):
    raise SystemExit("the SDK was wanted")

sys.modules["memesh.transports.mcp.server"] = types.SimpleNamespace(run=run)
from memesh.transports.mcp import early
early.QUIET_SECONDS = 3600.0
early.main()
"""
SDK_ONLY = "from memesh.transports.mcp import server; server.run()"


def calls_in(era: str) -> list[dict[str, Any]]:
    """A sequence of calls as a client of `era` writes them (the 2026 ones carry their envelope, the last two without
    a client name)."""
    plain = [
        call("remember", {"name": "same-note", "type": "decision", "observations": ["use WAL"], "tags": ["a"]}),
        call("remember", {"name": "same-note", "observations": ["and a busy timeout"]}),
        call("recall", {"query": "WAL"}),
        call("recall", {"limit": 0}),
        call("forget", {"name": "nothing-here"}),
        call("no-such-tool", {}),
        call("user_patterns", {}),
        call("remember", {"name": "nameless-client", "type": "note", "observations": ["x"]}),
        call("recall", {"query": "nameless"}),
    ]
    if era == LEGACY:
        return plain
    return [
        {**message, "params": {**message["params"], "_meta": _meta(client=index < 7)}}
        for index, message in enumerate(plain)
    ]


def timeless(value: Any) -> Any:
    """`value` with every timestamp (a key ending in _at) blanked, and JSON text read as the value it holds; the
    user_patterns hour and weekday too (the two servers run seconds apart, sometimes across an hour's turn)."""
    if isinstance(value, dict):
        return {
            key: "T" if key.endswith("_at") or key in ("hour", "dayNum") else timeless(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [timeless(item) for item in value]
    if isinstance(value, str) and value.startswith("{"):
        return timeless(json.loads(value))
    if isinstance(value, str):
        return re.sub(r"(Peak (?:hours|days): )[^\n]*", r"\1T", value)
    return value


def answers_of(raw: RawServer, era: str) -> list[Any]:
    if era == LEGACY:
        raw.initialize("early-client")
    return [timeless(raw.request(message["method"], message["params"])) for message in calls_in(era)]


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_the_fronts_answers_to_calls_are_the_sdks_own(
    era: str, mcp_process: McpHarness, start_raw: Callable[[], RawServer], tmp_path: Path
) -> None:
    mcp_process.launch_with(FRONT_ONLY)
    early = answers_of(start_raw(), era)
    mcp_process.command = [sys.executable, "-c", SDK_ONLY]
    mcp_process.db = tmp_path / "memesh" / "sdk.db"
    sdk = answers_of(start_raw(), era)
    assert "the SDK was wanted" not in mcp_process.stderr()
    assert all("result" in answer for answer in early)
    assert early[-1]["result"]["structuredContent"]["entities"][0]["metadata"]["provenance"]["source_host"] == (
        "early-client" if era == LEGACY else "mcp"
    )
    assert early == sdk
