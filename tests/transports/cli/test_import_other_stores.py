"""memesh import FILE of what other memory stores wrote: the official MCP memory server's memory.jsonl (written by
the real server here) and the TypeScript MeMesh's knowledge-graph.db (only read), on either engine."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.store.test_adoption import FIXTURES, memories

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

# Installed once by `make mcp-memory-server` (a dependency of `make test`), pinned in its lockfile: 2026.8.31.
MEMORY_SERVER = (
    Path(__file__).resolve().parents[3] / "tools" / "mcp-memory-server" / "node_modules" / ".bin" / "mcp-server-memory"
)
WAIT_SECONDS = 30.0


async def _written_by_the_official_server(file: Path) -> None:
    """The official server's own tools write `file`: three entities, two relations, observations added later."""
    if not MEMORY_SERVER.exists():
        pytest.fail(f"the MCP memory server is not installed at {MEMORY_SERVER}: run `make mcp-memory-server`")
    params = StdioServerParameters(
        command=str(MEMORY_SERVER),
        env={
            "MEMESH_DAEMON": "0",
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(file.parent),
            "MEMORY_FILE_PATH": str(file),
        },
        cwd=str(file.parent),
    )
    with (file.parent / "memory-server.log").open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=WAIT_SECONDS) as session,
        ):
            await session.initialize()
            calls: list[tuple[str, dict[str, Any]]] = [
                (
                    "create_entities",
                    {
                        "entities": [
                            {"name": "John Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]},
                            {"name": "Anthropic", "entityType": "organization", "observations": ["Makes Claude"]},
                            {"name": "Kyoto trip", "entityType": "event", "observations": ["Planned for April"]},
                        ]
                    },
                ),
                (
                    "create_relations",
                    {
                        "relations": [
                            {"from": "John Smith", "to": "Anthropic", "relationType": "works_at"},
                            {"from": "John Smith", "to": "Kyoto trip", "relationType": "attends"},
                        ]
                    },
                ),
                (
                    "add_observations",
                    {"observations": [{"entityName": "John Smith", "contents": ["Prefers morning meetings"]}]},
                ),
            ]
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                assert not result.is_error, result.content


@pytest.mark.node  # the official server is an npm package
def test_a_memory_jsonl_the_official_server_wrote_imports_whole_and_recall_finds_it(cli: Cli, tmp_path: Path) -> None:
    file = tmp_path / "memory.jsonl"
    anyio.run(_written_by_the_official_server, file)
    lines = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
    assert {line["type"] for line in lines} == {"entity", "relation"}

    done = cli("import", str(file), "--json")
    assert done.code == 0, done
    answer = done.json()
    assert answer["imported"] == 3 and answer["errors"] == []
    assert answer["source"] == {
        "format": "mcp-memory", "entities": 3, "observations": 4, "relations": 2, "renamed": [], "problems": [],
    }  # fmt: skip
    found = cli.ok("recall", "morning meetings", "--json").json()["entities"]
    assert [entity["name"] for entity in found] == ["John Smith"]
    [john] = found
    assert john["type"] == "person"
    assert john["observations"] == ["Speaks fluent Spanish", "Prefers morning meetings"]
    assert {(relation["to"], relation["type"]) for relation in john["relations"]} == {
        ("Anthropic", "works_at"),
        ("Kyoto trip", "attends"),
    }
    assert john["metadata"]["trust"] == "untrusted"


def _jsonl(folder: Path, *records: dict[str, Any] | str) -> Path:
    file = folder / "memory.jsonl"
    file.write_text(
        "\n".join(record if isinstance(record, str) else json.dumps(record) for record in records) + "\n",
        encoding="utf-8",
    )
    return file


def _entity(name: str, observation: str, kind: str = "note") -> dict[str, Any]:
    return {"type": "entity", "name": name, "entityType": kind, "observations": [observation]}


def test_names_memesh_cannot_keep_are_mapped_reported_and_followed_by_their_relations(cli: Cli, tmp_path: Path) -> None:
    long_name = "x" * 300
    file = _jsonl(
        tmp_path,
        _entity("   ", "a blank name"),
        _entity(long_name, "a name too long"),
        _entity("cafe\u0301 notes", "a name with a combining accent"),
        _entity("hub", "points at the others"),
        {"type": "relation", "from": "hub", "to": long_name, "relationType": "links"},
        {"type": "relation", "from": "hub", "to": "   ", "relationType": "links"},
    )
    dry = cli.ok("import", str(file), "--dry-run", "--json").json()
    assert dry["dry_run"] is True and dry["entities"] == 4 and dry["relations"] == 2
    renamed = {item["from"]: item["to"] for item in dry["renamed"]}
    assert set(renamed) == {"   ", long_name, "cafe\u0301 notes"}
    assert len(renamed[long_name]) <= 255 and renamed["cafe\u0301 notes"] == "café notes"
    assert cli.ok("export", "--json").json()["entities"] == []  # the dry run wrote nothing

    answer = cli.ok("import", str(file), "--json").json()
    assert answer["imported"] == 4 and answer["source"]["renamed"] == dry["renamed"]
    names = {entity["name"]: entity for entity in cli.ok("export", "--json").json()["entities"]}
    assert set(names) == {"hub", *renamed.values()}
    assert {relation["to"] for relation in names["hub"]["relations"]} == {renamed[long_name], renamed["   "]}


def test_a_line_that_cannot_be_read_is_reported_and_the_import_exits_1_with_the_rest_imported(
    cli: Cli, tmp_path: Path
) -> None:
    file = _jsonl(tmp_path, _entity("kept", "the readable one"), "not json at all", {"type": "mystery"})
    done = cli("import", str(file), "--json")
    assert done.code == 1
    answer = done.json()
    assert answer["imported"] == 1
    assert [problem.split(":")[0] for problem in answer["source"]["problems"]] == ["line 2", "line 3"]


def test_format_mcp_memory_reads_a_file_whose_first_line_is_damaged(cli: Cli, tmp_path: Path) -> None:
    file = _jsonl(tmp_path, "{damaged", _entity("after", "the line after a damaged one"))
    assert cli("import", str(file), "--json").json()["errorCode"] == "operation.failed"
    done = cli("import", str(file), "--format", "mcp-memory", "--json")
    assert done.code == 1 and done.json()["imported"] == 1


def test_an_unknown_format_is_refused_as_a_bad_body(cli: Cli, tmp_path: Path) -> None:
    file = _jsonl(tmp_path, _entity("a", "b"))
    done = cli("import", str(file), "--format", "csv", "--json")
    assert done.code == 1 and done.json()["errorCode"] == "validation.bad-body"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="the upstream 4.6.0 fixtures are not on this machine")
def test_the_originals_database_imports_every_memory_and_is_only_read(cli: Cli, tmp_path: Path) -> None:
    original = tmp_path / "original" / "knowledge-graph.db"
    original.parent.mkdir()
    original.write_bytes((FIXTURES / "knowledge-graph.db").read_bytes())
    before = _sha256(original)
    expected = memories(original)
    answer = cli.ok("import", str(original), "--json").json()
    assert answer["imported"] == len(expected) and answer["errors"] == []
    assert answer["source"]["format"] == "memesh-db" and answer["source"]["relations"] == 15
    exported = {entity["name"]: entity for entity in cli.ok("export", "--limit", "1000", "--json").json()["entities"]}
    for memory in expected.values():
        entity = exported[memory["name"]]
        assert entity["observations"] == [content for content, _ in memory["observations"]]
        assert set(entity.get("tags", [])) == memory["tags"]
        assert entity.get("status", "active") == memory["status"]
    # Import's own rules hold for this file too: pins and titles are kept, memories arrive untrusted, and what
    # would change MeMesh's behaviour (task state) is not taken from a file (db copy and adoption keep it all).
    assert exported["auth-decision"]["metadata"]["pin"] is True
    assert exported["task-state:widget"]["title"] == "Ship OAuth login"
    assert exported["auth-decision"]["metadata"]["trust"] == "untrusted"
    assert _sha256(original) == before
    assert [path.name for path in original.parent.iterdir()] == ["knowledge-graph.db"]


def test_a_sqlite_file_the_original_did_not_write_is_refused_as_a_bad_body(cli: Cli, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    other.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    done = cli("import", str(other), "--json")
    assert done.code == 1 and done.json()["errorCode"] == "validation.bad-body"
