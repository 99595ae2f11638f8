"""The registry entries of every operation that is not an MCP tool, grouped like the transports' handlers.

`memesh.app.registry` holds the `Op` and `Tool` types and the 12 tools; each module here holds the entries of one
group. `all_ops()` is every entry there is: the parity test and the layer rules iterate it.
"""

from __future__ import annotations

from typing import Any

from memesh.app.registry import TOOLS, Op


def all_ops() -> tuple[Op[Any, Any, Any], ...]:
    """Every registered operation: the tools first, then each group's entries, each once."""
    from memesh.app.operations import (
        database,
        delegation,
        hermes,
        hooks,
        insight,
        kg,
        maintenance,
        members,
        memory,
        messages,
        review,
        router,
        session,
        settings,
        writing,
    )

    found: dict[int, Op[Any, Any, Any]] = {}
    for op in (
        *TOOLS,
        *memory.OPS,
        *insight.OPS,
        *review.OPS,
        *settings.OPS,
        *session.OPS,
        *router.OPS,
        *maintenance.OPS,
        *kg.OPS,
        *messages.OPS,
        *delegation.OPS,
        *hermes.OPS,
        *writing.OPS,
        *hooks.OPS,
        *database.OPS,
        *members.OPS,
    ):
        found.setdefault(id(op), op)
    return tuple(found.values())
