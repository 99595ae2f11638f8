"""tools/list size: the bytes of memesh-mcp's listing, and what each part of it costs (issue 22).

The listing is the server's own answer to tools/list (recorded in generated/mcp_answers.py, checked against the SDK
at every session); beside it, the same listing with each schema file served verbatim (as before issue 22). Parts:
tool descriptions, input schemas (their property descriptions, $defs, the $defs/refine rules only MeMesh's gate
reads, $schema, the title), output schemas, annotations. Each part is what leaving it out would save, in bytes of
compact JSON (what the wire carries; a client's model reads the descriptions and input schemas).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from _common import emit_json

from memesh.app.registry import TOOLS
from memesh.generated import mcp_answers
from memesh.schema import files as schemas

Tool = dict[str, Any]


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def served(version: str = "2025-11-25") -> list[Tool]:
    tools: list[Tool] = json.loads(mcp_answers.RESULTS[mcp_answers.ANSWERS[("tools/list", version)]])["tools"]
    return tools


def verbatim() -> list[Tool]:
    """The listing with every schema file exactly as written (how it was served before issue 22)."""
    by_name = {tool.name: tool for tool in TOOLS}
    return [
        {
            **entry,
            "inputSchema": schemas.load(by_name[entry["name"]].input_schema),
            "outputSchema": schemas.load(by_name[entry["name"]].output_schema),
        }
        for entry in served()
    ]


def without(key: str, value: Any) -> Any:
    """`value` with every `key` left out, at any depth (only for "description": no property of ours has that name)."""
    if isinstance(value, dict):
        return {k: without(key, item) for k, item in value.items() if k != key}
    if isinstance(value, list):
        return [without(key, item) for item in value]
    return value


def in_schemas(change: Callable[[Any], Any], which: Sequence[str]) -> Callable[[Tool], Tool]:
    return lambda tool: {k: change(v) if k in which else v for k, v in tool.items()}


def drop_top(key: str) -> Callable[[Any], Any]:
    return lambda schema: {k: v for k, v in schema.items() if k != key} if isinstance(schema, dict) else schema


def drop_refine(schema: Any) -> Any:
    defs = {k: v for k, v in schema.get("$defs", {}).items() if k != "refine"}
    return {**{k: v for k, v in schema.items() if k != "$defs"}, **({"$defs": defs} if defs else {})}


PARTS: dict[str, Callable[[Tool], Tool]] = {
    "tool descriptions": lambda tool: {k: v for k, v in tool.items() if k != "description"},
    "input schemas, whole": lambda tool: {k: v for k, v in tool.items() if k != "inputSchema"},
    "  every description in them (spec parameter text)": in_schemas(
        lambda s: without("description", s), ["inputSchema"]
    ),
    "  their top-level description": in_schemas(drop_top("description"), ["inputSchema"]),
    "  $defs": in_schemas(drop_top("$defs"), ["inputSchema"]),
    "  $defs/refine (read by MeMesh's gate only)": in_schemas(drop_refine, ["inputSchema"]),
    "  $schema": in_schemas(drop_top("$schema"), ["inputSchema"]),
    "  their top-level title (codegen's class name)": in_schemas(drop_top("title"), ["inputSchema"]),
    "output schemas, whole": lambda tool: {k: v for k, v in tool.items() if k != "outputSchema"},
    "  every description in them (output fields)": in_schemas(lambda s: without("description", s), ["outputSchema"]),
    "  $defs (output)": in_schemas(drop_top("$defs"), ["outputSchema"]),
    "annotations": lambda tool: {k: v for k, v in tool.items() if k != "annotations"},
}


def breakdown(tools: list[Tool]) -> dict[str, int]:
    total = size({"tools": tools})
    return {"total": total, **{part: total - size({"tools": [cut(t) for t in tools]}) for part, cut in PARTS.items()}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    rows = {"served": breakdown(served()), "schema files verbatim": breakdown(verbatim())}
    per_tool = {tool["name"]: size(tool) for tool in served()}
    if args.json:
        emit_json({"benchmark": "tools_list_size", "bytes": rows, "per_tool": per_tool})
        return 0
    print("tools/list (2025-11-25), bytes of compact JSON; a part's figure is what leaving it out saves")
    print(f"  {'':52} {'served':>8} {'verbatim':>9}")
    for part in rows["served"]:
        print(f"  {part:52} {rows['served'][part]:8,} {rows['schema files verbatim'][part]:9,}")
    print("  per tool: " + ", ".join(f"{name} {count:,}" for name, count in per_tool.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
