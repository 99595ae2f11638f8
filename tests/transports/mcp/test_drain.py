"""The stdio stream wrappers: end of input waits for the answers owed, and only for those."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from memesh.transports.mcp.drain import AnsweringWriter, DrainingReader, Inflight

SAFETY = 10  # seconds; only so a broken wrapper fails the test instead of hanging it


def _request(request_id: int) -> SessionMessage:
    return SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/list"))


Wrapped = tuple[DrainingReader, AnsweringWriter, Inflight, MemoryObjectReceiveStream[Any]]


async def _wrapped(items: list[Any]) -> Wrapped:
    """A reader that has read `items`, its input then closed; the writer; what the writer sent goes to the stream."""
    send, receive = anyio.create_memory_object_stream[Any](len(items) + 1)
    out_send, out_receive = anyio.create_memory_object_stream[Any](10)
    inflight = Inflight()
    writer = AnsweringWriter(out_send, inflight)
    reader = DrainingReader(receive, inflight, writer, grace=60.0)
    for item in items:
        await send.send(item)
    await send.aclose()
    for _ in items:
        await reader.receive()
    return reader, writer, inflight, out_receive


@pytest.mark.anyio
async def test_end_of_input_reaches_the_session_only_after_the_reply_still_owed() -> None:
    reader, writer, inflight, sent = await _wrapped([_request(1)])
    ended = anyio.Event()

    async def read_to_the_end() -> None:
        with pytest.raises(anyio.EndOfStream):
            await reader.receive()
        ended.set()

    with anyio.fail_after(SAFETY):
        async with anyio.create_task_group() as group:
            group.start_soon(read_to_the_end)
            await anyio.wait_all_tasks_blocked()
            assert not ended.is_set()
            assert inflight.pending == 1
            await writer.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
            await ended.wait()
    assert inflight.pending == 0
    sent.close()


@pytest.mark.anyio
async def test_a_cancelled_request_is_not_waited_for() -> None:
    cancel = JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 1})
    reader, _, inflight, sent = await _wrapped([_request(1), SessionMessage(cancel)])
    assert inflight.pending == 0
    with anyio.fail_after(SAFETY), pytest.raises(anyio.EndOfStream):
        await reader.receive()
    sent.close()


@pytest.mark.anyio
async def test_an_unparseable_line_is_answered_with_a_parse_error() -> None:
    send, receive = anyio.create_memory_object_stream[Any](2)
    inflight = Inflight()
    out_send, out_receive = anyio.create_memory_object_stream[Any](2)
    reader = DrainingReader(receive, inflight, AnsweringWriter(out_send, inflight))
    await send.send(ValueError("not JSON"))
    await send.send(_request(7))
    with anyio.fail_after(SAFETY):
        item = await reader.receive()
        error = await out_receive.receive()
    assert item.message.id == 7
    assert (error.message.id, error.message.error.code) == (None, -32700)
    out_receive.close()


def test_a_request_with_a_lone_surrogate_is_read_again_and_answered() -> None:
    from mcp.types import jsonrpc_message_adapter
    from pydantic import ValidationError

    from memesh.transports.mcp.drain import recover

    line = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"recall","arguments":{"query":"a\\udd2ab"}}}'
    with pytest.raises(ValidationError) as refused:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    message, request_id = recover(refused.value)
    assert request_id == 5
    assert message is not None
    assert message.message.params == {"name": "recall", "arguments": {"query": "a\ufffdb"}}  # type: ignore[union-attr]


def test_a_line_too_deep_to_read_is_a_parse_error_for_its_id() -> None:
    from mcp.types import jsonrpc_message_adapter
    from pydantic import ValidationError

    from memesh.transports.mcp.drain import recover

    deep = "[" * 300 + "]" * 300
    line = f'{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"recall","arguments":{{"q":{deep}}}}}}}'
    with pytest.raises(ValidationError) as refused:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    assert recover(refused.value) == (None, 9)
