"""The registry entries of every operation that is not an MCP tool, grouped like the transports' handlers.

`memesh.app.registry` holds the `Op` and `Tool` types and the 12 tools; each module here holds the entries of one
group. `all_ops()` is every entry there is: the parity test and the layer rules iterate it.
"""

from __future__ import annotations

from typing import Any

from memesh.app.registry import TOOLS, Op


def all_ops() -> tuple[Op[Any, Any, Any], ...]:
    """Every registered operation: the tools first, then each group's entries, each once."""
    from memesh.app.operations import database, insight, memory

    found: dict[int, Op[Any, Any, Any]] = {}
    for op in (*TOOLS, *memory.OPS, *insight.OPS, *database.OPS):
        found.setdefault(id(op), op)
    return tuple(found.values())
