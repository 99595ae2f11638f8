"""Every credential shape, through every MCP write tool (and the client's declared name), never reaches the file."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.secret_shapes import (
    ORDINARY_TEXT,
    SHAPES,
    assert_nothing_leaked,
    bundle,
    format_batches,
    learn_body,
    remember_body,
    stored_verbatim_misses,
    task_body,
)
from tests.transports.mcp.conftest import MODERN

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpInMemory

pytestmark = pytest.mark.anyio


async def test_no_shape_reaches_the_database_through_any_mcp_write_tool(mcp_server: McpInMemory) -> None:
    client_name = f"agent {SHAPES['password-assignment'][0]}"
    async with mcp_server.connect(MODERN, client_name=client_name) as client:
        for kind in SHAPES:
            await client.ok("remember", remember_body(kind))
            await client.ok("remember", {"note": f"A note about {SHAPES[kind][0]}\n\nand more text"})
            await client.ok("learn", learn_body(kind))
            await client.ok("task_state", task_body(kind))
        imported = await client.ok("import", {"data": bundle(), "merge_strategy": "overwrite"})
    assert imported["errors"] == []
    assert imported["imported"] == len(SHAPES)
    assert_nothing_leaked(mcp_server.target)


async def test_no_catalogued_format_reaches_the_database_through_remember(mcp_server: McpInMemory) -> None:
    async with mcp_server.connect(MODERN) as client:
        for index, texts in enumerate(format_batches()):
            await client.ok("remember", {"name": f"formats-{index}", "type": "note", "observations": texts})
            await client.ok("remember", {"note": f"Formats {index}\n\n" + "\n".join(texts)})
    assert_nothing_leaked(mcp_server.target)


@pytest.mark.parametrize("kind", ["url-userinfo", "zero-width-inside-key-word"])
async def test_a_project_holding_a_credential_is_refused_by_task_state_and_learn(
    mcp_server: McpInMemory, kind: str
) -> None:
    secret, _ = SHAPES[kind]
    async with mcp_server.connect(MODERN) as client:
        task = await client.fails("task_state", {"project": f"p {secret}", "goal": "ship"})
        lesson = await client.fails("learn", {"error": "boom", "fix": "restart", "project": f"p {secret}"})
    assert task.startswith("project: ")
    assert lesson.startswith("project: ")
    assert_nothing_leaked(mcp_server.target)


async def test_ordinary_code_and_text_are_stored_byte_for_byte_through_remember(mcp_server: McpInMemory) -> None:
    half = len(ORDINARY_TEXT) // 2
    async with mcp_server.connect(MODERN) as client:
        for index, texts in enumerate((ORDINARY_TEXT[:half], ORDINARY_TEXT[half:])):
            await client.ok("remember", {"name": f"ordinary-{index}", "type": "note", "observations": texts})
    assert stored_verbatim_misses(mcp_server.target, ORDINARY_TEXT) == []
