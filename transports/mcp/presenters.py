"""Tools whose MCP text is markdown for the model to read rather than the JSON of their output (the spec's
"MCP returns markdown text"); structuredContent still carries the whole output. briefing is not one: its
reference response is the object, so it answers JSON like every other tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def patterns_markdown(output: dict[str, Any]) -> str:
    """user_patterns as the markdown report (HTTP's GET /v1/patterns answers the JSON)."""
    from memesh.core.patterns import to_markdown

    return to_markdown(output)


PRESENTERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "user_patterns": patterns_markdown,
}
