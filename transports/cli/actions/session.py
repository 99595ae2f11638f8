"""What `memesh briefing` runs once its flags are parsed."""

from __future__ import annotations

from typing import Any

from returns.result import Success

from memesh.core.briefing import EMPTY_MINIMAL
from memesh.transports.cli.actions.memory import call_tool, cli_context, on_store, report


def briefing(*, project: str | None, recipient: str | None, index_only: bool, as_json: bool) -> int:
    """`memesh briefing`: the block (or `--index` alone), text or JSON; a validation failure exits 1."""
    if index_only:
        from memesh.ops.briefing import briefing_index_of

        ctx = cli_context()
        chosen = project or ctx.project()
        result = on_store(lambda store: Success(briefing_index_of(store, chosen, ctx=ctx)))
        return report(result, as_json=as_json, text=lambda index: "\n".join(index["lines"]))
    arguments: dict[str, Any] = {}
    if project is not None:
        arguments["project"] = project
    if recipient is not None:
        arguments["recipient"] = recipient
    return report(
        call_tool("briefing", arguments),
        as_json=as_json,
        text=lambda output: output["text"] or EMPTY_MINIMAL,
    )
