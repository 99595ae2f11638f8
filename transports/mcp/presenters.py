"""Tools whose MCP text is markdown for the model to read rather than the JSON of their output (the spec's
"MCP returns markdown text"); structuredContent still carries the whole output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memesh.core.briefing import EMPTY_MINIMAL


def briefing_text(output: dict[str, Any]) -> str:
    """The fenced block itself; at minimal with nothing to show, the sentence the CLI prints."""
    return str(output["text"]) if output.get("text") else EMPTY_MINIMAL


def patterns_markdown(output: dict[str, Any]) -> str:
    """user_patterns as the markdown report (HTTP's GET /v1/patterns answers the JSON)."""
    from memesh.core.patterns import to_markdown

    return to_markdown(output)


PRESENTERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "briefing": briefing_text,
    "user_patterns": patterns_markdown,
}
