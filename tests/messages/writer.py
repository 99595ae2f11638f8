"""A writer process for the many-writers test: sends `count` messages over one transport, each one twice (a retry
with the same idempotency key), and prints `key message_id message_id` per message.

python writer.py mcp|http|cli|direct <db> <count> <prefix> [<url>]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PROJECT = "demo~" + "4" * 32


def body(key: str) -> dict[str, Any]:
    return {
        "action": "send",
        "project": PROJECT,
        "sender": "writer",
        "recipient": "inbox",
        "idempotency_key": key,
        "payload": f"work item {key}",
    }


def over_mcp(db: str, keys: list[str]) -> list[tuple[str, str, str]]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client, types

    shared = {key: os.environ[key] for key in ("MEMESH_DATABASE_URL",) if key in os.environ}  # PostgreSQL's
    server = StdioServerParameters(
        command=str(Path(sys.executable).with_name("memesh-mcp")),
        env={"MEMESH_DAEMON": "0", "MEMESH_DB_PATH": db, **shared},
    )

    async def go() -> list[tuple[str, str, str]]:
        out = []
        async with (
            stdio_client(server) as (read, write),
            ClientSession(
                read, write, client_info=types.Implementation(name=f"writer-{os.getpid()}", version="1")
            ) as session,
        ):
            await session.initialize()
            for key in keys:
                ids = []
                for _ in range(2):
                    result = await session.call_tool("message", body(key))
                    assert not result.is_error, result
                    assert result.structured_content is not None
                    ids.append(result.structured_content["message_id"])
                out.append((key, ids[0], ids[1]))
        return out

    return anyio.run(go)


def over_http(url: str, keys: list[str]) -> list[tuple[str, str, str]]:
    import httpx

    out = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for key in keys:
            ids = [client.post("/v1/message", json=body(key)).json()["data"]["message_id"] for _ in range(2)]
            out.append((key, ids[0], ids[1]))
    return out


def over_cli(db: str, keys: list[str]) -> list[tuple[str, str, str]]:
    memesh = str(Path(sys.executable).with_name("memesh"))
    env = {**os.environ, "MEMESH_DB_PATH": db}
    out = []
    for key in keys:
        ids = []
        for _ in range(2):
            b = body(key)
            done = subprocess.run(
                [
                    memesh,
                    "message",
                    "send",
                    "--project",
                    PROJECT,
                    "--sender",
                    "writer",
                    "--recipient",
                    "inbox",
                    "--idempotency-key",
                    key,
                    "--payload-stdin",
                    "--json",
                ],
                input=b["payload"],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            ids.append(json.loads(done.stdout)["message_id"])
        out.append((key, ids[0], ids[1]))
    return out


def direct(db: str, keys: list[str]) -> list[tuple[str, str, str]]:
    """Through dispatch on this process's own connection, as fast as it goes (the SIGKILL test)."""
    from memesh.app.dispatch import call
    from memesh.app.resources import Resources
    from memesh.store.open import open_store

    store = open_store(os.environ.get("MEMESH_DATABASE_URL") or Path(db))
    resources = Resources.over(store)
    ctx = resources.context("direct", False)
    out = []
    for key in keys:
        message_id = call("message", resources, body(key), ctx).unwrap()["message_id"]
        print(key, message_id, message_id, flush=True)
        out.append((key, message_id, message_id))
    return out


def main() -> None:
    mode, db, count, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    keys = [f"{prefix}-{n}" for n in range(count)]
    if mode == "mcp":
        rows = over_mcp(db, keys)
    elif mode == "http":
        rows = over_http(sys.argv[5], keys)
    elif mode == "cli":
        rows = over_cli(db, keys)
    else:
        direct(db, keys)
        return
    for row in rows:
        print(*row)


if __name__ == "__main__":
    main()
