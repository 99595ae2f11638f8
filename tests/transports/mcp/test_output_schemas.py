"""Every shape of success payload matches the tool's declared outputSchema (the client re-validates it too)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from memesh.app import dispatch
from memesh.app.resources import Resources
from memesh.context import CallContext
from memesh.core.notes import clean_note
from memesh.errors import ErrorCode
from memesh.schema import files as schemas
from memesh.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from tests.transports.mcp.conftest import McpClient, McpInMemory


async def checked(client: McpClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The call's structured result, validated against the output schema file here as well as in the client."""
    data = await client.ok(tool, arguments)
    jsonschema.Draft202012Validator(schemas.load(f"tools/{tool}.output")).validate(data)
    return data


@pytest.mark.anyio
async def test_every_optional_part_of_remember_output_matches_its_schema(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        noted = await checked(client, "remember", {"note": "Pick SQLite\n\nOne file.\n\nNo mcp_server."})
        await checked(client, "remember", {"name": "old", "type": "decision", "observations": ["v1"]})
        await checked(client, "remember", {"name": "rival", "type": "decision", "observations": ["no"]})
        linked = await checked(
            client,
            "remember",
            {
                "name": "new",
                "type": "decision",
                "observations": ["v2"],
                "relations": [
                    {"to": "old", "type": "supersedes"},
                    {"to": "rival", "type": "contradicts"},
                    {"to": "nowhere", "type": "related-to"},
                ],
            },
        )
        moved = await checked(client, "remember", {"name": "rival", "type": "decision", "namespace": "team"})
        replaced = await checked(client, "remember", {"name": "rival", "replace": True, "observations": ["yes"]})
    assert set(noted["derived"]) == {"name", "type", "title", "observations"}
    assert linked["superseded"] == ["old"]
    assert len(linked["relationsCreated"]) == 2
    assert len(linked["relationErrors"]) == 1
    assert moved["movedFromNamespace"] == "personal"
    assert replaced["replaced"] is True


@pytest.mark.anyio
async def test_every_optional_part_of_recall_output_matches_its_schema(mcp_server: McpInMemory, era: str) -> None:
    bulky = ["x" * 3000, "y" * 3000, "z" * 3000]
    async with mcp_server.connect(era) as client:
        for index in range(5):
            await checked(client, "remember", {"name": f"bulk-{index}", "type": "note", "observations": bulky})
        await checked(client, "remember", {"name": "a", "type": "note", "observations": ["alpha"]})
        await checked(
            client, "remember", {"name": "b", "type": "note", "relations": [{"to": "a", "type": "contradicts"}]}
        )
        await checked(client, "remember", {"name": "gone", "type": "note"})
        await checked(client, "forget", {"name": "gone"})
        capped = await checked(client, "recall", {"limit": 100})
        await checked(client, "recall", {"query": "a b"})
        again = await checked(client, "recall", {"query": "a b"})
        archived = await checked(client, "recall", {"query": "gone", "include_archived": True})
    assert capped["truncated"] is True
    assert capped["entities_omitted"]["shown"] < capped["entities_omitted"]["total"]
    assert any("truncated" in entity for entity in capped["entities"])
    assert again["conflicts"]
    assert all("last_accessed_at" in entity and "match" in entity for entity in again["entities"])
    assert archived["entities"][0]["archived"] is True


@pytest.mark.anyio
async def test_every_kind_of_forget_output_matches_its_schema(mcp_server: McpInMemory, era: str) -> None:
    async with mcp_server.connect(era) as client:
        await checked(client, "remember", {"name": "m", "type": "note", "observations": ["one", "two"]})
        removed = await checked(client, "forget", {"name": "m", "observation": "one"})
        archived = await checked(client, "forget", {"name": "m"})
    assert (removed["observation_removed"], removed["remaining_observations"]) == (True, 1)
    assert archived["archived"] is True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(note=st.text(min_size=1, max_size=2000), query=st.text(max_size=60))
def test_whatever_a_note_or_a_query_holds_the_payloads_match_their_schemas(
    fresh_db: SqliteStore, note: str, query: str
) -> None:
    # In-process through the same dispatch call and context the MCP server uses, so many shapes are cheap to try.
    # Every call must succeed (a refusal would prove nothing about the output schema), except a note with nothing
    # left to remember once control characters and blanks are gone: that one must be refused as a bad body.
    ctx = CallContext(source_host="mcp", agent_view=True)
    resources = Resources.over(fresh_db)
    for tool, arguments in (("remember", {"note": note}), ("recall", {"query": query}), ("recall", {})):
        match dispatch.call(tool, resources, arguments, ctx, nulls_mean_absent=True):
            case Success(data):
                jsonschema.Draft202012Validator(schemas.load(f"tools/{tool}.output")).validate(data)
                assert tool == "recall" or clean_note(note), note
            case Failure(error):
                assert (tool, error.code) == ("remember", ErrorCode.BAD_BODY), (tool, arguments, error)
                assert not clean_note(note), (note, error)
