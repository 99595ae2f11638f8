"""Flag shapes shared by the `memesh` command declarations (imported at start-up: Cyclopts only)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from cyclopts import Parameter, Token

# `--tags x y` and `--tags x --tags y` both work: a list option takes every value up to the next flag. No
# generated `--empty-…` / `--no-…` twins: each flag is spelled once, as the spec spells it.
Many = Annotated[list[str] | None, Parameter(consume_multiple=True, negative=())]
Switch = Annotated[bool, Parameter(negative=(), show_default=False)]
# Free text may begin with a hyphen (a Markdown list: "- first item"): it is taken as the text, not as a flag.
# Something spelled like a flag (`--bogus`) is still refused as one, by the command.
Text = Annotated[str | None, Parameter(allow_leading_hyphen=True)]


def whole_number(_type: object, tokens: Sequence[Token]) -> int:
    """An integer flag's value, written as one: `2.9` or `3e0` is refused, not rounded (as MCP and HTTP refuse it)."""
    text = tokens[-1].value.strip()
    if not text.lstrip("+-").isdigit():
        raise ValueError(f"expected a whole number, got {text!r}")
    return int(text)


# An integer flag (--limit, --port).
Int = Annotated[int, Parameter(converter=whole_number)]
OptionalInt = Annotated[int | None, Parameter(converter=whole_number)]
