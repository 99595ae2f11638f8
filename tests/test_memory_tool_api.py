"""The memory tool's public API as an application uses it: the README's Messages-API loop and the SDK's tool runner,
run against recorded API responses served by a mock HTTP transport (the real anthropic client, no network)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.lib.tools import BetaAbstractMemoryTool

from memesh import MEMORY_TOOL_DEFINITION, handle_memory_command
from memesh.memory_tool import MemeshMemoryTool
from tests.backends import Backend

README = Path(__file__).resolve().parents[1] / "README.md"


def message(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def tool_use(tool_id: str, command: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "memory", "input": command}


def recorded_client(replies: list[dict[str, Any]], requests: list[dict[str, Any]]) -> anthropic.Anthropic:
    """A real client whose HTTP transport answers each request with the next recorded reply."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        requests.append(json.loads(request.content))
        return httpx2.Response(200, json=replies[len(requests) - 1])

    return anthropic.Anthropic(api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(answer)))


def readme_example() -> Callable[..., list[Any]]:
    text = README.read_text()
    block = re.search(r"<!-- memory-tool-example.*?-->\n```python\n(.*?)```", text, re.S)
    assert block is not None, "the README lost its memory tool example"
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    chat: Callable[..., list[Any]] = namespace["chat"]
    return chat


def test_importing_memesh_loads_neither_anthropic_nor_the_memory_tool(tmp_path: Path) -> None:
    probe = "import sys, memesh; print(sorted(m for m in ('anthropic', 'memesh.app.memory_tool') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"


def test_the_definition_is_the_tool_the_api_names() -> None:
    assert MEMORY_TOOL_DEFINITION == {"type": "memory_20250818", "name": "memory"}


def test_the_readme_loop_performs_claudes_memory_calls_and_stops_when_it_answers(
    memesh_env: Path, backend: Backend
) -> None:
    requests: list[dict[str, Any]] = []
    replies = [
        message([tool_use("t1", {"command": "view", "path": "/memories"})], "tool_use"),
        message(
            [
                tool_use("t2", {"command": "create", "path": "/memories/personal/editor.md", "file_text": "tabs\n"}),
                tool_use("t3", {"command": "delete", "path": "/memories/team"}),
            ],
            "tool_use",
        ),
        message([{"type": "text", "text": "Noted: you prefer tabs."}], "end_turn"),
    ]
    chat = readme_example()
    chat(recorded_client(replies, requests), [{"role": "user", "content": "Remember that I prefer tabs."}])
    assert requests[0]["tools"] == [MEMORY_TOOL_DEFINITION]
    first_results = requests[1]["messages"][-1]["content"]
    assert first_results[0]["tool_use_id"] == "t1" and first_results[0]["is_error"] is False
    second = {r["tool_use_id"]: r for r in requests[2]["messages"][-1]["content"]}
    assert second["t2"]["is_error"] is False and second["t3"]["is_error"] is True
    store = backend.open(memesh_env)
    try:
        entity = store.find("editor")
        assert entity is not None and entity.observations == ["tabs"]
        assert entity.metadata["provenance"]["source_host"] == "anthropic-memory-tool"
    finally:
        store.close()


def test_the_tool_runner_sends_a_refusal_back_as_an_error_result(memesh_env: Path) -> None:
    requests: list[dict[str, Any]] = []
    replies = [
        message([tool_use("t1", {"command": "create", "path": "/memories/team/a.md", "file_text": "x"})], "tool_use"),
        message([tool_use("t2", {"command": "view", "path": "/memories-of-you/a.md"})], "tool_use"),
        message([{"type": "text", "text": "done"}], "end_turn"),
    ]
    client = recorded_client(replies, requests)
    runner = client.beta.messages.tool_runner(
        model="claude-opus-5",
        max_tokens=100,
        tools=[MemeshMemoryTool()],
        messages=[{"role": "user", "content": "hi"}],
    )
    final = runner.until_done()
    assert final.content[0].type == "text"
    assert requests[0]["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    created = requests[1]["messages"][-1]["content"][0]
    assert created.get("is_error") is not True
    refused = requests[2]["messages"][-1]["content"][0]
    assert refused["is_error"] is True
    assert "outside" in json.dumps(refused["content"])


def test_the_sdk_class_is_the_sdks_memory_tool_and_its_methods_take_the_sdks_commands(tmp_path: Path) -> None:
    from anthropic.lib.tools import ToolError
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand, BetaMemoryTool20250818ViewCommand

    tool = MemeshMemoryTool(db_path=tmp_path / "db" / "kg.db")
    assert isinstance(tool, BetaAbstractMemoryTool)
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    tool.create(BetaMemoryTool20250818CreateCommand(command="create", path="/memories/global/a.md", file_text="x"))
    shown = tool.view(BetaMemoryTool20250818ViewCommand(command="view", path="/memories/global/a.md"))
    assert shown.endswith("     1\tx")
    with pytest.raises(ToolError):
        tool.view(BetaMemoryTool20250818ViewCommand(command="view", path="/memories/global/missing.md"))


def test_an_input_that_is_not_a_command_object_is_an_error_result(memesh_env: Path) -> None:
    for bad in (None, "view", ["view"], {"command": "view"}, {"command": "view", "path": 1}):
        result = handle_memory_command(bad)
        assert result["is_error"] is True and result["content"].startswith("Error:")


def test_a_database_that_cannot_open_is_an_error_result_that_names_no_path(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    result = handle_memory_command({"command": "view", "path": "/memories"}, db_path=blocker / "kg.db")
    assert result["is_error"] is True
    assert str(tmp_path) not in result["content"]


def test_the_async_tool_performs_and_refuses_like_the_sync_one(tmp_path: Path, backend: Backend) -> None:
    import anyio
    from anthropic.lib.tools import BetaAsyncAbstractMemoryTool, ToolError

    from memesh.memory_tool import MemeshAsyncMemoryTool

    tool = MemeshAsyncMemoryTool(db_path=backend.target(tmp_path / "kg.db"))
    assert isinstance(tool, BetaAsyncAbstractMemoryTool)

    async def scenario() -> str:
        await tool.call({"command": "create", "path": "/memories/team/a.md", "file_text": "one"})
        with pytest.raises(ToolError):
            await tool.call({"command": "delete", "path": "/memories"})
        return await tool.call({"command": "view", "path": "/memories/team/a.md"})

    assert anyio.run(scenario).endswith("     1\tone")


def test_the_memory_tool_delegation_and_hermes_are_on_no_mcp_tool_or_http_route() -> None:
    from memesh.app.registry import BY_NAME
    from memesh.transports.http.routes import ROUTES

    assert not {"memory", "delegation", "hermes"} & set(BY_NAME)
    paths = [getattr(route, "path", "") for route in ROUTES]
    assert not [path for path in paths if any(word in path for word in ("memory", "delegation", "hermes", "memories"))]


INSERTER = """
import sys
from memesh import handle_memory_command
for i in range(15):
    r = handle_memory_command({"command": "insert", "path": "/memories/team/log.md", "insert_line": 0,
                               "insert_text": f"{sys.argv[1]} {i}"}, db_path=sys.argv[2])
    assert not r["is_error"], r
"""


def test_two_processes_inserting_into_one_memory_lose_no_line(tmp_path: Path, backend: Backend) -> None:
    db = str(backend.target(tmp_path / "kg.db"))  # the file, or the test's PostgreSQL database by its URL
    handle_memory_command({"command": "create", "path": "/memories/team/log.md", "file_text": "start"}, db_path=db)
    writers = [
        # Run from the test's folder: the repository's bare memesh/ folder must not shadow the installed package.
        subprocess.Popen([sys.executable, "-c", INSERTER, name, db], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
        for name in ("a", "b")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    shown = handle_memory_command({"command": "view", "path": "/memories/team/log.md"}, db_path=db)["content"]
    lines = {line.split("\t", 1)[1] for line in shown.splitlines()[1:]}
    assert lines == {"start"} | {f"{name} {i}" for name in ("a", "b") for i in range(15)}
