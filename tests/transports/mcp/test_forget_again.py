"""A second forget of the same memory (issue 35), over MCP and HTTP on one database: the reference archives any
memory that exists and answers `archived: true` (its archiveEntity never looks at the status it finds), so both
answer success — the memory is archived, as asked — and both add `already_archived: true`, saying nothing changed.
Only the CLI turns "nothing changed" into exit 1 (the spec's rule for `memesh forget`; tests/transports/cli)."""

from __future__ import annotations

from typing import Any

import anyio

from memesh.transports.http.app import create_app
from tests.transports.http.conftest import Api
from tests.transports.mcp.conftest import LEGACY, McpInMemory


def test_a_second_forget_answers_the_same_over_mcp_and_http(mcp_server: McpInMemory) -> None:
    async def over_mcp_twice() -> list[dict[str, Any]]:
        async with mcp_server.connect(LEGACY) as client:
            await client.ok("remember", {"name": "twice", "type": "fact", "observations": ["o"]})
            await client.ok("remember", {"name": "thrice", "type": "fact", "observations": ["o"]})
            return [await client.ok("forget", {"name": "twice"}) for _ in range(2)]

    over_mcp = anyio.run(over_mcp_twice)
    app = create_app(db_path=mcp_server.target)
    api = Api(app)
    try:
        over_http: list[dict[str, Any]] = [api.ok("POST", "/v1/forget", json={"name": "thrice"}) for _ in range(2)]
    finally:
        app.close()
    assert over_mcp[0] == {"archived": True, "name": "twice"}
    assert over_mcp[1] == {"archived": True, "already_archived": True, "name": "twice"}
    assert [{**answer, "name": "twice"} for answer in over_http] == over_mcp
